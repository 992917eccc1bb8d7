import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { eventually, takeAttempts, takeConfigAttempts, TestAgent } from '../../../../test/support/fleet.ts';
import { startTestHub, testConfig, type TestHub, TOKENS } from '../../../../test/support/hub.ts';
import { JOB_POLL_SECONDS } from '../jobs/boss.ts';
import { GATE_CHECK_MS, recoveryRef } from '@fleetplane/core';

// Health gates through the live workers, on the real clock: SPEC L3-L6. The design tolerance of a look at a
// soaking batch is the gate's check interval plus the workers' poll; the bounds allow five times that, for a
// shared and noisy machine (as jobs/timeliness.test.ts does).
const BOUND_MS = 5 * (GATE_CHECK_MS + JOB_POLL_SECONDS * 1000);

let t: TestDatabase;
let hub: TestHub;
const config = testConfig(10, { mode: 'configuration' });
/** The Hub's clock is the real one, shifted by `skew` where a test needs a node to have gone silent. */
let skew = 0;
const clock = { now: () => new Date(Date.now() + skew) };
beforeAll(async () => {
  t = await createTestDatabase();
  hub = await startTestHub(t.url, { config, clock });
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
});

const asOperator = (method: string, path: string, body?: unknown) => hub.call(method, path, { token: TOKENS.operator, ...(body !== undefined ? { body } : {}) });
const RUNNING = { status: 'running', exit_code: null, restarts: 0 } as const;
const ms = (at: Date | string) => new Date(at).getTime();

async function version(content: string): Promise<string> {
  return (await asOperator('POST', '/api/v1/config-versions', { content, format: 'text' })).body.config_version;
}

/** A node running stream `stream` healthily, reported. */
async function nodeRunning(n: number, stream: string): Promise<TestAgent> {
  const agent = new TestAgent(hub, `edge-${n}`);
  await agent.register();
  expect((await asOperator('PUT', `/api/v1/streams/${stream}-${n}`, { desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: [`edge-${n}`] } })).status).toBe(200);
  const [attempt] = await takeAttempts(agent, `${stream}-${n}`);
  agent.apply(attempt);
  agent.streams.set(`${stream}-${n}`, { ...agent.streams.get(`${stream}-${n}`)!, health: RUNNING });
  await agent.result(attempt.attempt_id, { outcome: 'succeeded', generation: attempt.generation });
  await agent.report();
  return agent;
}

/** The node applies its configuration attempt and reports it, its streams still healthy. */
async function applyConfig(agent: TestAgent): Promise<void> {
  const [attempt] = await takeConfigAttempts(agent);
  agent.apply(attempt);
  await agent.result(attempt.attempt_id, { outcome: 'succeeded', generation: attempt.generation });
  await agent.report();
}

const rollout = async (id: string) => (await hub.call('GET', `/api/v1/rollouts/${id}`)).body;
const until = (id: string, check: (r: any) => boolean, bound = 30_000) => eventually(async () => ((r) => (check(r) ? r : undefined))(await rollout(id)), bound);
async function recorded(id: string, type: string): Promise<number> {
  const { rows } = await sql<{ recorded_at: Date }>`SELECT recorded_at FROM events WHERE stream_id = ${`rollout:${id}`} AND type = ${type} ORDER BY position LIMIT 1`.execute(t.db);
  return ms(rows[0]!.recorded_at);
}

