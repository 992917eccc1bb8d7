import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { SLICE_ITEMS } from './json-answer.ts';
import { readInSnapshot } from './snapshot-read.ts';

// An answer with a large list (the unpaged drift, a rollout's targets) is read in one transaction held while it
// is written: its head and each chunk of its list of one snapshot, and the transaction ended whatever happens.

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase({ empty: true });
  await sql`CREATE TABLE snapshot_items (id integer PRIMARY KEY)`.execute(t.db);
  await sql`INSERT INTO snapshot_items SELECT generate_series(1, 1203)`.execute(t.db);
});
afterAll(() => t.drop());

const items = sql<{ id: number }>`SELECT id FROM snapshot_items ORDER BY id`;
const count = sql<{ n: number }>`SELECT count(*)::int AS n FROM snapshot_items`;
/** Sessions of the test's pool inside a transaction now. */
const inTransaction = async () =>
  (await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`.execute(t.db)).rows[0]!.n;

test("the head and every chunk of the list are of one snapshot: what commits while the answer is written is not in it", async () => {
  const answer = await readInSnapshot(t.db, async (read) => {
    const [{ n }] = (await count.execute(read.trx)).rows as [{ n: number }];
    return { n, items: read.list<{ id: number }, number>(items, (rows) => rows.map((r) => r.id)) };
  });
  // A write after the head was read, before the list's first chunk, and another between its chunks.
  await sql`INSERT INTO snapshot_items VALUES (2000)`.execute(t.db);
  const first = await answer.items.next();
  await sql`DELETE FROM snapshot_items WHERE id = 1203`.execute(t.db);
  const rest: number[] = [];
  for (let chunk = await answer.items.next(); chunk !== null; chunk = await answer.items.next()) rest.push(...chunk);
  await answer.items.close();
  expect(first).toHaveLength(SLICE_ITEMS);
  expect([...first!, ...rest]).toEqual(Array.from({ length: 1203 }, (_, i) => i + 1));
  expect(answer.n).toBe(1203);
  expect(await inTransaction()).toBe(0);
  await sql`DELETE FROM snapshot_items WHERE id = 2000; INSERT INTO snapshot_items VALUES (1203)`.execute(t.db);
});

test('the transaction ends when the list is given up, when a read of it fails, when the answer has no list and when its head fails', async () => {
  const given = await readInSnapshot(t.db, async (read) => read.list(items, (rows) => rows));
  await given.next();
  expect(await inTransaction()).toBe(1);
  await given.close();
  expect(await inTransaction()).toBe(0);

  const failing = await readInSnapshot(t.db, async (read) =>
    read.list<{ id: number }, number>(sql`SELECT 1 / (i - 700) AS id FROM generate_series(1, 1203) AS i`, (rows) => rows.map((r) => r.id)),
  );
  await failing.next();
  await expect(failing.next()).rejects.toThrow('division by zero');
  expect(await inTransaction()).toBe(0);

  expect(await readInSnapshot(t.db, async (read) => (await count.execute(read.trx)).rows[0]!.n)).toBe(1203);
  expect(await inTransaction()).toBe(0);

  await expect(
    readInSnapshot(t.db, async (read) => {
      await count.execute(read.trx);
      throw new Error('no such rollout');
    }),
  ).rejects.toThrow('no such rollout');
  expect(await inTransaction()).toBe(0);
  // Every connection is back in the pool.
  expect(t.pool.idleCount).toBe(t.pool.totalCount);
});

test('an answer has one list, and its transaction writes nothing', async () => {
  await expect(
    readInSnapshot(t.db, async (read) => {
      read.list(items, (rows) => rows);
      return read.list(items, (rows) => rows);
    }),
  ).rejects.toThrow('an answer read in a snapshot has one list');
  await expect(readInSnapshot(t.db, (read) => sql`INSERT INTO snapshot_items VALUES (5000)`.execute(read.trx))).rejects.toThrow(/read-only transaction/);
  expect(await inTransaction()).toBe(0);
});
