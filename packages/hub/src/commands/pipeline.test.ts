import { fail, ok } from '@fleetplane/core';
import { Kysely, sql } from 'kysely';
import pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { createTestDatabase, type TestDatabase, waitingForLocks } from '../../../../test/support/database.ts';
import { plannedDialect } from '../database/dialect.ts';
import { Prepared } from '../database/transaction-plan.ts';
import { startBoss } from '../jobs/boss.ts';
import { foreignEvent, foreignProjection } from '../../../../test/support/foreign-events.ts';
import type { Tables } from '../database/tables.ts';
import { createPipeline, runCommand, type Command, type Decision, type PipelineDeps } from './pipeline.ts';

// A projection of its own, so the pipeline is shown writing read rows without any product table.
const counters = foreignProjection({
  name: 'test_counters',
  handles: ['Counted'],
  evolve: (e, db) => [
    (db as any).insertInto('test_counters').values({ counter_id: e.streamId, total: e.data.by })
      .onConflict((oc: any) => oc.column('counter_id').doUpdateSet({ total: sql`test_counters.total + excluded.total` })),
  ],
});

let t: TestDatabase;
let boss: PgBoss;
let deps: PipelineDeps;
const now = new Date('2026-11-30T12:00:00.000Z');
const actor = { principal: 'alice', role: 'operator' as const, source: 'api' as const, correlationId: 'corr-1' };

beforeAll(async () => {
  t = await createTestDatabase();
  await sql`CREATE TABLE test_counters (counter_id text PRIMARY KEY, total integer NOT NULL)`.execute(t.db);
  // Counter c-doomed never commits: a deferred constraint trigger fails at COMMIT, after append, projection
  // and enqueue have all run.
  await sql`CREATE FUNCTION fail_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN IF NEW.counter_id = 'c-doomed' THEN RAISE EXCEPTION 'injected fault'; END IF; RETURN NULL; END $$`.execute(t.db);
  await sql`CREATE CONSTRAINT TRIGGER fail_at_commit AFTER INSERT ON test_counters
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION fail_at_commit()`.execute(t.db);
  boss = await startBoss(t.url, [{ name: 'counted' }], { error: (e) => { throw e; }, warning: () => {} });
  deps = { db: t.db, boss, clock: { now: () => now }, projections: [counters] };
});
afterAll(async () => {
  await boss.stop({ graceful: false });
  await t.drop();
});

const count = (id: string, by = 1): Command<null, string> => ({
  name: 'Count',
  load: async () => null,
  decide: () =>
    ok({
      events: [foreignEvent(id, 'Counted', { by })],
      jobs: [{ queue: 'counted', data: { id } }],
      result: id,
    }),
});

const rows = async (id: string) => ({
  events: Number((await sql<{ n: string }>`SELECT count(*) n FROM events WHERE stream_id = ${id}`.execute(t.db)).rows[0]!.n),
  projection: (await sql`SELECT * FROM test_counters WHERE counter_id = ${id}`.execute(t.db)).rows.length,
  jobs: Number((await sql<{ n: string }>`SELECT count(*) n FROM pgboss.job WHERE data->>'id' = ${id}`.execute(t.db)).rows[0]!.n),
});

test('a command appends its events with metadata, projects them and enqueues its jobs in one commit', async () => {
  const r = await runCommand(deps, actor, count('c-1', 3));
  expect(r.ok).toBe(true);
  expect(await rows('c-1')).toEqual({ events: 1, projection: 1, jobs: 1 });
  const { rows: [event] } = await sql<{ metadata: object; recorded_at: Date }>`
    SELECT metadata, recorded_at FROM event_history WHERE stream_id = 'c-1'`.execute(t.db);
  expect(event!.metadata).toEqual({ actor: 'alice', role: 'operator', correlation_id: 'corr-1', causation_id: null, source: 'api' });
  expect(event!.recorded_at).toEqual(now);
});

