import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase, waitingForLocks } from '../../../../test/support/database.ts';
import { eventually, takeAttempts, takeConfigAttempts, TestAgent } from '../../../../test/support/fleet.ts';
import { startTestHub, testConfig, type TestHub, TOKENS } from '../../../../test/support/hub.ts';
import { recoveryRef, Report } from '@fleetplane/core';
import { holdPassBarrier } from '../jobs/pass-barrier.ts';
import { allProjections } from '../projections/all.ts';
import { ROLLOUT_QUEUE } from './queues.ts';
import { ingestReport } from '../reconcile/ingest-report.ts';
import { verifyProjections } from '../projections/verify.ts';

// Configuration versions, configuration intents and rollouts, end to end: SPEC A10, B2 (configuration),
// F3-F6 and G1-G6. Simulated agents over HTTP; the reconcile and rollout workers run in the background.

let t: TestDatabase;
let hub: TestHub;
/** The Hub's clock runs with real time, shifted by `skew`. */
let skew = 0;
beforeAll(async () => {
  t = await createTestDatabase();
  hub = await startTestHub(t.url, {
    config: testConfig(54, { mode: 'configuration', stale_after_ms: 30_000, offline_after_ms: 120_000 }),
    clock: { now: () => new Date(Date.now() + skew) },
  });
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
});

const asOperator = (method: string, path: string, body?: unknown) => hub.call(method, path, { token: TOKENS.operator, ...(body !== undefined ? { body } : {}) });

async function version(content: string): Promise<string> {
  const r = await asOperator('POST', '/api/v1/config-versions', { content, format: 'text' });
  expect(r.status).toBe(201);
  return r.body.config_version;
}

/** A registered node that has reported once, with labels when given. */
async function node(n: number, labels?: Record<string, string>): Promise<TestAgent> {
  const a = await TestAgent.reporting(hub, `edge-${n}`);
  if (labels) expect((await asOperator('PUT', `/api/v1/nodes/edge-${n}/labels`, { labels })).status).toBe(200);
  return a;
}

const createRollout = (body: unknown) => asOperator('POST', '/api/v1/rollouts', body);
const rollout = async (id: string) => (await hub.call('GET', `/api/v1/rollouts/${id}`)).body;
const targets = async (id: string) => Object.fromEntries((await rollout(id)).targets.map((x: any) => [x.node_id, x]));
const rolloutEvents = async () => Number((await sql<{ n: string }>`SELECT count(*) n FROM events WHERE stream_id LIKE 'rollout:%'`.execute(t.db)).rows[0]!.n);
const configIntents = async (nodeId: string) =>
  (await hub.call('GET', `/api/v1/intents?node_id=${nodeId}&kind=configuration`)).body.items as any[];

const settled = (id: string, state = 'converged') => eventually(async () => ((await rollout(id)).state === state ? true : undefined));

/** The node takes its configuration attempt, applies it, answers and reports. */
async function applyConfig(agent: TestAgent): Promise<any> {
  const [attempt] = await takeConfigAttempts(agent);
  agent.apply(attempt);
  expect((await agent.result(attempt.attempt_id, { outcome: 'succeeded', generation: attempt.generation })).status).toBe(200);
  expect((await agent.report()).status).toBe(202);
  return attempt;
}

/** The node takes its configuration attempt and refuses it for good. */
async function refuseConfig(agent: TestAgent): Promise<any> {
  const [attempt] = await takeConfigAttempts(agent);
  const r = await agent.result(attempt.attempt_id, { outcome: 'failed', generation: attempt.generation, failure_class: 'permanent', code: 'invalid_config', message: 'parse error' });
  expect(r.status).toBe(200);
  return attempt;
}

test('configuration versions are immutable content with a digest; a missing parent is refused', async () => {
  const content = 'listen: 8080\n';
  const created = await asOperator('POST', '/api/v1/config-versions', { content, format: 'yaml' });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ content, format: 'yaml', parent: null, created_by: 'bob', digest: `sha256:${createHash('sha256').update(content).digest('hex')}` });
  const child = await asOperator('POST', '/api/v1/config-versions', { content: 'listen: 9090\n', format: 'yaml', parent: created.body.config_version });
  expect(child.body.parent).toBe(created.body.config_version);
  const listed = (await hub.call('GET', '/api/v1/config-versions')).body.items.map((v: any) => v.config_version);
  expect(listed.slice(0, 2)).toEqual([child.body.config_version, created.body.config_version]);
  const orphan = await asOperator('POST', '/api/v1/config-versions', { content: 'x', format: 'text', parent: 'cv_missing' });
  expect(orphan).toMatchObject({ status: 422, body: { code: 'config_version_not_found' } });
  expect((await hub.call('GET', `/api/v1/config-versions/${created.body.config_version}`)).body.content).toBe(content);
});

