import { sql } from 'kysely';
import { eventually, latestIntent, takeAttempts, takeConfigAttempts, TestAgent } from '../../../../test/support/fleet.ts';
import { startTestHub, testConfig, type TestHub, TOKENS } from '../../../../test/support/hub.ts';
import { hubSuite } from '../../../../test/support/hub-suite.ts';
import { DesiredStream } from '@fleetplane/core';
import type { Actor } from '../commands/pipeline.ts';
import { BACKSTOP_AFTER_MS, BACKSTOP_QUEUE } from '../reconcile/queues.ts';
import { LEASE_SWEEP_EVERY_MS } from '../reconcile/reconciler.ts';
import { writeDesired } from '../reconcile/write-desired.ts';
import { JOB_POLL_SECONDS } from './boss.ts';

// Scheduled work on time (README, "How late scheduled work may run"): each time-based behaviour through the
// live workers, on the real clock, nothing run by hand. The design tolerance is the workers' poll (jobs) or
// the sweep's interval (leases); the tests allow five times that, for a shared and noisy machine.
const HEADROOM = 5;
const JOB_BOUND_MS = HEADROOM * JOB_POLL_SECONDS * 1000;
const SWEEP_BOUND_MS = HEADROOM * LEASE_SWEEP_EVERY_MS;

const TTL_MS = 1500;
const config = (ttlMs = TTL_MS) =>
  testConfig(6, { mode: 'configuration', lease_ms: 1000, retry_base_ms: 200, retry_max_ms: 400 }, { approval_ttl_ms: ttlMs });

const suite = hubSuite({ config: config(), sweepEveryMs: LEASE_SWEEP_EVERY_MS });

const ms = (at: Date | string) => new Date(at).getTime();
const as = (token: string, method: string, path: string, body?: unknown) => suite.hub.call(method, path, { token, ...(body !== undefined ? { body } : {}) });

/** When the first event of `type` whose data has `key` = `value` was recorded (by the Hub's clock, here the real one). */
async function recorded(type: string, key: string, value: string | number): Promise<number> {
  return eventually(async () => {
    const { rows } = await sql<{ recorded_at: Date }>`
      SELECT recorded_at FROM events WHERE type = ${type} AND data->>${key} = ${String(value)} ORDER BY position LIMIT 1`.execute(suite.t.db);
    return rows[0] ? ms(rows[0].recorded_at) : undefined;
  }, 60_000);
}

test('C1 each retry of a temporary failure is queued within the tolerance of its next retry time', async () => {
  const agent = new TestAgent(suite.hub, 'edge-1');
  await agent.register();
  await as(TOKENS.operator, 'PUT', '/api/v1/streams/c1-on-time', { desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: ['edge-1'] } });
  let [attempt] = await takeAttempts(agent, 'c1-on-time');
  // Three in a row: the first retry job finds the worker wherever its poll is; the next ones come right after it ran.
  for (let i = 1; i <= 3; i++) {
    await agent.result(attempt.attempt_id, { outcome: 'failed', generation: 1, failure_class: 'temporary', code: 'unreachable' });
    const intent = await latestIntent(suite.hub, 'c1-on-time', 'edge-1');
    expect(intent).toMatchObject({ state: 'retrying', retry_count: i });
    [attempt] = await eventually(async () => {
      const got = (await agent.attempts(1)).filter((x) => x.stream_id === 'c1-on-time');
      return got.length ? got : undefined;
    }, 60_000);
    const queuedAt = await recorded('AttemptQueued', 'attempt_id', attempt.attempt_id);
    const late = queuedAt - ms(intent.next_retry_at);
    expect(late).toBeGreaterThanOrEqual(0);
    expect(late).toBeLessThanOrEqual(JOB_BOUND_MS);
  }
}, 90_000);

test('H7 a pending request expires within the tolerance of its time, also when the Hub that took it has stopped', async () => {
  const agent = new TestAgent(suite.hub, 'edge-2');
  await agent.register();
  const version = (await as(TOKENS.operator, 'POST', '/api/v1/config-versions', { content: 'h7-on-time', format: 'text' })).body.config_version;
  const submit = async (on: TestHub) => {
    const r = await on.call('POST', '/api/v1/config-approvals', { token: TOKENS.operator, body: { config_version: version, targets: { nodes: ['edge-2'] } } });
    expect(r.status).toBe(201);
    return r.body as { approval_id: string; expires_at: string };
  };
  const lateness = async (request: { approval_id: string; expires_at: string }) =>
    (await recorded('ApprovalExpired', 'approval_id', request.approval_id)) - ms(request.expires_at);

  const first = await submit(suite.hub);
  const late = [await lateness(first)];
  // Another Hub takes the next request and stops before its time: this one's worker expires it, having
  // just run the first one's job.
  const other = await startTestHub(suite.t.url, { config: config(2 * TTL_MS) });
  const second = await submit(other);
  await other.stop();
  expect(Date.now()).toBeLessThan(ms(second.expires_at));
  late.push(await lateness(second));
  for (const l of late) {
    expect(l).toBeGreaterThanOrEqual(0);
    expect(l).toBeLessThanOrEqual(JOB_BOUND_MS);
  }
}, 90_000);