test('a command\'s jobs are enqueued with one INSERT per queue, keeping each job\'s options and correlation id', async () => {
  const statements: string[] = [];
  const db = new Kysely<Tables>({ dialect: plannedDialect(t.pool, () => {}), log: (e) => void statements.push(e.query.sql) });
  const later = new Date('2026-12-01T00:00:00.000Z');
  const fanOut: Command<null, null> = {
    name: 'FanOut',
    load: async () => null,
    decide: () =>
      ok({
        events: [foreignEvent('j-fan', 'Counted', { by: 1 })],
        jobs: [
          { queue: 'counted', data: { id: 'j-1' } },
          { queue: 'counted', data: { id: 'j-2' }, options: { startAfter: later, singletonKey: 'j-2' } },
          { queue: 'counted', data: { id: 'j-3' } },
        ],
        result: null,
      }),
  };
  expect((await runCommand({ ...deps, db }, actor, fanOut)).ok).toBe(true);
  expect(statements.filter((q) => /INSERT INTO pgboss\./i.test(q))).toHaveLength(1);
  const { rows: jobs } = await sql<{ id: string; corr: string; start_after: Date; singleton_key: string | null }>`
    SELECT data->>'id' AS id, data->>'correlation_id' AS corr, start_after, singleton_key
      FROM pgboss.job WHERE data->>'id' LIKE 'j-%' ORDER BY data->>'id'`.execute(t.db);
  expect(jobs.map((j) => [j.id, j.corr, j.singleton_key])).toEqual([
    ['j-1', 'corr-1', null],
    ['j-2', 'corr-1', 'j-2'],
    ['j-3', 'corr-1', null],
  ]);
  expect(jobs[1]!.start_after).toEqual(later);
});

test('A6 a fault after append and before commit leaves no event, no projection row and no job', async () => {
  await expect(runCommand(deps, actor, count('c-doomed'))).rejects.toThrow(/injected fault/);
  expect(await rows('c-doomed')).toEqual({ events: 0, projection: 0, jobs: 0 });
});

test('J1 a command\'s time is read once its state is locked: a wait on a lock never dates its events earlier', async () => {
  await sql`INSERT INTO test_counters VALUES ('c-waits', 0)`.execute(t.db);
  const holder = await t.pool.connect();
  let time = now;
  const decidedAt: Date[] = [];
  const waits: Command<null, null> = {
    name: 'Waits',
    load: async (trx) => {
      await sql`SELECT 1 FROM test_counters WHERE counter_id = 'c-waits' FOR UPDATE`.execute(trx);
      return null;
    },
    decide: (_, at) => {
      decidedAt.push(at);
      return ok({ events: [foreignEvent('c-waits', 'Counted', { by: 1 })], result: null });
    },
  };
  try {
    await holder.query('BEGIN');
    await holder.query("SELECT 1 FROM test_counters WHERE counter_id = 'c-waits' FOR UPDATE");
    const running = runCommand({ ...deps, clock: { now: () => time } }, actor, waits);
    // The command's load waits on the held row; meanwhile time passes.
    await waitingForLocks(t.db);
    time = new Date(now.getTime() + 2_000);
    await holder.query('COMMIT');
    expect((await running).ok).toBe(true);
  } finally {
    holder.release();
  }
  expect(decidedAt).toEqual([time]);
  const { rows: [event] } = await sql<{ recorded_at: Date }>`SELECT recorded_at FROM events WHERE stream_id = 'c-waits'`.execute(t.db);
  expect(event!.recorded_at).toEqual(time);
});

test('new events appended with the commit are answered with their places: position, stream version and id as stored', async () => {
  const first = await runCommand(deps, actor, count('c-placed'));
  const second = await runCommand(deps, actor, count('c-placed'));
  const { rows } = await sql<{ position: string; stream_version: string; event_id: string }>`
    SELECT position, stream_version, event_id FROM events WHERE stream_id = 'c-placed' ORDER BY position`.execute(t.db);
  expect([first, second].map((o) => o.ok && o.value.events.map((e) => ({ position: e.position, streamVersion: e.streamVersion, eventId: e.eventId })))).toEqual(
    rows.map((r) => [{ position: Number(r.position), streamVersion: Number(r.stream_version), eventId: r.event_id }]),
  );
  expect(rows.map((r) => Number(r.stream_version))).toEqual([1, 2]);
});