test('G1 only the current batch is dispatched; the next starts when every target of the batch has converged', async () => {
  const [a1, a2] = [await node(1), await node(2)];
  const v = await version('g1');
  const created = await createRollout({ config_version: v, targets: { nodes: ['edge-1', 'edge-2'] }, batch_size: 1 });
  expect(created.status).toBe(201);
  const id = created.body.rollout_id;
  expect(created.body).toMatchObject({ state: 'applying', current_batch: 0, batches: 2, created_by: 'bob', kind: 'rollout' });
  expect(created.body.targets.map((x: any) => [x.node_id, x.batch, x.state])).toEqual([
    ['edge-1', 0, 'applying'],
    ['edge-2', 1, 'waiting'],
  ]);
  expect(await configIntents('edge-2')).toEqual([]);
  const attempt = await applyConfig(a1);
  expect(attempt).toMatchObject({ operation: 'config_apply', stream_id: null, config_version: v, spec: { content: 'g1' }, flags: { capture_recovery: true } });
  await eventually(async () => ((await targets(id))['edge-2'].state === 'applying' ? true : undefined));
  expect((await targets(id))['edge-1'].state).toBe('converged');
  // The batch start queued edge-2's attempt itself, in the same transaction: no reconcile job in between.
  const txs = await sql<{ type: string; tx_id: string }>`SELECT type, tx_id::text FROM events
    WHERE (stream_id = ${`rollout:${id}`} AND type = 'RolloutBatchStarted' AND (data->>'batch')::int = 1)
       OR (type = 'AttemptQueued' AND data->>'intent_id' = ${(await targets(id))['edge-2'].intent_id})`.execute(t.db);
  expect(txs.rows.map((r) => r.type).sort()).toEqual(['AttemptQueued', 'RolloutBatchStarted']);
  expect(new Set(txs.rows.map((r) => r.tx_id)).size).toBe(1);
  await applyConfig(a2);
  await eventually(async () => ((await rollout(id)).state === 'converged' ? true : undefined));
  expect((await hub.call('GET', '/api/v1/nodes/edge-2')).body).toMatchObject({ applied_config_version: v, desired_config_version: v });
});

test('G1 a batch of two waits for both: one converged target does not start the next batch', async () => {
  const [a, b] = [await node(20), await node(21)];
  await node(22);
  const v = await version('g1-pair');
  const id = (await createRollout({ config_version: v, targets: { nodes: ['edge-20', 'edge-21', 'edge-22'] }, batch_size: 2 })).body.rollout_id;
  await applyConfig(a);
  await eventually(async () => ((await targets(id))['edge-20'].state === 'converged' ? true : undefined));
  await hub.context.rollouts.progress(id, 'test');
  expect(await rollout(id)).toMatchObject({ current_batch: 0 });
  expect((await targets(id))['edge-22'].state).toBe('waiting');
  expect(await configIntents('edge-22')).toEqual([]);
  await applyConfig(b);
  await eventually(async () => ((await targets(id))['edge-22'].state === 'applying' ? true : undefined));
  expect((await rollout(id)).current_batch).toBe(1);
});

test('G1 a rollout pass waits until the commands that asked for it have committed: none of their effects is missed', async () => {
  const a = await node(34);
  const id = (await createRollout({ config_version: await version('barrier'), targets: { nodes: ['edge-34'] }, batch_size: 1 })).body.rollout_id;
  // A report proving a target, still committing, holds the rollout's pass barrier as the pipeline has it.
  const committing = await t.db.startTransaction().execute();
  let passed = false;
  try {
    await committing.executeQuery(holdPassBarrier(committing, ROLLOUT_QUEUE, id));
    const pass = hub.context.rollouts.progress(id, 'test').then(() => {
      passed = true;
    });
    await waitingForLocks(t.db);
    expect(passed).toBe(false);
    await committing.commit().execute();
    await pass;
  } finally {
    if (!passed) await committing.rollback().execute();
  }
  await applyConfig(a);
  await settled(id);
});

test('A10 a configuration intent converges only when the node reports the version and every stream on it is at its desired generation and state', async () => {
  const a = await node(3);
  expect((await asOperator('PUT', '/api/v1/streams/a10', { desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: ['edge-3'] } })).status).toBe(200);
  const [start] = await takeAttempts(a, 'a10');
  const v = await version('a10');
  const applied = await asOperator('POST', '/api/v1/nodes/edge-3/configuration/apply', { config_version: v });
  expect(applied.status).toBe(201);
  await applyConfig(a); // the version is reported, the stream is not running yet
  const [intent] = await configIntents('edge-3');
  expect(intent).toMatchObject({ kind: 'configuration', config_version: v, stream_id: null, state: 'converging' });
  a.apply(start);
  await a.report();
  expect((await configIntents('edge-3'))[0].state).toBe('converged');
  await eventually(async () => ((await rollout(applied.body.rollout_id)).state === 'converged' ? true : undefined));
});

test('A10 reports loaded together prove each configuration intent against the streams of its own node', async () => {
  const [a, b] = [await node(30), await node(31)];
  for (const agent of [a, b]) {
    const put = await asOperator('PUT', `/api/v1/streams/s-${agent.nodeId}`, { desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: [agent.nodeId] } });
    expect(put.status).toBe(200);
  }
  const [startA] = await takeAttempts(a, `s-${a.nodeId}`);
  await takeAttempts(b, `s-${b.nodeId}`); // b never starts its stream
  const v = await version('a10-together');
  for (const agent of [a, b]) expect((await asOperator('POST', `/api/v1/nodes/${agent.nodeId}/configuration/apply`, { config_version: v })).status).toBe(201);
  await applyConfig(a);
  await applyConfig(b);
  a.apply(startA);
  // Two reports take the Hub's two idle report lanes, so that a's and b's queue and are loaded together.
  const fillers = [await node(32), await node(33)];
  const run = (agent: TestAgent) =>
    hub.context.pipeline.run(
      { principal: `${agent.nodeId}-agent`, role: 'agent', source: 'agent', correlationId: `a10-${agent.nodeId}` },
      ingestReport(Report.parse(agent.nextReport())),
    );
  const outcomes = await Promise.all([...fillers, a, b].map(run));
  expect(outcomes.every((o) => o.ok && o.value.result.accepted)).toBe(true);
  const { rows } = await sql<{ tx: string }>`
    SELECT DISTINCT tx_id::text AS tx FROM events WHERE type = 'NodeReported' AND metadata->>'correlation_id' IN ('a10-edge-30', 'a10-edge-31')`.execute(t.db);
  expect(rows).toHaveLength(1);
  expect((await configIntents('edge-30'))[0].state).toBe('converged');
  expect((await configIntents('edge-31'))[0].state).toBe('converging');
});

