import { ok } from '@fleetplane/core';
import { sql } from 'kysely';
import type { PgBoss } from 'pg-boss';
import { foreignEvent } from '../../../../test/support/foreign-events.ts';
import { createTestDatabase, roundTripsOf, type TestDatabase, waitingForLocks } from '../../../../test/support/database.ts';
import { runCommand, type Actor, type Command } from '../commands/pipeline.ts';
import { jobStatements } from '../commands/job-inserts.ts';
import { allProjections } from '../projections/all.ts';
import { startBoss } from './boss.ts';
import { holdPassBarrier, passBarrier } from './pass-barrier.ts';

let t: TestDatabase;
let boss: PgBoss;
const QUEUE = 'barrier_test';
const actor: Actor = { principal: 'alice', role: 'operator', source: 'api', correlationId: 'c-1' };
const now = new Date('2026-11-30T12:00:00.000Z');

beforeAll(async () => {
  t = await createTestDatabase();
  boss = await startBoss(t.url, [{ name: QUEUE, options: { policy: 'stately' } }], {
    error: (e) => {
      throw e;
    },
    warning: () => {},
  });
});
afterAll(async () => {
  await boss.stop({ graceful: false });
  await t.drop();
});

/** A command that records a note and asks for the keyed pass. */
const asksForPass = (key: string): Command<undefined, null> => ({
  name: 'AsksForPass',
  load: async () => undefined,
  decide: () =>
    ok({
      events: [foreignEvent(`note-${key}`, 'Noted')],
      jobs: [{ queue: QUEUE, data: { key }, options: { singletonKey: key }, barrier: true }],
      result: null,
    }),
});

test('a command asking for a keyed pass holds its barrier from before its job insert until its commit, in the commit round trip', async () => {
  const command = asksForPass('k-1');
  // The plan: the barrier, then the job insert.
  const planned = await jobStatements(boss, t.db, [{ actor, command: command as Command<unknown, unknown> }], [command.decide(undefined, now)]);
  expect(planned.map((q) => q.compile().sql)).toEqual([expect.stringContaining('pg_advisory_xact_lock_shared('), expect.stringMatching(/INSERT INTO pgboss\./i)]);
  // Its load reads nothing and its append is of a new event: the whole transaction is the commit's round trip.
  const roundTrips = await roundTripsOf(t.url, async (db) => {
    const r = await runCommand({ db, boss, clock: { now: () => now }, projections: allProjections }, actor, command);
    expect(r.ok).toBe(true);
  });
  expect(roundTrips).toEqual(['simple']);
  const jobs = await sql<{ n: string }>`SELECT count(*) n FROM pgboss.job WHERE name = ${QUEUE} AND singleton_key = 'k-1'`.execute(t.db);
  expect(Number(jobs.rows[0]!.n)).toBe(1);
});

test('a pass waits at the barrier until every command holding it has committed', async () => {
  const command = await t.db.startTransaction().execute();
  let passed = false;
  try {
    await command.executeQuery(holdPassBarrier(command, QUEUE, 'k-2'));
    const pass = passBarrier(t.db, QUEUE, 'k-2').then(() => {
      passed = true;
    });
    await waitingForLocks(t.db);
    expect(passed).toBe(false);
    await command.commit().execute();
    await pass;
    expect(passed).toBe(true);
  } finally {
    if (!passed) await command.rollback().execute();
  }
  // Another key's barrier is not this one's.
  const other = await t.db.startTransaction().execute();
  await other.executeQuery(holdPassBarrier(other, QUEUE, 'k-3'));
  await passBarrier(t.db, QUEUE, 'k-4');
  await other.rollback().execute();
});
