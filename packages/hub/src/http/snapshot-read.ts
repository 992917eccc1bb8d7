import type { Expression, Kysely, Transaction } from 'kysely';
import type { Tables } from '../database/tables.ts';
import { rowsInChunks } from '../database/rows-in-chunks.ts';
import { ChunkedList } from './chunked-list.ts';
import { SLICE_ITEMS } from './json-answer.ts';

/** What an answer is read through: one transaction, and the answer's list read in chunks from it. */
export interface SnapshotRead {
  /** Every read of the answer goes through it: one snapshot. */
  readonly trx: Transaction<Tables>;
  /**
   * `query`'s rows as the answer's list, SLICE_ITEMS rows a chunk, each chunk made items by `toItems` (which may
   * read more through `trx`). The list ends the transaction once written (or given up). One list an answer.
   */
  list<R, T>(query: Expression<unknown>, toItems: (rows: R[]) => T[] | Promise<T[]>): ChunkedList<T>;
}

/**
 * Reads an answer in one read-only, repeatable-read transaction: `build` reads its head through `read.trx`
 * and may leave its one large list to `read.list`, read while the answer is written, so that the answer's rows
 * are never all in memory at once and every part of it, head and every chunk, is of the same snapshot. The
 * transaction holds a pooled connection until the answer is written; it is ended at once when `build` fails
 * or makes no list. A list's transaction is committed, or rolled back after a failed read.
 */
export async function readInSnapshot<B>(db: Kysely<Tables>, build: (read: SnapshotRead) => Promise<B>): Promise<B> {
  const trx = await db.startTransaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute();
  let ended = false;
  const end = async (failed: boolean) => {
    if (ended) return;
    ended = true;
    // After a failed read the rollback's own failure says nothing more: the driver then closes the connection.
    if (failed) await trx.rollback().execute().catch(() => {});
    else await trx.commit().execute();
  };
  let listed = false;
  const read: SnapshotRead = {
    trx,
    list<R, T>(query: Expression<unknown>, toItems: (rows: R[]) => T[] | Promise<T[]>) {
      if (listed) throw new Error('an answer read in a snapshot has one list');
      listed = true;
      async function* items() {
        for await (const rows of rowsInChunks<R>(trx, query, SLICE_ITEMS, 'answer_list')) yield await toItems(rows);
      }
      return new ChunkedList(items(), end);
    },
  };
  let body: B;
  try {
    body = await build(read);
  } catch (e) {
    await end(true);
    throw e;
  }
  if (!listed) await end(false);
  return body;
}