test('B2 configuration is applied only in configuration mode; a lifecycle node waits, visibly', async () => {
  const a = await node(4);
  expect((await asOperator('PUT', '/api/v1/nodes/edge-4/mode', { mode: 'lifecycle' })).status).toBe(200);
  const v = await version('b2');
  const created = await asOperator('POST', '/api/v1/nodes/edge-4/configuration/apply', { config_version: v });
  expect(created.body.targets[0]).toMatchObject({ node_id: 'edge-4', state: 'applying', waiting_on: { kind: 'mode', node_id: 'edge-4' } });
  expect(created.body.targets[0].waiting_on.message).toMatch(/node edge-4 is in lifecycle mode: configuration intents are dispatched in configuration mode only/);
  await hub.context.reconciler.reconcile('edge-4', 'test');
  expect(await a.attempts(0)).toEqual([]);
  expect((await asOperator('PUT', '/api/v1/nodes/edge-4/mode', { mode: 'configuration' })).status).toBe(200);
  await hub.context.reconciler.reconcile('edge-4', 'test');
  const [attempt] = await a.attempts(0);
  expect(attempt).toMatchObject({ operation: 'config_apply', config_version: v });
});

test('B1 B4 configuration drift is listed by GET /drift and the drift view until the node reports the version', async () => {
  const a = await node(5);
  const v = await version('drift');
  await asOperator('POST', '/api/v1/nodes/edge-5/configuration/apply', { config_version: v });
  const drift = async () => ((await hub.call('GET', '/api/v1/drift')).body.items as any[]).filter((d) => d.node_id === 'edge-5' && d.kind === 'config_drift');
  expect(await drift()).toEqual([expect.objectContaining({ desired_config_version: v, applied_config_version: null })]);
  const view = await sql<{ node_id: string }>`SELECT node_id FROM drift WHERE kind = 'config_drift' AND node_id = 'edge-5'`.execute(t.db);
  expect(view.rows).toHaveLength(1);
  await applyConfig(a);
  expect(await drift()).toEqual([]);
});

test('F3 targets are explicit nodes or a selector, never both and not neither', async () => {
  await node(6, { f3: 'yes' });
  const v = await version('f3');
  const before = await rolloutEvents();
  const both = await createRollout({ config_version: v, targets: { nodes: ['edge-6'], selector: { f3: 'yes' } } });
  expect(both).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
  expect(both.body.message).toMatch(/either nodes or a selector/);
  expect((await createRollout({ config_version: v, targets: {} })).status).toBe(400);
  expect(await rolloutEvents()).toBe(before);
});

test('F3 a selector of several pairs selects the nodes that carry every pair, and only those', async () => {
  await node(23, { f3env: 'prod', f3tier: 'edge' });
  await node(24, { f3env: 'prod', f3tier: 'edge', zone: 'b' });
  await node(25, { f3env: 'prod', f3tier: 'core' });
  await node(26, { f3env: 'staging', f3tier: 'edge' });
  await node(27, { f3env: 'prod' });
  await node(28, { f3tier: 'edge' });
  const created = await createRollout({ config_version: await version('f3-pairs'), targets: { selector: { f3env: 'prod', f3tier: 'edge' } }, batch_size: 6 });
  expect(created.status).toBe(201);
  expect(created.body.selector).toEqual({ f3env: 'prod', f3tier: 'edge' });
  expect(created.body.targets.map((x: any) => x.node_id)).toEqual(['edge-23', 'edge-24']);
});

test('F4 a selector resolves once: a node labelled later is not added', async () => {
  await node(7, { f4: 'edge' });
  await node(8, { f4: 'edge', zone: 'b' });
  await node(9, { f4: 'core' });
  const v = await version('f4');
  const created = await createRollout({ config_version: v, targets: { selector: { f4: 'edge' } }, batch_size: 1 });
  expect(created.status).toBe(201);
  expect(created.body.selector).toEqual({ f4: 'edge' });
  expect(created.body.targets.map((x: any) => x.node_id)).toEqual(['edge-7', 'edge-8']);
  await asOperator('PUT', '/api/v1/nodes/edge-9/labels', { labels: { f4: 'edge' } });
  expect((await rollout(created.body.rollout_id)).targets.map((x: any) => x.node_id)).toEqual(['edge-7', 'edge-8']);
});

test('F5 G5 drained, stale and long-silent nodes that carry the labels are selected; creation succeeds and their wait is visible', async () => {
  skew = -600_000; // edge-11 last spoke ten minutes ago: offline now
  await node(11, { f5: 'x' });
  skew = 0;
  await node(10, { f5: 'x' });
  expect((await asOperator('POST', '/api/v1/nodes/edge-10/drain')).status).toBe(200);
  const v = await version('f5');
  const created = await createRollout({ config_version: v, targets: { selector: { f5: 'x' } }, batch_size: 2 });
  expect(created.status).toBe(201);
  const byNode = Object.fromEntries(created.body.targets.map((x: any) => [x.node_id, x]));
  expect(byNode['edge-10']).toMatchObject({ state: 'applying', waiting_on: { kind: 'node_draining', node_id: 'edge-10' } });
  expect(byNode['edge-11']).toMatchObject({ state: 'applying', waiting_on: { kind: 'node_offline', node_id: 'edge-11' } });
});