test('C4 an unanswered lease is made ambiguous by the live sweep within the tolerance of its expiry', async () => {
  const agent = new TestAgent(suite.hub, 'edge-3');
  await agent.register();
  await as(TOKENS.operator, 'PUT', '/api/v1/streams/c4-on-time', { desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: ['edge-3'] } });
  // The node takes its attempt and never answers.
  const [attempt] = await takeAttempts(agent, 'c4-on-time');
  const late = (await recorded('AttemptAmbiguous', 'attempt_id', attempt.attempt_id)) - ms(attempt.lease_expires_at);
  expect(late).toBeGreaterThanOrEqual(0);
  expect(late).toBeLessThanOrEqual(SWEEP_BOUND_MS);
});

test('G1 a batch that converged moves on within the tolerance: the next batch starts after the proving report', async () => {
  const agents = ['edge-4', 'edge-5', 'edge-6'].map((n) => new TestAgent(suite.hub, n));
  for (const a of agents) {
    await a.register();
    await a.report();
  }
  const version = (await as(TOKENS.operator, 'POST', '/api/v1/config-versions', { content: 'g1-on-time', format: 'text' })).body.config_version;
  const created = await as(TOKENS.operator, 'POST', '/api/v1/rollouts', { config_version: version, targets: { nodes: agents.map((a) => a.nodeId) }, batch_size: 1 });
  expect(created.status).toBe(201);
  const id = created.body.rollout_id;
  for (const [batch, agent] of agents.slice(0, 2).entries()) {
    const [attempt] = await takeConfigAttempts(agent);
    agent.apply(attempt);
    await agent.result(attempt.attempt_id, { outcome: 'succeeded', generation: attempt.generation });
    await agent.report();
    const converged = await recorded('IntentConverged', 'intent_id', attempt.intent_id);
    const started = await eventually(async () => {
      const { rows } = await sql<{ recorded_at: Date }>`
        SELECT recorded_at FROM events WHERE type = 'RolloutBatchStarted' AND data->>'rollout_id' = ${id} AND (data->>'batch')::int = ${batch + 1}`.execute(suite.t.db);
      return rows[0] ? ms(rows[0].recorded_at) : undefined;
    }, 60_000);
    expect(started - converged).toBeGreaterThanOrEqual(0);
    expect(started - converged).toBeLessThanOrEqual(JOB_BOUND_MS);
  }
}, 90_000);

test('A3 C6 writes whose Hub never ran its own pass (stopped between commit and pass) are reconciled by one backstop pass, within the tolerance of its due time', async () => {
  const agent = new TestAgent(suite.hub, 'edge-5');
  await agent.register();
  const operator: Actor = { principal: 'bob', role: 'operator', source: 'api', correlationId: 'backstop-burst' };
  const written = Date.now();
  // A burst of writes through the pipeline alone: what a route leaves behind when its Hub stops before reconciling.
  for (const n of [1, 2, 3]) {
    const desired = DesiredStream.parse({ desired_state: 'running', spec: { command: 'sleep', args: [String(n)] }, placement: { nodes: ['edge-5'] } });
    const outcome = await suite.hub.context.pipeline.run(operator, writeDesired({ streamId: 'a3-backstop', desired, actionId: null, ifMatch: null, overrideHold: false }));
    expect(outcome.ok).toBe(true);
  }
  const { rows } = await sql<{ n: string }>`
    SELECT count(*) AS n FROM pgboss.job WHERE name = ${BACKSTOP_QUEUE} AND singleton_key = 'edge-5' AND state = 'created'`.execute(suite.t.db);
  expect(Number(rows[0]!.n)).toBe(1);
  const [attempt] = await eventually(async () => {
    const got = (await agent.attempts(1)).filter((x) => x.stream_id === 'a3-backstop');
    return got.length ? got : undefined;
  }, 60_000);
  expect(attempt.generation).toBe(3);
  const late = (await recorded('AttemptQueued', 'attempt_id', attempt.attempt_id)) - (written + BACKSTOP_AFTER_MS);
  expect(late).toBeGreaterThanOrEqual(0);
  expect(late).toBeLessThanOrEqual(JOB_BOUND_MS);
});
