import { DesiredStream } from '@fleetplane/core';
import { sql } from 'kysely';
import { queuedPasses, withoutJobs } from '../../../../test/support/commands.ts';
import { eventually, latestIntent, TestAgent } from '../../../../test/support/fleet.ts';
import { testConfig, TOKENS } from '../../../../test/support/hub.ts';
import { hubSuite } from '../../../../test/support/hub-suite.ts';
import type { Actor } from '../commands/pipeline.ts';
import { JOB_POLL_SECONDS } from '../jobs/boss.ts';
import { ADVISORY_LOCKS } from '../database/advisory-locks.ts';
import { counterTotal } from '../metrics.ts';
import { writeDesired } from './write-desired.ts';

// The resync through the live Hub, on the real clock. Its design bound is the resync's interval and then the
// worker's poll; the test allows five times that, for a shared and noisy machine.
const RESYNC_EVERY_MS = 1000;
const BOUND_MS = 5 * (RESYNC_EVERY_MS + JOB_POLL_SECONDS * 1000);

const suite = hubSuite({ config: testConfig(2, { mode: 'lifecycle' }), resyncEveryMs: RESYNC_EVERY_MS });
const operator: Actor = { principal: 'bob', role: 'operator', source: 'api', correlationId: 'lost-wakeup' };

test('C6 A3 an intent whose pass was asked for and lost gets its attempt from the resync, within the bound of its interval', async () => {
  const agent = new TestAgent(suite.hub, 'edge-1');
  await agent.register();
  // The registration's own pass first: on a loaded machine it could otherwise run after the write, and take it.
  await eventually(async () => ((await queuedPasses(suite.t.db, ['edge-1'])).length === 0 ? true : undefined));
  const desired = DesiredStream.parse({ desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: ['edge-1'] } });
  const written = Date.now();
  const outcome = await suite.hub.context.pipeline.run(operator, withoutJobs(writeDesired({ streamId: 'lost-wakeup', desired, actionId: null, ifMatch: null, overrideHold: false })));
  expect(outcome.ok).toBe(true);
  // Nothing asks for its pass: no job for the node, and the intent waits with no attempt.
  expect(await queuedPasses(suite.t.db, ['edge-1'])).toEqual([]);
  expect(await latestIntent(suite.hub, 'lost-wakeup', 'edge-1')).toMatchObject({ state: 'pending' });

  const [attempt] = await eventually(async () => {
    const got = (await agent.attempts(1)).filter((x) => x.stream_id === 'lost-wakeup');
    return got.length ? got : undefined;
  }, 60_000);
  const { rows: queued } = await sql<{ recorded_at: Date; correlation: string }>`
    SELECT recorded_at, metadata->>'correlation_id' AS correlation FROM events
    WHERE type = 'AttemptQueued' AND data->>'attempt_id' = ${attempt.attempt_id}`.execute(suite.t.db);
  expect(queued[0]!.correlation).toBe('resync');
  expect(queued[0]!.recorded_at.getTime() - written).toBeLessThanOrEqual(BOUND_MS);
  // What the resync found is counted, for an alert (a lost pass is a defect to report), once its pass returns:
  // the agent may have its attempt a moment before.
  const found = await eventually(async () => {
    const n = await counterTotal(suite.hub.context.metrics.resyncFound);
    return n > 0 ? n : undefined;
  });
  expect(found).toBe(1);
}, 90_000);

test('C6 B2 the resync passes no node whose intents wait by design (its mode sends nothing), and one Hub resyncs at a time', async () => {
  // The first test's intent has its attempt; edge-2 only watches, so its new intent waits, pending.
  expect(await latestIntent(suite.hub, 'lost-wakeup', 'edge-1')).not.toMatchObject({ state: 'pending' });
  const agent = new TestAgent(suite.hub, 'edge-2');
  await agent.register();
  expect((await suite.hub.call('PUT', '/api/v1/nodes/edge-2/mode', { token: TOKENS.operator, body: { mode: 'observe' } })).status).toBe(200);
  const desired = DesiredStream.parse({ desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: ['edge-2'] } });
  expect((await suite.hub.context.pipeline.run(operator, writeDesired({ streamId: 'observed-only', desired, actionId: null, ifMatch: null, overrideHold: false }))).ok).toBe(true);
  expect(await latestIntent(suite.hub, 'observed-only', 'edge-2')).toMatchObject({ state: 'pending' });
  // This Hub's own resync runs every second and skips this call while it holds the lock: the first that runs.
  expect(await eventually(async () => (await suite.hub.context.reconciler.resync()) ?? undefined)).toBe(0);
  expect(await latestIntent(suite.hub, 'observed-only', 'edge-2')).toMatchObject({ state: 'pending' });
  // Another Hub's resync holds the lock: this one skips.
  await suite.t.db.connection().execute(async (conn) => {
    await sql`SELECT pg_advisory_lock(${ADVISORY_LOCKS.resync})`.execute(conn);
    try {
      expect(await suite.hub.context.reconciler.resync()).toBeNull();
    } finally {
      await sql`SELECT pg_advisory_unlock(${ADVISORY_LOCKS.resync})`.execute(conn);
    }
  });
});
