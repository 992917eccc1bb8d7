import { Kysely, sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { rowsInChunks } from './rows-in-chunks.ts';

interface Items {
  chunk_items: { id: number; label: string };
}

let t: TestDatabase;
let db: Kysely<Items>;

beforeAll(async () => {
  t = await createTestDatabase();
  db = t.db as unknown as Kysely<Items>;
  await sql`CREATE TABLE chunk_items (id integer PRIMARY KEY, label text NOT NULL)`.execute(db);
  await sql`INSERT INTO chunk_items SELECT i, 'item ' || i FROM generate_series(1, 1203) AS i`.execute(db);
});
afterAll(() => t.drop());

const ordered = () => db.selectFrom('chunk_items').select(['id', 'label']).where('id', '>', 0).orderBy('id');
const openCursors = (trx: Kysely<Items>) => sql<{ name: string }>`SELECT name FROM pg_cursors`.execute(trx).then((r) => r.rows.map((c) => c.name));

test("a query's rows come a chunk at a time, in its order, the last chunk short: the same rows as the query alone", async () => {
  const chunks = await db.transaction().execute(async (trx) => {
    const all: Array<Array<{ id: number; label: string }>> = [];
    for await (const rows of rowsInChunks<{ id: number; label: string }>(trx, ordered(), 500, 'items')) all.push(rows);
    return all;
  });
  expect(chunks.map((c) => c.length)).toEqual([500, 500, 203]);
  expect(chunks.flat()).toEqual(await ordered().execute());
});

test('every chunk is read in the snapshot of the first: a row committed between chunks is not among them', async () => {
  const ids = await db.transaction().execute(async (trx) => {
    const seen: number[] = [];
    for await (const rows of rowsInChunks<{ id: number }>(trx, ordered(), 400, 'items')) {
      seen.push(...rows.map((r) => r.id));
      // Another session commits a row at the end of the order, and removes one not read yet.
      if (seen.length === 400) await sql`INSERT INTO chunk_items VALUES (5000, 'late'); DELETE FROM chunk_items WHERE id = 1000`.execute(t.db);
    }
    return seen;
  });
  expect(ids).toHaveLength(1203);
  expect(ids).toContain(1000);
  expect(ids).not.toContain(5000);
  await sql`INSERT INTO chunk_items VALUES (1000, 'item 1000'); DELETE FROM chunk_items WHERE id = 5000`.execute(t.db);
});

test('the cursor is planned for every row, and a read abandoned before its end closes it: its name is free again', async () => {
  await db.transaction().execute(async (trx) => {
    for await (const rows of rowsInChunks<{ id: number }>(trx, ordered(), 100, 'items')) {
      expect(rows[0]!.id).toBe(1);
      expect((await sql<{ cursor_tuple_fraction: string }>`SHOW cursor_tuple_fraction`.execute(trx)).rows[0]!.cursor_tuple_fraction).toBe('1');
      expect(await openCursors(trx)).toEqual(['items']);
      break;
    }
    expect(await openCursors(trx)).toEqual([]);
    const again = [];
    for await (const rows of rowsInChunks<{ id: number }>(trx, ordered().where('id', '<=', 3), 100, 'items')) again.push(...rows);
    expect(again.map((r) => r.id)).toEqual([1, 2, 3]);
  });
});

test('a query with no rows gives no chunk, and a chunk of no rows is refused', async () => {
  await db.transaction().execute(async (trx) => {
    const chunks = [];
    for await (const rows of rowsInChunks(trx, ordered().where('id', '<', 0), 100, 'none')) chunks.push(rows);
    expect(chunks).toEqual([]);
    await expect(rowsInChunks(trx, ordered(), 0, 'zero').next()).rejects.toThrow('a chunk is at least one row, not 0');
  });
});