test('L4 L5 a stream that crashes after its target converged pauses the rollout within the soak, with the evidence in the API', async () => {
  const a = await nodeRunning(1, 'k4');
  await nodeRunning(2, 'k4');
  const cv = await version('k4 crashes its stream');
  const created = await asOperator('POST', '/api/v1/rollouts', { config_version: cv, targets: { nodes: ['edge-1', 'edge-2'] }, batch_size: 1, health: { soak_ms: 60_000 } });
  expect(created.status).toBe(201);
  expect(created.body.health).toEqual({ soak_ms: 60_000, max_unhealthy_targets: 0, on_unhealthy: 'pause' });
  const id = created.body.rollout_id;
  await applyConfig(a);
  const soaking = await until(id, (r) => r.gate?.state === 'soaking');
  expect(soaking).toMatchObject({ state: 'applying', current_batch: 0, gate: { batch: 0, state: 'soaking', evidence: [] } });
  expect(ms(soaking.gate.until) - ms(soaking.gate.since)).toBe(60_000);
  // The next batch says it waits for the soak, until its end: no pass is queued for it before then.
  expect(soaking.targets.find((x: any) => x.node_id === 'edge-2').waiting_on).toMatchObject({ kind: 'health_gate', at: soaking.gate.until });
  // The configuration makes the stream crash a moment after the node reported it converged.
  a.streams.set('k4-1', { stream_id: 'k4-1', generation: 1, state: 'failed', last_action_id: null, health: { status: 'exited', exit_code: 3, restarts: 0 } });
  const crashedAt = Date.now();
  await a.report();
  const paused = await until(id, (r) => r.state === 'paused', BOUND_MS);
  expect(Date.now() - crashedAt).toBeLessThan(BOUND_MS);
  expect(paused).toMatchObject({
    paused_reason: 'health_gate',
    current_batch: 0,
    gate: { batch: 0, state: 'failed', until: null, evidence: [{ node_id: 'edge-1', stream_id: 'k4-1', reason: 'not_running', detail: 'failed' }] },
  });
  expect(ms(paused.gate.evidence[0].since)).toBeGreaterThanOrEqual(ms(soaking.gate.since));
  // The next batch never started.
  expect(paused.targets.find((x: any) => x.node_id === 'edge-2').state).toBe('waiting');
  expect((await hub.call('GET', '/api/v1/intents?node_id=edge-2&kind=configuration')).body.items).toEqual([]);
}, 60_000);

test('L6 a healthy batch passes within the tolerance of its soak\'s end, through the live workers, and the rollout moves on', async () => {
  const a = await nodeRunning(3, 'k6');
  const b = await nodeRunning(4, 'k6');
  const cv = await version('k6 healthy');
  const id = (await asOperator('POST', '/api/v1/rollouts', { config_version: cv, targets: { nodes: ['edge-3', 'edge-4'] }, batch_size: 1, health: { soak_ms: 2000 } })).body.rollout_id;
  await applyConfig(a);
  const soaking = await until(id, (r) => r.gate?.state === 'soaking');
  const soakEnd = ms(soaking.gate.until);
  await until(id, (r) => r.current_batch === 1, soakEnd - Date.now() + BOUND_MS);
  const passedAt = await recorded(id, 'RolloutGatePassed');
  expect(passedAt).toBeGreaterThanOrEqual(soakEnd);
  expect(passedAt - soakEnd).toBeLessThanOrEqual(BOUND_MS);
  await applyConfig(b);
  const done = await until(id, (r) => r.state === 'converged', 2000 + BOUND_MS + 10_000);
  expect(done.gate).toMatchObject({ batch: 1, state: 'passed' });
}, 60_000);

test('L6 the soak\'s timing comes from its event: a Hub restarted mid-soak passes the batch at the same end', async () => {
  const a = await nodeRunning(5, 'k6r');
  const cv = await version('k6 restart');
  const id = (await asOperator('POST', '/api/v1/rollouts', { config_version: cv, targets: { nodes: ['edge-5'] }, health: { soak_ms: 4000 } })).body.rollout_id;
  await applyConfig(a);
  const soaking = await until(id, (r) => r.gate?.state === 'soaking');
  await hub.stop();
  hub = await startTestHub(t.url, { config, clock });
  const done = await until(id, (r) => r.state === 'converged', ms(soaking.gate.until) - Date.now() + BOUND_MS);
  expect(done.gate).toMatchObject({ batch: 0, state: 'passed' });
  const soaks = (await sql<{ n: string }>`SELECT count(*) n FROM events WHERE stream_id = ${`rollout:${id}`} AND type = 'RolloutGateSoaking'`.execute(t.db)).rows[0]!.n;
  expect(Number(soaks)).toBe(1);
  expect(await recorded(id, 'RolloutGatePassed')).toBeGreaterThanOrEqual(ms(soaking.gate.until));
}, 60_000);