test('a concurrent writer creating the stream a new event wanted fails the commit, and the command runs again after it', async () => {
  const holder = await t.pool.connect();
  const reruns: unknown[] = [];
  try {
    await holder.query('BEGIN');
    // A writer of its own (through the store's function), so nothing of the Hub's makes it wait.
    await holder.query(`SELECT * FROM append_events('c-raced', 0, jsonb_build_array(jsonb_build_object('event_id', gen_random_uuid(),
      'type', 'Counted', 'schema_version', 1, 'data', '{"by": 5}'::jsonb, 'metadata', '{"actor": "raw"}'::jsonb, 'recorded_at', now())))`);
    const running = runCommand({ ...deps, onRerun: (...r) => reruns.push(r) }, actor, count('c-raced'));
    // Its append, sent with its commit, waits on the stream's head the holder created.
    await waitingForLocks(t.db);
    await holder.query('COMMIT');
    expect((await running).ok).toBe(true);
  } finally {
    holder.release();
  }
  expect(reruns).toEqual([['Count', 'stream_moved', false]]);
  const { rows: versions } = await sql<{ stream_version: string }>`SELECT stream_version FROM events WHERE stream_id = 'c-raced' ORDER BY 1`.execute(t.db);
  expect(versions.map((r) => Number(r.stream_version))).toEqual([1, 2]);
  expect(await rows('c-raced')).toEqual({ events: 2, projection: 1, jobs: 1 });
});

test('a domain error from decide commits nothing', async () => {
  const refused: Command<null, never> = { name: 'Refused', load: async () => null, decide: () => fail('nope', 'refused') };
  expect(await runCommand(deps, actor, refused)).toEqual({ ok: false, error: { code: 'nope', message: 'refused' } });
});

test.each([
  ['serialization_failure', 'serialization_failure'],
  ['deadlock_detected', 'deadlock'],
] as const)('a %s re-runs the whole command, which then commits once and says why it ran again', async (errcode, reason) => {
  const id = `c-${reason}`;
  // Two failed attempts, counted by a sequence, which a rolled-back attempt cannot undo.
  await sql.raw(`CREATE SEQUENCE "tries_${reason}"`).execute(t.db);
  await sql.raw(`CREATE FUNCTION "fail_${reason}"() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.counter_id = '${id}' AND nextval('"tries_${reason}"') <= 2 THEN
        RAISE EXCEPTION 'injected ${reason}' USING ERRCODE = '${errcode}';
      END IF;
      RETURN NEW;
    END $$`).execute(t.db);
  await sql.raw(`CREATE TRIGGER "fail_${reason}" BEFORE INSERT ON test_counters FOR EACH ROW EXECUTE FUNCTION "fail_${reason}"()`).execute(t.db);
  const reruns: unknown[][] = [];
  const r = await runCommand({ ...deps, onRerun: (...args) => void reruns.push(args) }, actor, count(id, 5));
  expect(r.ok).toBe(true);
  expect(await rows(id)).toEqual({ events: 1, projection: 1, jobs: 1 });
  expect(Number((await sql.raw<{ v: string }>(`SELECT last_value v FROM "tries_${reason}"`).execute(t.db)).rows[0]!.v)).toBe(3);
  expect(reruns).toEqual([
    ['Count', reason, false],
    ['Count', reason, false],
  ]);
});