test('F6 an empty resolution is 422 no_matching_nodes and creates nothing', async () => {
  const v = await version('f6');
  const before = await rolloutEvents();
  const r = await createRollout({ config_version: v, targets: { selector: { f6: 'nobody' } } });
  expect(r).toMatchObject({ status: 422, body: { code: 'no_matching_nodes' } });
  expect(await rolloutEvents()).toBe(before);
});

test('G3 batch size 1..256, distinct non-empty nodes and a known version; one unknown node and nothing is created', async () => {
  await node(12);
  const v = await version('g3');
  const before = await rolloutEvents();
  for (const batch_size of [0, 257, 1.5]) {
    expect((await createRollout({ config_version: v, targets: { nodes: ['edge-12'] }, batch_size })).status).toBe(400);
  }
  expect((await createRollout({ config_version: v, targets: { nodes: [] } })).status).toBe(400);
  const dup = await createRollout({ config_version: v, targets: { nodes: ['edge-12', 'edge-12'] } });
  expect(dup.status).toBe(400);
  expect(dup.body.message).toMatch(/distinct/);
  expect(await createRollout({ config_version: 'cv_unknown', targets: { nodes: ['edge-12'] } })).toMatchObject({ status: 422, body: { code: 'config_version_not_found' } });
  const partly = await createRollout({ config_version: v, targets: { nodes: ['edge-12', 'edge-404'] } });
  expect(partly).toMatchObject({ status: 422, body: { code: 'unknown_nodes', details: { nodes: ['edge-404'] } } });
  expect(await rolloutEvents()).toBe(before);
  expect(await configIntents('edge-12')).toEqual([]);
  const ok = await createRollout({ config_version: v, targets: { nodes: ['edge-12'] } });
  expect(ok.body.batch_size).toBe(1);
});

test('G2 a failed target pauses the rollout; resume only from paused re-applies it; cancel; a terminal rollout refuses actions', async () => {
  const [a1] = [await node(13), await node(14)];
  const v = await version('g2');
  const id = (await createRollout({ config_version: v, targets: { nodes: ['edge-13', 'edge-14'] }, batch_size: 2 })).body.rollout_id;
  const act = (body: unknown) => asOperator('POST', `/api/v1/rollouts/${id}/actions`, body);
  expect((await act({ action: 'resume' })).body.code).toBe('invalid_transition');
  const refused = await refuseConfig(a1);
  await eventually(async () => ((await rollout(id)).state === 'paused' ? true : undefined));
  expect(await rollout(id)).toMatchObject({ paused_reason: 'target_failed' });
  expect((await targets(id))['edge-13']).toMatchObject({ state: 'failed', failure_class: 'permanent', failure_code: 'invalid_config', correlation_id: expect.any(String) });
  const resumed = await act({ action: 'resume' });
  expect(resumed.status).toBe(200);
  expect(resumed.body.state).toBe('applying');
  const retried = (await targets(id))['edge-13'];
  expect(retried.state).toBe('applying');
  expect(retried.intent_id).not.toBe(refused.intent_id);
  const [again] = await takeConfigAttempts(a1);
  expect(again.generation).toBe(refused.generation + 1);
  expect((await act({ action: 'pause' })).body.state).toBe('paused');
  expect((await act({ action: 'cancel' })).body.state).toBe('cancelled');
  expect((await configIntents('edge-14'))[0].state).toBe('superseded');
  for (const action of ['pause', 'resume', 'cancel']) expect(await act({ action })).toMatchObject({ status: 409, body: { code: 'rollout_terminal' } });
  // A cancelled rollout still takes a rollback to a version: on both targets, which were applying at the cancel (their applies may have run).
  expect(await act({ action: 'rollback', config_version: v })).toMatchObject({ status: 201, body: { kind: 'rollback', targets: [{ node_id: 'edge-13' }, { node_id: 'edge-14' }] } });
});

test('G2 a target that failed while the rollout was paused is recorded failed and applied again on resume', async () => {
  const a = await node(18);
  const v = await version('g2-paused');
  const id = (await createRollout({ config_version: v, targets: { nodes: ['edge-18'] } })).body.rollout_id;
  const act = (body: unknown) => asOperator('POST', `/api/v1/rollouts/${id}/actions`, body);
  expect((await act({ action: 'pause' })).body.state).toBe('paused');
  // The attempt already queued is refused while the rollout is paused: no pass settles it meanwhile.
  const refused = await refuseConfig(a);
  await eventually(async () => ((await configIntents('edge-18'))[0].state === 'blocked' ? true : undefined));
  const resumed = await act({ action: 'resume' });
  expect(resumed.body).toMatchObject({ state: 'applying' });
  const failures = await sql<{ data: { node_id: string; code: string } }>`
    SELECT data FROM events WHERE stream_id = ${`rollout:${id}`} AND type = 'RolloutTargetFailed'`.execute(t.db);
  expect(failures.rows.map((r) => [r.data.node_id, r.data.code])).toEqual([['edge-18', 'invalid_config']]);
  expect((await targets(id))['edge-18'].intent_id).not.toBe(refused.intent_id);
  const [again] = await takeConfigAttempts(a);
  expect(again.generation).toBe(refused.generation + 1);
  expect((await rollout(id)).state).toBe('applying');
});

