import { Kysely, sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { countingProxy, type CountingProxy } from '../../../../test/support/round-trips.ts';
import { connect, type Database } from './connect.ts';
import { createPipeline } from '../commands/pipeline.ts';
import { systemClock } from '../clock.ts';
import { BY_TEXT_LIMIT } from './connection.ts';
import { prepared, preparedByText, rowsWithCommit, together, withCommit, type Prepared } from './transaction-plan.ts';

interface Items {
  rt_items: { id: string; n: number };
}

// What each transaction sends, counted as it reaches the server (support/round-trips.ts).
let t: TestDatabase;
let proxy: CountingProxy;
let database: Database;
let db: Kysely<Items>;

beforeAll(async () => {
  t = await createTestDatabase();
  await sql`CREATE TABLE rt_items (id text PRIMARY KEY, n integer NOT NULL CHECK (n >= 0))`.execute(t.db);
  proxy = await countingProxy(t.url);
  database = connect(proxy.url, { max: 1 });
  db = database.db as unknown as Kysely<Items>;
});
beforeEach(async () => {
  await sql`DELETE FROM rt_items`.execute(t.db);
  proxy.roundTrips.length = 0;
});
afterAll(async () => {
  await database.close();
  await proxy.close();
  await t.drop();
});

const items = async () => (await sql<{ id: string; n: number }>`SELECT id, n FROM rt_items ORDER BY id`.execute(t.db)).rows;
const insert = (id: string, n: number) => db.insertInto('rt_items').values({ id, n });
const returning = (id: string, n: number) => insert(id, n).returning(['id', 'n']);

test("a transaction's BEGIN goes with its reads together, and its planned writes with its COMMIT: two round trips", async () => {
  await insert('a', 1).execute();
  proxy.roundTrips.length = 0;
  const read = await db.transaction().execute(async (trx) => {
    const [all, one] = await together<[{ id: string }, { n: number }]>(trx, [
      trx.selectFrom('rt_items').select('id').forUpdate(),
      trx.selectFrom('rt_items').select('n').where('id', '=', 'a'),
    ]);
    await withCommit(trx, [insert('b', 2), trx.updateTable('rt_items').set({ n: 5 }).where('id', '=', 'a')]);
    return { all, one };
  });
  expect(read).toEqual({ all: [{ id: 'a' }], one: [{ n: 1 }] });
  expect(proxy.roundTrips).toEqual(['simple', 'simple']);
  expect(await items()).toEqual([
    { id: 'a', n: 5 },
    { id: 'b', n: 2 },
  ]);
});

test('planned writes reach the server before any later statement of the transaction, in the order planned', async () => {
  const read = await db.transaction().execute(async (trx) => {
    await withCommit(trx, [insert('a', 1)]);
    await withCommit(trx, [trx.updateTable('rt_items').set({ n: 2 }).where('id', '=', 'a')]);
    return trx.selectFrom('rt_items').select('n').where('id', '=', 'a').executeTakeFirst();
  });
  expect(read).toEqual({ n: 2 });
  // BEGIN, the writes and the read, its parameter inlined; COMMIT.
  expect(proxy.roundTrips).toEqual(['simple', 'simple']);
});

test("a transaction's first statement carries its BEGIN; one whose parameter cannot be inlined (bytes) follows it, bound", async () => {
  const read = await db.transaction().execute((trx) => trx.selectFrom('rt_items').select('n').where('id', '=', 'a').executeTakeFirst());
  expect(read).toBeUndefined();
  // BEGIN and the read, its parameter inlined; COMMIT.
  expect(proxy.roundTrips).toEqual(['simple', 'simple']);
  proxy.roundTrips.length = 0;
  const bytes = await db.transaction().execute((trx) => sql<{ n: number }>`SELECT length(${Buffer.from([0, 1, 2])}::bytea) AS n`.execute(trx));
  expect(bytes.rows).toEqual([{ n: 3 }]);
  // BEGIN alone; the read, bound; COMMIT.
  expect(proxy.roundTrips).toEqual(['simple', 'extended', 'simple']);
});

test('a planned write that fails fails the commit: nothing of the transaction is kept, and the connection goes on', async () => {
  await expect(
    db.transaction().execute(async (trx) => {
      await trx.insertInto('rt_items').values({ id: 'a', n: 1 }).execute();
      await withCommit(trx, [insert('b', -1)]);
    }),
  ).rejects.toThrow(/rt_items_n_check/);
  expect(await items()).toEqual([]);
  proxy.roundTrips.length = 0;
  await db.transaction().execute((trx) => withCommit(trx, [insert('c', 3)]));
  expect(proxy.roundTrips).toEqual(['simple']);
  expect(await items()).toEqual([{ id: 'c', n: 3 }]);
});

test('a transaction given up is rolled back without its planned writes; one that sent nothing sends nothing', async () => {
  await expect(
    db.transaction().execute(async (trx) => {
      await trx.selectFrom('rt_items').selectAll().execute();
      await withCommit(trx, [insert('a', 1)]);
      throw new Error('given up');
    }),
  ).rejects.toThrow('given up');
  // BEGIN and the read; ROLLBACK.
  expect(proxy.roundTrips).toEqual(['simple', 'simple']);
  proxy.roundTrips.length = 0;
  await db.transaction().execute(async () => {});
  await expect(db.transaction().execute(async () => Promise.reject(new Error('nothing sent')))).rejects.toThrow('nothing sent');
  expect(proxy.roundTrips).toEqual([]);
  expect(await items()).toEqual([]);
});

test('outside a transaction planned writes run at once, and reads together answer each read in one round trip', async () => {
  await withCommit(db, [insert('a', 1), insert('b', 2)]);
  expect(await items()).toHaveLength(2);
  const [a, b] = await together<[{ n: number }, { n: number }]>(db, [
    db.selectFrom('rt_items').select('n').where('id', '=', 'a'),
    db.selectFrom('rt_items').select('n').where('id', '=', "b' OR true --"),
  ]);
  expect([a, b]).toEqual([[{ n: 1 }], []]);
  expect(proxy.roundTrips).toEqual(['simple', 'simple']);
});

test('isolation settings ride with the first statement too', async () => {
  const level = await db.transaction().setIsolationLevel('repeatable read').execute(async (trx) => {
    const level = sql<{ level: string }>`SELECT current_setting('transaction_isolation') AS level`;
    const [[row]] = await together<[{ level: string }]>(trx, [{ compile: () => level.compile(trx) }]);
    return row!.level;
  });
  expect(level).toBe('repeatable read');
  expect(proxy.roundTrips).toEqual(['simple', 'simple']);
});

describe('rowsWithCommit', () => {
  test('in a transaction it goes with the commit, and its rows arrive with the commit', async () => {
    let rows: Promise<{ id: string; n: number }[]> | undefined;
    await db.transaction().execute(async (trx) => {
      await together(trx, [trx.selectFrom('rt_items').select('id').forUpdate()]);
      ({ rows } = await rowsWithCommit(trx, returning('a', 1)));
      await withCommit(trx, [trx.updateTable('rt_items').set({ n: 2 }).where('id', '=', 'a')]);
    });
    expect(await rows).toEqual([{ id: 'a', n: 1 }]);
    expect(proxy.roundTrips).toEqual(['simple', 'simple']);
    expect(await items()).toEqual([{ id: 'a', n: 2 }]);
  });

  test('several wait in order, each answered with its own rows by the round trip that carried it', async () => {
    const answers = await db.transaction().execute(async (trx) => {
      await withCommit(trx, [insert('a', 1)]);
      const first = await rowsWithCommit(trx, returning('b', 2));
      const second = await rowsWithCommit(trx, returning('c', 3));
      const read = await together<[{ id: string }]>(trx, [trx.selectFrom('rt_items').select('id').orderBy('id')]);
      return { first: await first.rows, second: await second.rows, read };
    });
    expect(answers).toEqual({ first: [{ id: 'b', n: 2 }], second: [{ id: 'c', n: 3 }], read: [[{ id: 'a' }, { id: 'b' }, { id: 'c' }]] });
    // BEGIN, the writes, the two statements and the read in one script; COMMIT.
    expect(proxy.roundTrips).toEqual(['simple', 'simple']);
  });

  test('one that fails fails the commit and its rows; one given up with its transaction is never sent', async () => {
    let failed: Promise<unknown> | undefined;
    await expect(
      db.transaction().execute(async (trx) => {
        ({ rows: failed } = await rowsWithCommit(trx, returning('a', -1)));
      }),
    ).rejects.toThrow(/rt_items_n_check/);
    await expect(failed).rejects.toThrow(/rt_items_n_check/);
    proxy.roundTrips.length = 0;
    let dropped: Promise<unknown> | undefined;
    await expect(
      db.transaction().execute(async (trx) => {
        ({ rows: dropped } = await rowsWithCommit(trx, returning('b', 2)));
        throw new Error('given up');
      }),
    ).rejects.toThrow('given up');
    await expect(dropped).rejects.toThrow(/rolled back/);
    expect(proxy.roundTrips).toEqual([]);
    expect(await items()).toEqual([]);
  });

  test('outside a transaction it runs at once', async () => {
    const { rows } = await rowsWithCommit(db, returning('a', 1));
    expect(await rows).toEqual([{ id: 'a', n: 1 }]);
    expect(proxy.roundTrips).toEqual(['simple']);
  });
});

describe('prepared statements', () => {
  const byId = (id: string) => prepared('rt_by_id', db.selectFrom('rt_items').select('n').where('id', '=', id));
  const statements = async () =>
    (await sql<{ name: string; runs: number }>`SELECT name, (generic_plans + custom_plans)::int AS runs FROM pg_prepared_statements ORDER BY name`.execute(db)).rows;
  const backend = async () => (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db)).rows[0]!.pid;

  // Each test on a pool of one connection of its own, which has prepared nothing.
  let own: Database;
  let db: Kysely<Items>;
  let deallocated: number[];
  beforeEach(() => {
    deallocated = [];
    own = connect(proxy.url, { max: 1, onDeallocated: (count) => deallocated.push(count) });
    db = own.db as unknown as Kysely<Items>;
  });
  afterEach(() => own.close());

  test('one is prepared the first time a connection sends it, in a message of its own just before, then run by name: in reads together, with the commit and alone', async () => {
    await insert('a', 1).execute();
    proxy.roundTrips.length = 0;
    const bump = (trx: Kysely<Items>) => prepared('rt_bump', trx.updateTable('rt_items').set((eb) => ({ n: eb('n', '+', 1) })).where('id', '=', 'a'));
    const transaction = () =>
      db.transaction().execute(async (trx) => {
        const [first] = await together<[{ n: number }]>(trx, [byId('a')]);
        await withCommit(trx, [bump(trx)]);
        return first;
      });
    expect(await transaction()).toEqual([{ n: 1 }]);
    // The read's PREPARE, then BEGIN with the read; the update's PREPARE, then the update with COMMIT.
    expect(proxy.roundTrips).toEqual(['prepare', 'simple', 'prepare', 'simple']);
    proxy.roundTrips.length = 0;
    expect(await transaction()).toEqual([{ n: 2 }]);
    expect(proxy.roundTrips).toEqual(['simple', 'simple']);
    expect((await db.executeQuery(byId('a').compile())).rows).toEqual([{ n: 3 }]);
    const [again] = await together<[{ n: number }]>(db, [byId("a' OR true --")]);
    expect(again).toEqual([]);
    expect(await statements()).toEqual([
      { name: 'rt_bump', runs: 2 },
      { name: 'rt_by_id', runs: 4 },
    ]);
    // What the server keeps of each, and copies on every EXECUTE, is its PREPARE alone: never a script it came with.
    const texts = (await sql<{ name: string; statement: string }>`SELECT name, statement FROM pg_prepared_statements ORDER BY name`.execute(db)).rows;
    expect(texts).toEqual([
      { name: 'rt_bump', statement: `PREPARE rt_bump AS ${bump(db).compile().sql}` },
      { name: 'rt_by_id', statement: `PREPARE rt_by_id AS ${byId('a').compile().sql}` },
    ]);
  });

  test('a name stands for one text: another under it is refused before anything is sent', async () => {
    await together(db, [byId('a')]);
    proxy.roundTrips.length = 0;
    await expect(together(db, [prepared('rt_by_id', db.selectFrom('rt_items').select('id').where('n', '=', 1))])).rejects.toThrow(/rt_by_id was given another text/);
    expect(proxy.roundTrips).toEqual([]);
  });

  test('one planned with a transaction that is given up is prepared by the next that sends it', async () => {
    const bump = (trx: Kysely<Items>) => prepared('rt_insert', trx.insertInto('rt_items').values({ id: 'b', n: 2 }));
    await expect(
      db.transaction().execute(async (trx) => {
        await withCommit(trx, [bump(trx)]);
        throw new Error('given up');
      }),
    ).rejects.toThrow('given up');
    await db.transaction().execute((trx) => withCommit(trx, [bump(trx)]));
    expect(await items()).toEqual([{ id: 'b', n: 2 }]);
  });

  test('a script that cannot be spelled (bytes to inline) is never sent, and counts nothing as prepared', async () => {
    const bytes = { compile: () => sql`SELECT length(${Buffer.from([1, 2])}::bytea)`.compile(db) };
    await expect(together(db, [byId('a'), bytes])).rejects.toThrow(/cannot inline/);
    expect(await together(db, [byId('a')])).toEqual([[]]);
  });

  test('a script that fails after its statements were prepared keeps its connection and them; a PREPARE that fails closes it', async () => {
    const pid = await backend();
    await expect(together(db, [byId('a'), { compile: () => sql`SELECT 1/0`.compile(db) }])).rejects.toThrow(/division by zero/);
    expect(await backend()).toBe(pid);
    expect(await together(db, [byId('a')])).toEqual([[]]);
    expect((await statements()).map((s) => s.name)).toEqual(['rt_by_id']);
    // Refused by the server: what it holds of the message is unknown.
    await expect(together(db, [prepared('rt_nothing', { compile: () => sql`SELECT nothing FROM rt_items`.compile(db) })])).rejects.toThrow(/nothing/);
    expect(await backend()).not.toBe(pid);
    expect(await together(db, [byId('a')])).toEqual([[]]);
  });

  describe('named by their text', () => {
    // One text per bound: `n > k`, k written into the text.
    const above = (k: number) => preparedByText('rt_above', db.selectFrom('rt_items').select('id').where('n', '>', sql.lit(k)));
    const byText = async () => (await statements()).filter((s) => s.name.startsWith('rt_above_')).length;

    test('a session keeps the most recently used up to its bound: the message that prepares one more deallocates the oldest', async () => {
      await insert('a', 1).execute();
      expect(await together(db, [byId('a')])).toEqual([[{ n: 1 }]]);
      for (let k = 0; k < BY_TEXT_LIMIT; k++) await together(db, [above(k)]);
      expect(await byText()).toBe(BY_TEXT_LIMIT);
      expect(deallocated).toEqual([]);
      // The oldest used again is the newest; the next new one deallocates the oldest unused, k = 1.
      expect(await together(db, [above(0)])).toEqual([[{ id: 'a' }]]);
      const before = (await statements()).map((s) => s.name);
      proxy.roundTrips.length = 0;
      expect(await together(db, [above(BY_TEXT_LIMIT)])).toEqual([[]]);
      // The DEALLOCATE and the PREPARE, then the read.
      expect(proxy.roundTrips).toEqual(['prepare', 'simple']);
      const after = (await statements()).map((s) => s.name);
      const nameOf = (k: number) => (above(k).compile() as Prepared).name;
      expect(before.filter((n) => !after.includes(n))).toEqual([nameOf(1)]);
      expect(deallocated).toEqual([1]);
      expect(after.filter((n) => !before.includes(n))).toEqual([nameOf(BY_TEXT_LIMIT)]);
      expect(after).toContain('rt_by_id');
      // k = 1, deallocated, is prepared again when it comes back, and answers as before.
      expect(await together(db, [above(1)])).toEqual([[]]);
      expect(await together(db, [above(0), byId('a')])).toEqual([[{ id: 'a' }], [{ n: 1 }]]);
      expect(await byText()).toBe(BY_TEXT_LIMIT);
    });

    test('SPEC A6: a transaction given up with a DEALLOCATE planned closes its connection, and nothing of it is kept', async () => {
      for (let k = 0; k < BY_TEXT_LIMIT; k++) await together(db, [above(k)]);
      const pid = await backend();
      await expect(
        db.transaction().execute(async (trx) => {
          await withCommit(trx, [insert('b', 2), preparedByText('rt_above', trx.updateTable('rt_items').set({ n: 3 }).where('id', '=', 'b'))]);
          throw new Error('given up');
        }),
      ).rejects.toThrow('given up');
      expect(await items()).toEqual([]);
      // The oldest, whose DEALLOCATE was never sent, runs on the next connection as on any.
      expect(await backend()).not.toBe(pid);
      expect(await together(db, [above(0)])).toEqual([[]]);
    });
  });

  test('one whose table changed shape under it (a column added) closes its connection, and a command runs again on a new one', async () => {
    await insert('a', 1).execute();
    const everything = () => prepared('rt_everything', db.selectFrom('rt_items').selectAll().where('id', '=', 'a'));
    expect(await together(db, [everything()])).toEqual([[{ id: 'a', n: 1 }]]);
    await sql`ALTER TABLE rt_items ADD COLUMN note text`.execute(t.db);
    try {
      const reruns: string[] = [];
      const pipeline = createPipeline({ db: own.db, boss: null, clock: systemClock, projections: [], onRerun: (_, reason) => reruns.push(reason) });
      const outcome = await pipeline.run(
        { principal: 'test', role: 'system', source: 'cli', correlationId: 'c' },
        { name: 'ReadEverything', load: (trx) => together(trx, [everything()]), decide: (state) => ({ ok: true, value: { events: [], result: state } }) },
      );
      expect(outcome).toEqual({ ok: true, value: { result: [[{ id: 'a', n: 1, note: null }]], events: [] } });
      expect(reruns).toEqual(['statement_changed']);
    } finally {
      await sql`ALTER TABLE rt_items DROP COLUMN note`.execute(t.db);
    }
  });
});
