import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { deferredScript, fewerRoundTrips, together, withCommit } from './round-trips.ts';

interface Items {
  rt_items: { id: string; n: number };
}

let t: TestDatabase;
let client: pg.Client;
/** What reached the server, one entry per round trip. */
let sent: string[];
let db: Kysely<Items>;

beforeAll(async () => {
  t = await createTestDatabase();
  await sql`CREATE TABLE rt_items (id text PRIMARY KEY, n integer NOT NULL CHECK (n >= 0))`.execute(t.db);
  client = new pg.Client({ connectionString: t.url });
  await client.connect();
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (text: unknown, ...rest: unknown[]) => {
    sent.push(typeof text === 'string' ? text : (text as { text: string }).text);
    return query(text, ...rest);
  };
  fewerRoundTrips(client as unknown as pg.PoolClient);
  // One connection, as a transaction has.
  const pool = { connect: async () => Object.assign(client, { release: () => {} }), end: async () => {} };
  db = new Kysely<Items>({ dialect: new PostgresDialect({ pool: pool as unknown as pg.Pool }) });
});
beforeEach(async () => {
  await sql`DELETE FROM rt_items`.execute(t.db);
  sent = [];
});
afterAll(async () => {
  await client.end();
  await t.drop();
});

const items = async () => (await sql<{ id: string; n: number }>`SELECT id, n FROM rt_items ORDER BY id`.execute(t.db)).rows;
const insert = (id: string, n: number) => db.insertInto('rt_items').values({ id, n });
/** Each round trip's statements, whitespace collapsed. */
const statements = (roundTrip: string) => roundTrip.split(';\n').map((s) => s.replace(/\s+/g, ' ').trim());
const starting = (...texts: string[]) => texts.map((text) => expect.stringMatching(new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`)));

test("a transaction's BEGIN goes with its first script of reads, and its deferred writes with its COMMIT", async () => {
  await insert('a', 1).execute();
  sent = [];
  const read = await db.transaction().execute(async (trx) => {
    const [all, one] = await together<[{ id: string }, { n: number }]>(trx, [
      trx.selectFrom('rt_items').select('id').forUpdate(),
      trx.selectFrom('rt_items').select('n').where('id', '=', 'a'),
    ]);
    await deferredScript([insert('b', 2), trx.updateTable('rt_items').set({ n: 5 }).where('id', '=', 'a')]).execute(trx);
    return { all, one };
  });
  expect(read).toEqual({ all: [{ id: 'a' }], one: [{ n: 1 }] });
  expect(sent.map(statements)).toEqual([
    starting('BEGIN', '/* together */ select "id" from "rt_items" for update', `select "n" from "rt_items" where "id" = 'a'`),
    starting(`/* deferred */ insert into "rt_items" ("id", "n") values ('b', 2)`, `update "rt_items" set "n" = 5 where "id" = 'a'`, 'commit'),
  ]);
  expect(await items()).toEqual([
    { id: 'a', n: 5 },
    { id: 'b', n: 2 },
  ]);
});

test('deferred writes reach the server before any later statement of the transaction, in the order issued', async () => {
  const counted = await db.transaction().execute(async (trx) => {
    await deferredScript([insert('a', 1)]).execute(trx);
    await deferredScript([trx.updateTable('rt_items').set({ n: 2 }).where('id', '=', 'a')]).execute(trx);
    return trx.selectFrom('rt_items').select('n').where('id', '=', 'a').executeTakeFirst();
  });
  expect(counted).toEqual({ n: 2 });
  expect(sent.map(statements)).toEqual([
    starting('BEGIN', '/* deferred */ insert into "rt_items"', '/* deferred */ update "rt_items" set "n" = 2'),
    starting('select "n" from "rt_items" where "id" = $1'),
    starting('commit'),
  ]);
});

test('a deferred write that fails fails the commit: nothing of the transaction is kept, and the connection goes on', async () => {
  await expect(
    db.transaction().execute(async (trx) => {
      await trx.insertInto('rt_items').values({ id: 'a', n: 1 }).execute(); // with parameters: BEGIN goes just before it
      await deferredScript([insert('b', -1)]).execute(trx);
    }),
  ).rejects.toThrow(/rt_items_n_check/);
  expect(sent.map(statements).at(-1)).toEqual(['rollback']);
  expect(await items()).toEqual([]);
  sent = [];
  await db.transaction().execute((trx) => deferredScript([insert('c', 3)]).execute(trx));
  expect(sent.map(statements)).toEqual([starting('BEGIN', '/* deferred */ insert into "rt_items"', 'commit')]);
  expect(await items()).toEqual([{ id: 'c', n: 3 }]);
});

test('a transaction given up is rolled back without its deferred writes; one that sent nothing sends nothing', async () => {
  await expect(
    db.transaction().execute(async (trx) => {
      await trx.selectFrom('rt_items').selectAll().execute();
      await deferredScript([insert('a', 1)]).execute(trx);
      throw new Error('given up');
    }),
  ).rejects.toThrow('given up');
  expect(sent.map(statements)).toEqual([['BEGIN'], ['select * from "rt_items"'], ['rollback']]);
  sent = [];
  await db.transaction().execute(async () => {});
  await expect(db.transaction().execute(async () => Promise.reject(new Error('nothing sent')))).rejects.toThrow('nothing sent');
  expect(sent).toEqual([]);
  expect(await items()).toEqual([]);
});

test('outside a transaction a deferred script runs at once, and a script of reads answers each read', async () => {
  await deferredScript([insert('a', 1), insert('b', 2)]).execute(db);
  expect(await items()).toHaveLength(2);
  const [a, b] = await together<[{ n: number }, { n: number }]>(db, [
    db.selectFrom('rt_items').select('n').where('id', '=', 'a'),
    db.selectFrom('rt_items').select('n').where('id', '=', "b' OR true --"),
  ]);
  expect([a, b]).toEqual([[{ n: 1 }], []]);
  expect(sent).toHaveLength(2);
});

describe('withCommit', () => {
  const returning = (id: string, n: number) => insert(id, n).returning(['id', 'n']);

  test('in a transaction it goes with the commit, and its rows arrive with the commit', async () => {
    let rows: Promise<{ id: string; n: number }[]> | undefined;
    await db.transaction().execute(async (trx) => {
      await together(trx, [trx.selectFrom('rt_items').select('id').forUpdate()]);
      ({ rows } = await withCommit(trx, returning('a', 1)));
      await deferredScript([trx.updateTable('rt_items').set({ n: 2 }).where('id', '=', 'a')]).execute(trx);
    });
    expect(await rows).toEqual([{ id: 'a', n: 1 }]);
    expect(sent.map(statements)).toEqual([
      starting('BEGIN', '/* together */ select "id" from "rt_items" for update'),
      starting(`/* with commit`, `/* deferred */ update "rt_items" set "n" = 2`, 'commit'),
    ]);
    expect(await items()).toEqual([{ id: 'a', n: 2 }]);
  });

  test('it goes first: before it, what waits is sent; a later statement, or a second one, takes it along', async () => {
    const answers = await db.transaction().execute(async (trx) => {
      await deferredScript([insert('a', 1)]).execute(trx);
      const first = await withCommit(trx, returning('b', 2));
      const second = await withCommit(trx, returning('c', 3));
      const read = await trx.selectFrom('rt_items').select('id').orderBy('id').execute();
      return { first: await first.rows, second: await second.rows, read };
    });
    expect(answers).toEqual({ first: [{ id: 'b', n: 2 }], second: [{ id: 'c', n: 3 }], read: [{ id: 'a' }, { id: 'b' }, { id: 'c' }] });
    expect(sent.map(statements)).toEqual([
      starting('BEGIN', '/* deferred */ insert into "rt_items"'),
      starting('/* with commit'),
      starting('/* with commit'),
      starting('select "id" from "rt_items"'),
      starting('commit'),
    ]);
  });

  test('one that fails fails the commit and its rows; one given up with its transaction is never sent', async () => {
    let failed: Promise<unknown> | undefined;
    await expect(
      db.transaction().execute(async (trx) => {
        ({ rows: failed } = await withCommit(trx, returning('a', -1)));
      }),
    ).rejects.toThrow(/rt_items_n_check/);
    await expect(failed).rejects.toThrow(/rt_items_n_check/);
    expect(sent.map(statements).at(-1)).toEqual(['rollback']);
    sent = [];
    let dropped: Promise<unknown> | undefined;
    await expect(
      db.transaction().execute(async (trx) => {
        ({ rows: dropped } = await withCommit(trx, returning('b', 2)));
        throw new Error('given up');
      }),
    ).rejects.toThrow('given up');
    await expect(dropped).rejects.toThrow(/rolled back/);
    expect(sent).toEqual([]);
    expect(await items()).toEqual([]);
  });

  test('outside a transaction it runs at once', async () => {
    const { rows } = await withCommit(db, returning('a', 1));
    expect(await rows).toEqual([{ id: 'a', n: 1 }]);
    expect(sent.map(statements)).toEqual([starting('/* with commit')]);
  });
});