test('G2 a resume racing the retirement of its failed target\'s node answers 200: the removed target stays cancelled and the next batch starts', async () => {
  const a = await node(44);
  await node(45);
  const id = (await createRollout({ config_version: await version('g2-retire-race'), targets: { nodes: ['edge-44', 'edge-45'] }, batch_size: 1 })).body.rollout_id;
  await refuseConfig(a);
  await settled(id, 'paused');
  // The retirement takes edge-44's lock first; the resume reads the rollout, then waits behind it for that lock.
  const holding = await t.db.startTransaction().execute();
  let retiring: ReturnType<typeof asOperator>;
  let resuming: ReturnType<typeof asOperator>;
  try {
    await sql`SELECT node_id FROM nodes WHERE node_id = 'edge-44' FOR UPDATE`.execute(holding);
    retiring = asOperator('DELETE', '/api/v1/nodes/edge-44?force=true');
    await waitingForLocks(t.db, 1);
    resuming = asOperator('POST', `/api/v1/rollouts/${id}/actions`, { action: 'resume' });
    await waitingForLocks(t.db, 2);
  } finally {
    await holding.commit().execute();
  }
  expect((await retiring).status).toBe(200);
  expect(await resuming).toMatchObject({ status: 200, body: { state: 'applying' } });
  await eventually(async () => ((await targets(id))['edge-45'].state === 'applying' ? true : undefined));
  expect((await targets(id))['edge-44']).toMatchObject({ state: 'cancelled', waiting_on: null });
});

test('G3 two rollouts created at once for one node: one is created, the other refused with target_in_rollout', async () => {
  await node(19);
  const [v1, v2] = [await version('g3-race-1'), await version('g3-race-2')];
  const answers = await Promise.all([v1, v2].map((v) => createRollout({ config_version: v, targets: { nodes: ['edge-19'] } })));
  expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
  expect(answers.find((r) => r.status === 409)!.body.code).toBe('target_in_rollout');
  const live = await sql<{ n: string }>`
    SELECT count(*) n FROM rollout_targets t JOIN rollouts r USING (rollout_id) WHERE t.node_id = 'edge-19' AND r.state IN ('applying', 'paused')`.execute(t.db);
  expect(Number(live.rows[0]!.n)).toBe(1);
});

test('G3 F5 a node retired after the selector resolved it, before its lock, is refused unknown_nodes whatever its batch; nothing is created', async () => {
  await node(42, { wave: 'retire-race' });
  await node(43, { wave: 'retire-race' });
  const v = await version('retire-race');
  const before = await rolloutEvents();
  // The creation resolves both nodes, then waits for edge-42's lock; meanwhile edge-43, of its second batch, is retired.
  const holding = await t.db.startTransaction().execute();
  let creating: ReturnType<typeof createRollout>;
  try {
    await sql`SELECT node_id FROM nodes WHERE node_id = 'edge-42' FOR UPDATE`.execute(holding);
    creating = createRollout({ config_version: v, targets: { selector: { wave: 'retire-race' } }, batch_size: 1 });
    await waitingForLocks(t.db);
    expect((await asOperator('DELETE', '/api/v1/nodes/edge-43?force=true')).status).toBe(200);
  } finally {
    await holding.commit().execute();
  }
  // Created, edge-43 would wait in batch 2 for good: no retirement removes it, and the pass that starts its batch fails.
  expect(await creating).toMatchObject({ status: 422, body: { code: 'unknown_nodes', details: { nodes: ['edge-43'] } } });
  expect(await rolloutEvents()).toBe(before);
  expect(await configIntents('edge-42')).toEqual([]);
});

test('G4 node-level apply and rollback are single-node rollouts', async () => {
  const a = await node(15);
  const [v1, v2] = [await version('g4-1'), await version('g4-2')];
  const applied = await asOperator('POST', '/api/v1/nodes/edge-15/configuration/apply', { config_version: v1 });
  expect(applied).toMatchObject({ status: 201, body: { kind: 'apply', config_version: v1, batch_size: 1, targets: [{ node_id: 'edge-15' }] } });
  await applyConfig(a);
  await settled(applied.body.rollout_id);
  const second = await asOperator('POST', '/api/v1/nodes/edge-15/configuration/apply', { config_version: v2 });
  await applyConfig(a);
  await settled(second.body.rollout_id);
  const back = await asOperator('POST', '/api/v1/nodes/edge-15/configuration/rollback', { config_version: v1 });
  expect(back).toMatchObject({ status: 201, body: { kind: 'rollback', config_version: v1 } });
  expect((await asOperator('POST', '/api/v1/nodes/edge-404/configuration/apply', { config_version: v1 })).body.code).toBe('unknown_nodes');
});

test('G6 a rollback is a new rollout, intent and generation; the failed version, its failure class and correlation id stay visible', async () => {
  const a = await node(16);
  const [good, bad] = [await version('g6-good'), await version('g6-bad')];
  const first = await asOperator('POST', '/api/v1/nodes/edge-16/configuration/apply', { config_version: good });
  await applyConfig(a);
  await settled(first.body.rollout_id);
  const failed = await createRollout({ config_version: bad, targets: { nodes: ['edge-16'] } });
  const refused = await refuseConfig(a);
  await settled(failed.body.rollout_id, 'paused');
  const back = await asOperator('POST', `/api/v1/rollouts/${failed.body.rollout_id}/actions`, { action: 'rollback', config_version: good });
  expect(back).toMatchObject({ status: 201, body: { kind: 'rollback', config_version: good, rollback_of: failed.body.rollout_id } });
  const old = await rollout(failed.body.rollout_id);
  expect(old).toMatchObject({ state: 'rolled_back', rolled_back_by: back.body.rollout_id, config_version: bad });
  expect(old.targets[0]).toMatchObject({ state: 'failed', failure_class: 'permanent', failure_code: 'invalid_config', correlation_id: expect.any(String) });
  const intents = await configIntents('edge-16');
  const oldIntent = intents.find((i) => i.intent_id === refused.intent_id);
  expect(oldIntent).toMatchObject({ state: 'superseded', failure_class: 'permanent', failure_code: 'invalid_config', config_version: bad });
  const [attempt] = await takeConfigAttempts(a);
  expect(attempt).toMatchObject({ config_version: good, generation: refused.generation + 1 });
  a.apply(attempt);
  await a.report();
  await eventually(async () => ((await rollout(back.body.rollout_id)).state === 'converged' ? true : undefined));
});