test('L4 resume watches the batch again from a new soak; a node that goes offline counts against it', async () => {
  const a = await nodeRunning(6, 'k4r');
  const cv = await version('k4 resume');
  const id = (await asOperator('POST', '/api/v1/rollouts', { config_version: cv, targets: { nodes: ['edge-6'] }, health: { soak_ms: 60_000 } })).body.rollout_id;
  await applyConfig(a);
  await until(id, (r) => r.gate?.state === 'soaking');
  a.streams.set('k4r-6', { stream_id: 'k4r-6', generation: 1, state: 'running', last_action_id: null, health: { status: 'running', exit_code: null, restarts: 1 } });
  await a.report();
  const failed = await until(id, (r) => r.state === 'paused', BOUND_MS);
  expect(failed.gate.evidence).toEqual([expect.objectContaining({ node_id: 'edge-6', stream_id: 'k4r-6', reason: 'unhealthy' })]);
  a.streams.set('k4r-6', { stream_id: 'k4r-6', generation: 1, state: 'running', last_action_id: null, health: RUNNING });
  await a.report();
  expect((await asOperator('POST', `/api/v1/rollouts/${id}/actions`, { action: 'resume' })).status).toBe(200);
  const again = await until(id, (r) => r.state === 'applying' && r.gate?.state === 'soaking');
  expect(ms(again.gate.since)).toBeGreaterThan(ms(failed.gate.since));
  // The node falls silent past the offline threshold: the next look counts it against the batch.
  skew = config.file.reconciliation.offline_after_ms;
  try {
    await hub.context.rollouts.progress(id, 'k4-offline');
  } finally {
    skew = 0;
  }
  const offline = await rollout(id);
  expect(offline).toMatchObject({ state: 'paused', paused_reason: 'health_gate' });
  expect(offline.gate.evidence).toEqual([expect.objectContaining({ node_id: 'edge-6', stream_id: null, reason: 'offline' })]);
}, 60_000);

