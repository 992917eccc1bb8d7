import { sql, type Expression, type Transaction } from 'kysely';

/**
 * `query`'s rows, `size` at a time, through a cursor named `cursor` in the transaction `trx`: one statement,
 * so one snapshot however long the chunks take to use, and only one chunk's rows in the Hub's memory at a time.
 * Every row is read: the cursor is planned for all of them (`cursor_tuple_fraction` 1), as the query alone
 * would be, not for a fast first few. Closes its cursor when abandoned before its last row, so the name may be
 * used again in the transaction; the transaction's end closes it in any case.
 */
export async function* rowsInChunks<R>(trx: Transaction<any>, query: Expression<unknown>, size: number, cursor: string): AsyncGenerator<R[]> {
  if (!Number.isInteger(size) || size < 1) throw new Error(`a chunk is at least one row, not ${size}`);
  const name = sql.id(cursor);
  await sql`SET LOCAL cursor_tuple_fraction = 1`.execute(trx);
  await sql`DECLARE ${name} NO SCROLL CURSOR FOR ${query}`.execute(trx);
  // Open while rows may remain and no read failed (a failed one leaves the transaction aborted, closing it).
  let open = true;
  try {
    while (open) {
      const { rows } = await sql<R>`FETCH FORWARD ${sql.lit(size)} FROM ${name}`.execute(trx).catch((e: unknown) => {
        open = false;
        throw e;
      });
      open = rows.length === size;
      if (rows.length > 0) yield rows;
    }
  } finally {
    if (open) await sql`CLOSE ${name}`.execute(trx);
  }
}