test('G6 a rollback to a version of a rollout stopped after its first batch goes to that batch alone: the nodes it never changed get no apply', async () => {
  const [base, next] = [await version('stopped-base'), await version('stopped-next')];
  const agents = [await node(46), await node(47), await node(48)];
  for (const a of agents) {
    a.appliedConfig = base;
    expect((await a.report()).status).toBe(202);
  }
  const id = (await createRollout({ config_version: next, targets: { nodes: ['edge-46', 'edge-47', 'edge-48'] }, batch_size: 1 })).body.rollout_id;
  await applyConfig(agents[0]!);
  await eventually(async () => ((await targets(id))['edge-47'].state === 'applying' ? true : undefined));
  expect((await asOperator('POST', `/api/v1/rollouts/${id}/actions`, { action: 'pause' })).status).toBe(200);

  const back = await asOperator('POST', `/api/v1/rollouts/${id}/actions`, { action: 'rollback', config_version: base });
  expect(back.status).toBe(201);
  // edge-46 converged on the new version, edge-47's apply was sent: both go back. edge-48's batch never started.
  expect(back.body.targets.map((x: any) => [x.node_id, x.batch])).toEqual([
    ['edge-46', 0],
    ['edge-47', 1],
  ]);
  expect(Object.fromEntries(Object.values(await targets(id)).map((x: any) => [x.node_id, x.state]))).toEqual({ 'edge-46': 'converged', 'edge-47': 'cancelled', 'edge-48': 'cancelled' });
  expect(await applyConfig(agents[0]!)).toMatchObject({ operation: 'config_apply', config_version: base });
  await eventually(async () => ((await rollout(back.body.rollout_id)).current_batch === 1 ? true : undefined));
  expect(await applyConfig(agents[1]!)).toMatchObject({ operation: 'config_apply', config_version: base });
  await settled(back.body.rollout_id);
  expect(await configIntents('edge-48')).toEqual([]);
  expect(await agents[2]!.attempts()).toEqual([]);
});

test('a node in a live rollout is not taken by another until that one ends', async () => {
  await node(17);
  const v = await version('busy');
  const first = await createRollout({ config_version: v, targets: { nodes: ['edge-17'] } });
  const second = await createRollout({ config_version: v, targets: { nodes: ['edge-17'] } });
  expect(second).toMatchObject({ status: 409, body: { code: 'target_in_rollout', details: { nodes: { 'edge-17': first.body.rollout_id } } } });
  await asOperator('POST', `/api/v1/rollouts/${first.body.rollout_id}/actions`, { action: 'cancel' });
  expect((await createRollout({ config_version: v, targets: { nodes: ['edge-17'] } })).status).toBe(201);
});

test('G6 I2 a rollout one of whose nodes was retired after it converged rolls back without that node: by scope and to a version', async () => {
  const [base, next] = [await version('retired-base'), await version('retired-next')];
  const [kept, gone] = [await node(39), await node(40)];
  for (const a of [kept, gone]) {
    a.appliedConfig = base;
    expect((await a.report()).status).toBe(202);
  }
  const created = await createRollout({ config_version: next, targets: { nodes: ['edge-39', 'edge-40'] }, batch_size: 2 });
  expect(created.status).toBe(201);
  const id = created.body.rollout_id;
  for (const a of [kept, gone]) {
    const [attempt] = await takeConfigAttempts(a);
    a.recoveryPoints = [{ ref: recoveryRef(attempt.attempt_id), config_version: base }];
    a.apply(attempt);
    expect((await a.result(attempt.attempt_id, { outcome: 'succeeded', generation: attempt.generation })).status).toBe(200);
    expect((await a.report()).status).toBe(202);
  }
  await settled(id);
  expect((await asOperator('DELETE', '/api/v1/nodes/edge-40')).status).toBe(200);
  const act = (body: unknown) => asOperator('POST', `/api/v1/rollouts/${id}/actions`, body);

  // By scope: the retired node alone has nothing left to restore; every changed target means those still here.
  expect(await act({ action: 'rollback', scope: 'target', node_id: 'edge-40' })).toMatchObject({ status: 409, body: { code: 'nothing_to_restore' } });
  const restored = await act({ action: 'rollback', scope: 'all_changed' });
  expect(restored.status).toBe(200);
  expect(Object.fromEntries(restored.body.targets.map((x: any) => [x.node_id, x.recovery_phase]))).toEqual({ 'edge-39': 'restoring', 'edge-40': null });
  const restore = await applyConfig(kept);
  expect(restore).toMatchObject({ operation: 'restore', config_version: base });
  await eventually(async () => ((await targets(id))['edge-39'].recovery_phase === 'complete' ? true : undefined));

  // To a version: the new rollout's targets are the nodes still here.
  const back = await act({ action: 'rollback', config_version: next });
  expect(back.status).toBe(201);
  expect((await rollout(back.body.rollout_id)).targets.map((x: any) => x.node_id)).toEqual(['edge-39']);
  expect(await applyConfig(kept)).toMatchObject({ operation: 'config_apply', config_version: next });
  await settled(back.body.rollout_id);
});