test('L7 with on_unhealthy rollback, the health executor restores the failed batch\'s changed targets; the why chain reaches the gate\'s evidence', async () => {
  const a = await nodeRunning(7, 'k7');
  const base = await version('k7 base');
  const first = (await asOperator('POST', '/api/v1/rollouts', { config_version: base, targets: { nodes: ['edge-7'] } })).body.rollout_id;
  await applyConfig(a);
  await until(first, (r) => r.state === 'converged');
  const cv = await version('k7 crashes its stream');
  const id = (await asOperator('POST', '/api/v1/rollouts', { config_version: cv, targets: { nodes: ['edge-7'] }, health: { soak_ms: 60_000, on_unhealthy: 'rollback' } })).body.rollout_id;
  const [apply] = await takeConfigAttempts(a);
  a.apply(apply);
  await a.result(apply.attempt_id, { outcome: 'succeeded', generation: apply.generation });
  // The node captured the configuration it held before the apply, as the agent does (SPEC I1).
  const points = [{ ref: recoveryRef(apply.attempt_id), config_version: base }];
  const report = () => {
    const body = a.nextReport();
    return a.call('POST', '/api/v1/agent/reports', { ...body, configuration: { ...body.configuration, recovery_points: points } });
  };
  await report();
  await until(id, (r) => r.gate?.state === 'soaking');
  a.streams.set('k7-7', { stream_id: 'k7-7', generation: 1, state: 'failed', last_action_id: null, health: { status: 'exited', exit_code: 1, restarts: 0 } });
  await report();
  const acted = await until(id, (r) => r.gate?.action === 'opened', BOUND_MS);
  expect(acted).toMatchObject({ state: 'paused', paused_reason: 'health_gate', gate: { state: 'failed', evidence: [expect.objectContaining({ node_id: 'edge-7', stream_id: 'k7-7' })] } });
  expect(acted.targets[0]).toMatchObject({ node_id: 'edge-7', recovery_phase: 'restoring' });
  const [restore] = await takeConfigAttempts(a);
  expect(restore).toMatchObject({ operation: 'restore', config_version: base, spec: { recovery_ref: points[0]!.ref } });
  const why = (await hub.call('GET', `/api/v1/attempts/${restore.attempt_id}`)).body.why as any[];
  expect(why.map((l) => l.relation)).toEqual(['queued', 'opened', 'restore_opened', 'gate_failed', 'rollout_created']);
  expect(why.find((l) => l.relation === 'restore_opened')).toMatchObject({ actor: 'health-executor', role: 'system', source: 'worker' });
  expect(why.find((l) => l.relation === 'gate_failed')).toMatchObject({ type: 'RolloutGateFailed', data: { evidence: [expect.objectContaining({ node_id: 'edge-7', stream_id: 'k7-7', reason: 'not_running' })] } });
  const { rows } = await sql<{ data: unknown; actor: string }>`
    SELECT data, metadata->>'actor' AS actor FROM events WHERE stream_id = ${`rollout:${id}`} AND type = 'RolloutHealthExecuted'`.execute(t.db);
  expect(rows).toEqual([{ actor: 'health-executor', data: { rollout_id: id, batch: 0, outcome: 'opened', nodes: ['edge-7'], skipped: [], code: null, message: null } }]);
  // The node restores: the hold is retired, and a later pass of the executor opens nothing again.
  a.apply(restore);
  await a.result(restore.attempt_id, { outcome: 'succeeded', generation: restore.generation });
  await report();
  await until(id, (r) => r.targets[0].recovery_phase === 'complete');
  await hub.context.rollouts.progress(id, 'k7-again');
  expect((await sql<{ n: number }>`SELECT count(*)::int n FROM events WHERE stream_id = ${`rollout:${id}`} AND type = 'RolloutRestoreOpened'`.execute(t.db)).rows[0]!.n).toBe(1);
}, 60_000);

test('L5 a soak its rollout stopped (paused, cancelled) shows stopped, with no end to wait for, in the rollout and the list', async () => {
  const a = await nodeRunning(9, 'stop');
  const b = await nodeRunning(10, 'stop');
  const cv = await version('soak then stop');
  const create = (nodes: string[]) => asOperator('POST', '/api/v1/rollouts', { config_version: cv, targets: { nodes }, batch_size: 1, health: { soak_ms: 60_000 } });
  const act = (id: string, action: string) => asOperator('POST', `/api/v1/rollouts/${id}/actions`, { action });
  const listed = async (id: string) => (await hub.call('GET', '/api/v1/rollouts')).body.items.find((r: any) => r.rollout_id === id);

  // Paused mid-soak: the soak stops (a resume starts a new one), it does not run on to an end that judges nothing.
  const paused = (await create(['edge-9'])).body.rollout_id;
  await applyConfig(a);
  await until(paused, (r) => r.gate?.state === 'soaking');
  expect((await act(paused, 'pause')).body).toMatchObject({ state: 'paused', gate: { batch: 0, state: 'stopped', until: null } });
  expect(await act(paused, 'resume')).toMatchObject({ status: 200, body: { gate: null } });
  await until(paused, (r) => r.gate?.state === 'soaking');
  // Cancelled mid-soak: an ended rollout never soaks again.
  const cancelled = await act(paused, 'cancel');
  expect(cancelled.body).toMatchObject({ state: 'cancelled', gate: { state: 'stopped', until: null } });
  expect((await listed(paused)).gate).toEqual(cancelled.body.gate);
  // One soaking goes on soaking, until its end.
  const soaking = (await create(['edge-10'])).body.rollout_id;
  await applyConfig(b);
  expect((await until(soaking, (r) => r.gate?.state === 'soaking')).gate.until).not.toBeNull();
  expect((await act(soaking, 'cancel')).status).toBe(200);
});