test('concurrent commands on one stream are serialized by the version check and all land', async () => {
  const results = await Promise.all(Array.from({ length: 8 }, () => runCommand(deps, actor, count('c-busy'))));
  expect(results.every((r) => r.ok)).toBe(true);
  const { rows: versions } = await sql<{ stream_version: number }>`
    SELECT stream_version FROM events WHERE stream_id = 'c-busy' ORDER BY stream_version`.execute(t.db);
  expect(versions.map((v) => Number(v.stream_version))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  expect((await sql<{ total: number }>`SELECT total FROM test_counters WHERE counter_id = 'c-busy'`.execute(t.db)).rows[0]!.total).toBe(8);
});

describe('group commit', () => {
  test('commands arriving while the lanes are busy share transactions, and every one of them lands', async () => {
    const pipeline = createPipeline(deps, { lanes: 1, maxBatch: 16 });
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => pipeline.run(actor, count(`g-busy-${i}`))));
    expect(results.every((r) => r.ok)).toBe(true);
    const { rows } = await sql<{ events: string; transactions: string }>`
      SELECT count(*) AS events, count(DISTINCT tx_id) AS transactions FROM events WHERE stream_id LIKE 'g-busy-%'`.execute(t.db);
    expect(Number(rows[0]!.events)).toBe(40);
    // All forty arrived in one turn of the event loop: the idle lane started at its end and took them in
    // transactions of at most 16, none alone.
    expect(Number(rows[0]!.transactions)).toBe(3);
    expect(Number((await sql<{ n: string }>`SELECT count(*) n FROM pgboss.job WHERE data->>'id' LIKE 'g-busy-%'`.execute(t.db)).rows[0]!.n)).toBe(40);
  });

  test('a command arriving in a later turn starts the second lane: it does not wait for the first lane\'s transaction', async () => {
    const pipeline = createPipeline(deps, { lanes: 2 });
    const { promise: released, resolve: release } = Promise.withResolvers<void>();
    const held: Command<null, string> = { ...count('g-held'), load: async () => { await released; return null; } };
    const first = pipeline.run(actor, held);
    await new Promise((resolve) => setImmediate(resolve));
    // The first lane waits inside g-held's load; with one lane, g-later would wait behind it for ever.
    expect((await pipeline.run(actor, count('g-later'))).ok).toBe(true);
    expect(await rows('g-held')).toEqual({ events: 0, projection: 0, jobs: 0 });
    release();
    expect((await first).ok).toBe(true);
    expect(await rows('g-held')).toEqual({ events: 1, projection: 1, jobs: 1 });
  });

  test('a later command in a shared transaction sees the effects of the earlier ones', async () => {
    const pipeline = createPipeline(deps, { lanes: 1 });
    const results = await Promise.all(Array.from({ length: 10 }, () => pipeline.run(actor, count('g-shared', 2))));
    expect(results.every((r) => r.ok)).toBe(true);
    expect((await sql<{ total: number }>`SELECT total FROM test_counters WHERE counter_id = 'g-shared'`.execute(t.db)).rows[0]!.total).toBe(20);
  });

  test('one failing command fails alone: the others of its shared transaction still commit', async () => {
    const reruns: unknown[][] = [];
    const pipeline = createPipeline({ ...deps, onRerun: (...args) => void reruns.push(args) }, { lanes: 1 });
    const outcomes = await Promise.allSettled([
      pipeline.run(actor, count('h-before')),
      pipeline.run(actor, count('h-1')),
      pipeline.run(actor, count('c-doomed')), // fails at commit
      pipeline.run(actor, count('h-2')),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(await rows('h-1')).toEqual({ events: 1, projection: 1, jobs: 1 });
    expect(await rows('h-2')).toEqual({ events: 1, projection: 1, jobs: 1 });
    expect(await rows('c-doomed')).toEqual({ events: 0, projection: 0, jobs: 0 });
    // All four arrived in one turn and shared the failed transaction; each ran again alone, and the doomed one
    // then failed for good.
    expect(reruns).toEqual([
      ['Count', 'error', true],
      ['Count', 'error', true],
      ['Count', 'error', true],
      ['Count', 'error', true],
    ]);
  });
  test('a shared transaction locks its commands\' nodes first, in id order: a transaction locking them in that order never deadlocks with it', async () => {
    // Two nodes, written here directly: the pipeline knows nothing of registration.
    await sql`INSERT INTO nodes (node_id, boot_id, last_seen_at, registered_at, updated_at)
      VALUES ('lock-a', 'b1', now(), now(), now()), ('lock-b', 'b1', now(), now(), now())`.execute(t.db);
    const touch = (nodeId: string): Command<null, string> => ({
      name: 'Touch',
      locksNode: nodeId,
      load: async (trx) => {
        await sql`SELECT node_id FROM nodes WHERE node_id = ${nodeId} FOR UPDATE`.execute(trx);
        return null;
      },
      decide: () => ok({ events: [], result: nodeId }),
    });
    const waitFor = (key: number): Command<null, null> => ({
      name: 'Wait',
      load: async (trx) => {
        await sql`SELECT pg_advisory_xact_lock_shared(${key})`.execute(trx);
        return null;
      },
      decide: () => ok({ events: [], result: null }),
    });
    const reruns: unknown[][] = [];
    const pipeline = createPipeline({ ...deps, onRerun: (...args) => void reruns.push(args) }, { lanes: 1 });
    const other = new pg.Client({ connectionString: t.url });
    await other.connect();
    try {
      // The lane's first command waits for a lock the other session holds; the next two queue behind it, b before a.
      await other.query('SELECT pg_advisory_lock(7261)');
      const first = pipeline.run(actor, waitFor(7261));
      await waitingForLocks(t.db, 1);
      const shared = Promise.all([pipeline.run(actor, touch('lock-b')), pipeline.run(actor, touch('lock-a'))]);
      // The other transaction locks a, lets the first command through, then waits for the batch to wait on a.
      await other.query('BEGIN');
      await other.query(`SELECT node_id FROM nodes WHERE node_id = 'lock-a' FOR UPDATE`);
      await other.query('SELECT pg_advisory_unlock(7261)');
      expect((await first).ok).toBe(true);
      await waitingForLocks(t.db, 1);
      // In arrival order the batch would hold b here, and this would deadlock; locked in id order, b is free.
      await other.query(`SELECT node_id FROM nodes WHERE node_id = 'lock-b' FOR UPDATE`);
      await other.query('COMMIT');
      expect((await shared).map((r) => r.ok && r.value.result)).toEqual(['lock-b', 'lock-a']);
      expect(reruns).toEqual([]);
    } finally {
      await other.end();
      // Rows no event wrote: the log would not verify with them.
      await sql`DELETE FROM nodes WHERE node_id IN ('lock-a', 'lock-b')`.execute(t.db);
    }
  });
});

describe('commands without a load', () => {
  // An audit record: decided on nothing, appended at any version, handled by no projection.
  const note = (id: string, i: number, extra: Partial<Decision<number>> = {}): Command<undefined, number> => ({
    name: 'Note',
    decide: () => ok({ events: [foreignEvent(id, 'Noted', { i })], result: i, ...extra }),
  });
  /** The pipeline on a Kysely that records every statement it sends: a prepared one by its name. */
  const recorded = () => {
    const statements: string[] = [];
    const db = new Kysely<Tables>({ dialect: plannedDialect(t.pool, () => {}), log: (e) => void statements.push(e.query instanceof Prepared ? e.query.name : e.query.sql) });
    return { statements, deps: { ...deps, db } };
  };
  const appended = async (id: string) =>
    (await sql<{ i: number; v: string; tx: string }>`
      SELECT (data->>'i')::int AS i, stream_version AS v, tx_id::text AS tx FROM events WHERE stream_id = ${id} ORDER BY position`.execute(t.db)).rows;

  test('one such command is one statement: its append, without BEGIN or COMMIT', async () => {
    const { statements, deps: logged } = recorded();
    const r = await runCommand(logged, actor, note('n-alone', 1));
    expect(r.ok && r.value.events.map((e) => e.streamVersion)).toEqual([1]);
    expect(statements).toEqual(['append_new']);
    expect(await appended('n-alone')).toEqual([{ i: 1, v: 1, tx: expect.any(String) }]);
  });

  test('queued ones share one append statement, and their events keep arrival order on a shared stream', async () => {
    const { statements, deps: logged } = recorded();
    const pipeline = createPipeline(logged, { lanes: 4 });
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => pipeline.run(actor, note('n-shared', i))));
    expect(results.map((r) => r.ok && r.value.result)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // One lane: the ten arrived in one turn and were appended by one statement. They share the stream, so
    // each chains on the one before.
    expect(statements).toEqual(['append_streams']);
    const rows = await appended('n-shared');
    expect(rows.map((r) => [r.i, Number(r.v)])).toEqual(Array.from({ length: 10 }, (_, i) => [i, i + 1]));
    expect(new Set(rows.map((r) => r.tx)).size).toBe(1);
  });

  test('one that a projection handles, or that asks for a job, runs in a transaction with its projection and job', async () => {
    const counted: Command<undefined, string> = { name: 'Count', decide: () => count('n-projected').decide(null, now) };
    expect((await runCommand(deps, actor, counted)).ok).toBe(true);
    expect(await rows('n-projected')).toEqual({ events: 1, projection: 1, jobs: 1 });
    // Written by one transaction: the event's transaction id is its projected row's and its job's xmin (a test
    // cluster is far from its first xid wraparound, so the two read the same).
    const { rows: [written] } = await sql<{ event: string; projected: string; job: string }>`SELECT
      (SELECT tx_id::text FROM events WHERE stream_id = 'n-projected') AS event,
      (SELECT xmin::text FROM test_counters WHERE counter_id = 'n-projected') AS projected,
      (SELECT xmin::text FROM pgboss.job WHERE data->>'id' = 'n-projected') AS job`.execute(t.db);
    expect([written!.projected, written!.job]).toEqual([written!.event, written!.event]);
  });

  test('one with an expected version runs in a transaction: a refused append never leaves its batch-mates half-written', async () => {
    const pipeline = createPipeline(deps);
    // The first alone creates n-first; then three sent together share a transaction, which fails because the
    // second of them expects n-first to be new; each then runs alone, the n-third ones land once each, the
    // second is refused.
    expect((await pipeline.run(actor, note('n-first', 0, { expectedVersions: { 'n-first': 0 } }))).ok).toBe(true);
    const outcomes = await Promise.allSettled([
      pipeline.run(actor, note('n-third', 1)),
      pipeline.run(actor, note('n-first', 2, { expectedVersions: { 'n-first': 0 } })),
      pipeline.run(actor, note('n-third', 3)),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await appended('n-first')).map((r) => r.i)).toEqual([0]);
    // Once each; run alone again after the shared transaction failed, they commit in either order.
    expect((await appended('n-third')).map((r) => r.i).sort()).toEqual([1, 3]);
  });
});