/** The node takes its apply, captures the recovery point of what it ran (`was`), applies, answers and reports. */
async function applyCapturing(agent: TestAgent, was: string): Promise<any> {
  const [attempt] = await takeConfigAttempts(agent);
  agent.recoveryPoints = [...agent.recoveryPoints, { ref: recoveryRef(attempt.attempt_id), config_version: was }];
  agent.apply(attempt);
  expect((await agent.result(attempt.attempt_id, { outcome: 'succeeded', generation: attempt.generation })).status).toBe(200);
  expect((await agent.report()).status).toBe(202);
  return attempt;
}

test('I2 G3 G6 a rollback by scope of an ended rollout on a node another live rollout targets is target_in_rollout; once that rollout changed the node, rollout_superseded, ended or not', async () => {
  const [v0, v1, v2] = [await version('taken-v0'), await version('taken-v1'), await version('taken-v2')];
  const [other, a] = [await node(29), await node(41)];
  a.appliedConfig = v0;
  expect((await a.report()).status).toBe(202);
  const first = (await createRollout({ config_version: v1, targets: { nodes: ['edge-41'] } })).body;
  await applyCapturing(a, v0);
  await settled(first.rollout_id);
  const restore = () => asOperator('POST', `/api/v1/rollouts/${first.rollout_id}/actions`, { action: 'rollback', scope: 'target', node_id: 'edge-41' });
  // edge-41 is in the second rollout's second batch, not started yet.
  const second = (await createRollout({ config_version: v2, targets: { nodes: ['edge-29', 'edge-41'] }, batch_size: 1 })).body;
  expect(await restore()).toMatchObject({ status: 409, body: { code: 'target_in_rollout', details: { nodes: { 'edge-41': second.rollout_id } } } });
  await applyConfig(other);
  await eventually(async () => ((await targets(second.rollout_id))['edge-41'].state === 'applying' ? true : undefined));
  const superseded = { status: 409, body: { code: 'rollout_superseded', details: { nodes: { 'edge-41': second.rollout_id }, rollouts: [second.rollout_id] } } };
  expect(await restore()).toMatchObject(superseded);
  expect(await applyConfig(a)).toMatchObject({ operation: 'config_apply', config_version: v2 });
  await settled(second.rollout_id);
  // Ended, the second rollout is still the node's latest change: restoring the first's point would undo it.
  expect(await restore()).toMatchObject(superseded);
  expect(await a.attempts()).toEqual([]);
});

test('G6 I2 G4 a rollback of a rollout a later one changed a node of since is refused rollout_superseded, by scope and to a version, changing nothing; a node it changed last is restored', async () => {
  const [v0, v1, v2] = [await version('later-v0'), await version('later-v1'), await version('later-v2')];
  const agents = [await node(49), await node(50)];
  for (const x of agents) {
    x.appliedConfig = v0;
    expect((await x.report()).status).toBe(202);
  }
  const r1 = (await createRollout({ config_version: v1, targets: { nodes: ['edge-49', 'edge-50'] }, batch_size: 2 })).body.rollout_id;
  for (const x of agents) await applyCapturing(x, v0);
  await settled(r1);
  // A node-level apply (a single-node rollout, G4) moves edge-49 on to v2.
  const r2 = (await asOperator('POST', '/api/v1/nodes/edge-49/configuration/apply', { config_version: v2 })).body.rollout_id;
  await applyCapturing(agents[0]!, v1);
  await settled(r2);

  const act = (body: unknown) => asOperator('POST', `/api/v1/rollouts/${r1}/actions`, body);
  const before = await rolloutEvents();
  const superseded = { status: 409, body: { code: 'rollout_superseded', details: { nodes: { 'edge-49': r2 }, rollouts: [r2] } } };
  expect(await act({ action: 'rollback', scope: 'all_changed' })).toMatchObject(superseded);
  expect(await act({ action: 'rollback', scope: 'target', node_id: 'edge-49' })).toMatchObject(superseded);
  expect(await act({ action: 'rollback', config_version: v0 })).toMatchObject(superseded);
  expect((await act({ action: 'rollback', config_version: v0 })).body.message).toMatch(new RegExp(`roll back ${r2} instead, or create a rollout of the version you want`));
  expect(await rolloutEvents()).toBe(before);
  expect(await rollout(r1)).toMatchObject({ state: 'converged', rolled_back_by: null });
  for (const x of agents) expect(await x.attempts()).toEqual([]);

  // edge-50 was changed by r1 last: its point is restored.
  expect((await act({ action: 'rollback', scope: 'target', node_id: 'edge-50' })).status).toBe(200);
  expect(await applyConfig(agents[1]!)).toMatchObject({ operation: 'restore', config_version: v0 });
  // Rolled back in its turn, the later rollout is still edge-49's latest change.
  expect((await asOperator('POST', `/api/v1/rollouts/${r2}/actions`, { action: 'rollback', scope: 'all_changed' })).status).toBe(200);
  expect(await applyConfig(agents[0]!)).toMatchObject({ operation: 'restore', config_version: v1 });
  expect(await act({ action: 'rollback', scope: 'all_changed' })).toMatchObject(superseded);
});

