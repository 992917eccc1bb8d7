import { ok } from '@fleetplane/core';
import { Kysely, sql } from 'kysely';
import type { PgBoss } from 'pg-boss';
import { foreignEvent } from '../../../../test/support/foreign-events.ts';
import { createTestDatabase, roundTripsOf, type TestDatabase, waitingForLocks } from '../../../../test/support/database.ts';
import { runCommand, type Actor, type Command } from '../commands/pipeline.ts';
import { plannedDialect } from '../database/dialect.ts';
import type { Tables } from '../database/tables.ts';
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
  const planned: string[] = [];
  const roundTrips = await roundTripsOf(t.url, async (_db, pool) => {
    const logged = new Kysely<Tables>({ dialect: plannedDialect(pool), log: (e) => void planned.push(e.query.sql) });
    const r = await runCommand({ db: logged, boss, clock: { now: () => now }, projections: allProjections }, actor, asksForPass('k-1'));
    expect(r.ok).toBe(true);
  });
  // Its load reads nothing and its append is of a new event: the whole transaction is the commit's round trip.
  expect(roundTrips).toEqual(['simple']);
  const lock = planned.findIndex((q) => q.includes(`pg_advisory_xact_lock_shared(hashtext('${QUEUE}'), hashtext('k-1'))`));
  const insert = planned.findIndex((q) => q.includes('INSERT INTO pgboss.'));
  expect([lock >= 0, insert > lock]).toEqual([true, true]);
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