describe('bulk commands', () => {
  const loads: string[][] = [];
  const loadMany = async (_trx: unknown, keys: readonly string[]) => {
    loads.push([...keys]);
    return new Map(keys.map((k) => [k, null]));
  };
  const tally = (id: string): Command<null, string> => ({ ...count(id), bulk: { kind: 'tally', key: id, loadMany } });

  test('queued bulk commands of one kind load with one loadMany; a repeated key waits for a load of its own', async () => {
    loads.length = 0;
    const pipeline = createPipeline(deps, { lanes: 1 });
    const ids = ['k-0', 'k-1', 'k-2', 'k-1', 'k-3'];
    const results = await Promise.all(ids.map((id) => pipeline.run(actor, tally(id))));
    expect(results.every((r) => r.ok)).toBe(true);
    // The five arrived in one turn and shared one transaction: [k-0, k-1, k-2] loaded together, then the
    // repeated k-1 and the k-3 after it.
    expect(loads).toEqual([
      ['k-0', 'k-1', 'k-2'],
      ['k-1', 'k-3'],
    ]);
    expect(await rows('k-1')).toEqual({ events: 2, projection: 1, jobs: 2 });
  });

  test('other commands have lanes of their own: they never queue behind bulk commands', async () => {
    const pipeline = createPipeline(deps, { lanes: 1 });
    const bulk = Array.from({ length: 20 }, (_, i) => pipeline.run(actor, tally(`q-${i}`)));
    const other = pipeline.run(actor, count('q-other'));
    await Promise.all([...bulk, other]);
    const { rows } = await sql<{ stream_id: string; tx_id: string }>`SELECT stream_id, tx_id::text FROM events WHERE stream_id LIKE 'q-%'`.execute(t.db);
    const otherTx = rows.find((r) => r.stream_id === 'q-other')!.tx_id;
    expect(rows.filter((r) => r.tx_id === otherTx).map((r) => r.stream_id)).toEqual(['q-other']);
  });
});