test('G2 G6 I2 a cancelled rollout is rolled back by scope on the targets it changed, to a version on those and the ones it was applying; once rolled back, it refuses rollout_terminal', async () => {
  const [v0, v1] = [await version('cancelled-v0'), await version('cancelled-v1')];
  const agents = [await node(51), await node(52), await node(53)];
  for (const x of agents) {
    x.appliedConfig = v0;
    expect((await x.report()).status).toBe(202);
  }
  const id = (await createRollout({ config_version: v1, targets: { nodes: ['edge-51', 'edge-52', 'edge-53'] }, batch_size: 1 })).body.rollout_id;
  await applyCapturing(agents[0]!, v0);
  await eventually(async () => ((await targets(id))['edge-52'].state === 'applying' ? true : undefined));
  expect((await asOperator('POST', `/api/v1/rollouts/${id}/actions`, { action: 'cancel' })).body.state).toBe('cancelled');
  const act = (body: unknown) => asOperator('POST', `/api/v1/rollouts/${id}/actions`, body);

  // By scope: edge-51, which converged before the cancel, is restored; edge-52, cancelled with the rollout, holds no claim (I6) and is out of scope.
  const restored = await act({ action: 'rollback', scope: 'all_changed' });
  expect(restored.status).toBe(200);
  expect(Object.fromEntries(restored.body.targets.map((x: any) => [x.node_id, [x.state, x.recovery_phase]]))).toEqual({
    'edge-51': ['converged', 'restoring'],
    'edge-52': ['cancelled', null],
    'edge-53': ['cancelled', null],
  });
  expect(await act({ action: 'rollback', scope: 'target', node_id: 'edge-52' })).toMatchObject({ status: 409, body: { code: 'nothing_to_restore', details: { cancelled: ['edge-52'] } } });
  expect(await applyConfig(agents[0]!)).toMatchObject({ operation: 'restore', config_version: v0 });
  await eventually(async () => ((await targets(id))['edge-51'].recovery_phase === 'complete' ? true : undefined));

  // To a version: a new rollout on edge-51, the target it changed, and edge-52, which it was applying to at the
  // cancel (the apply may have run; the new rollout's own claims hold there); this one becomes rolled_back.
  const back = await act({ action: 'rollback', config_version: v0 });
  expect(back).toMatchObject({ status: 201, body: { kind: 'rollback', rollback_of: id, targets: [{ node_id: 'edge-51' }, { node_id: 'edge-52' }] } });
  expect(await rollout(id)).toMatchObject({ state: 'rolled_back', rolled_back_by: back.body.rollout_id });
  expect(await applyConfig(agents[0]!)).toMatchObject({ operation: 'config_apply', config_version: v0 });
  expect(await applyConfig(agents[1]!)).toMatchObject({ operation: 'config_apply', config_version: v0 });
  await settled(back.body.rollout_id);
  for (const body of [{ action: 'rollback', config_version: v0 }, { action: 'rollback', scope: 'all_changed' }]) {
    expect(await act(body)).toMatchObject({ status: 409, body: { code: 'rollout_terminal' } });
  }
  expect(await agents[2]!.attempts()).toEqual([]);
});

test('rollouts and configuration versions list newest first, a page at a time; a bad cursor is 400', async () => {
  // Five of each of its own (each rollout cancelled, so that it holds its node from no other test).
  await node(35);
  for (let i = 0; i < 5; i++) {
    const created = await createRollout({ config_version: await version(`paged-${i}`), targets: { nodes: ['edge-35'] } });
    expect(created.status).toBe(201);
    expect((await asOperator('POST', `/api/v1/rollouts/${created.body.rollout_id}/actions`, { action: 'cancel' })).body.state).toBe('cancelled');
  }
  for (const path of ['/api/v1/rollouts', '/api/v1/config-versions']) {
    const all = (await hub.call('GET', path)).body.items.map((x: any) => x.rollout_id ?? x.config_version);
    expect(all.length).toBeGreaterThan(4);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = (await hub.call('GET', `${path}?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).body;
      paged.push(...page.items.map((x: any) => x.rollout_id ?? x.config_version));
      cursor = page.next_cursor;
    } while (cursor);
    expect(paged).toEqual(all);
    expect((await hub.call('GET', `${path}?cursor=nonsense`)).body.code).toBe('invalid_request');
  }
});

test('metrics count rollouts by state, recovery holds and approval requests', async () => {
  const a = await node(36);
  const id = (await createRollout({ config_version: await version('metrics'), targets: { nodes: ['edge-36'] } })).body.rollout_id;
  await applyConfig(a);
  await settled(id);
  const text = (await hub.call('GET', '/metrics', { token: null })).body as string;
  expect(text).toMatch(/^fleetplane_rollouts\{state="converged"\} [1-9]/m);
  expect(text).toMatch(/^fleetplane_recovery_holds 0$/m);
  expect(text).toMatch(/^# TYPE fleetplane_config_approvals gauge$/m);
});

test('J3 configuration versions, configuration intents, rollouts and their targets rebuild exactly from the log', async () => {
  // A rollout of its own, one target converged and one failed, beside whatever the other tests left.
  const [a, b] = [await node(37), await node(38)];
  const id = (await createRollout({ config_version: await version('j3'), targets: { nodes: ['edge-37', 'edge-38'] }, batch_size: 2 })).body.rollout_id;
  await applyConfig(a);
  await refuseConfig(b);
  await settled(id, 'paused');
  expect(Object.values(await targets(id)).map((x: any) => x.state).sort()).toEqual(['converged', 'failed']);
  expect(await verifyProjections(t.db, allProjections)).toEqual([]);
});
