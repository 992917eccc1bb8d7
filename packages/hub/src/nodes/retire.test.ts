import { recoveryRef } from '@fleetplane/core';
import { sql } from 'kysely';
import pg from 'pg';
import { eventually, takeConfigAttempts, TestAgent } from '../../../../test/support/fleet.ts';
import { testConfig, TOKENS } from '../../../../test/support/hub.ts';
import { hubSuite } from '../../../../test/support/hub-suite.ts';

// Issue 22: DELETE /nodes/{id} retires a node, refused with a stable code while it has live intents or is in a
// running rollout unless forced; its credential stops working; every retirement is an audited event.

const suite = hubSuite({ config: testConfig(16) });

const as = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  suite.hub.call(method, path, { token: TOKENS.operator, headers, ...(body !== undefined ? { body } : {}) });
const retire = (node: string, force = false, headers: Record<string, string> = {}) => as('DELETE', `/api/v1/nodes/${node}${force ? '?force=true' : ''}`, undefined, headers);
const events = async (where: string) => Number((await sql<{ n: string }>`SELECT count(*) n FROM events WHERE ${sql.raw(where)}`.execute(suite.t.db)).rows[0]!.n);

const node = (id: string): Promise<TestAgent> => TestAgent.reporting(suite.hub, id);

test('K1 K3 an idle node is retired: gone from GET /nodes, not found by id, recorded with actor and correlation id', async () => {
  await node('edge-5');
  const r = await retire('edge-5', false, { 'x-correlation-id': 'retire-edge-5' });
  expect(r).toMatchObject({ status: 200, body: { node_id: 'edge-5', forced: false, retired_by: 'bob', correlation_id: 'retire-edge-5', superseded_intents: [], rollouts: [] } });
  const [event] = (await sql<any>`SELECT data, metadata FROM event_history WHERE type = 'NodeRetired' AND stream_id = 'node:edge-5'`.execute(suite.t.db)).rows;
  expect(event).toMatchObject({ data: { node_id: 'edge-5', forced: false }, metadata: { actor: 'bob', role: 'operator', correlation_id: 'retire-edge-5' } });
  const listed = (await as('GET', '/api/v1/nodes')).body.items.map((n: any) => n.node_id);
  expect(listed).not.toContain('edge-5');
  const one = await as('GET', '/api/v1/nodes/edge-5');
  expect(one).toMatchObject({ status: 404, body: { code: 'node_not_found', details: { node_id: 'edge-5', retired_at: r.body.retired_at } } });
  // Retiring it again is not found (as kubectl deletes a deleted node), and records nothing.
  expect(await retire('edge-5', true)).toMatchObject({ status: 404, body: { code: 'node_not_found' } });
  expect(await events(`type = 'NodeRetired' AND stream_id = 'node:edge-5'`)).toBe(1);
  expect(await retire('edge-never')).toMatchObject({ status: 404, body: { code: 'node_not_found' } });
});

test('K3 a retired node\'s credential is refused on every agent route with node_retired (403), audited; it never registers again', async () => {
  const agent = await node('edge-6');
  expect((await retire('edge-6')).status).toBe(200);
  const denied = await events(`type = 'AccessDenied' AND data->>'reason' = 'node_retired'`);
  expect(await agent.register()).toMatchObject({ status: 403, body: { code: 'node_retired', details: { node_id: 'edge-6' } } });
  expect(await agent.register({ boot_id: 'edge-6-boot-2' })).toMatchObject({ status: 403, body: { code: 'node_retired' } });
  expect(await agent.report()).toMatchObject({ status: 403, body: { code: 'node_retired' } });
  expect(await agent.call('GET', '/api/v1/agent/attempts?wait=0')).toMatchObject({ status: 403, body: { code: 'node_retired', details: { node_id: 'edge-6' } } });
  expect(await agent.result('at_whatever', { outcome: 'succeeded', generation: 1 })).toMatchObject({ status: 403, body: { code: 'node_retired', details: { node_id: 'edge-6' } } });
  expect(await events(`type = 'AccessDenied' AND data->>'reason' = 'node_retired'`)).toBe(denied + 5);
  expect((await as('GET', '/api/v1/nodes/edge-6')).status).toBe(404);
  expect(await events(`type = 'NodeRegistered' AND stream_id = 'node:edge-6'`)).toBe(1);
});

test('K3 a long poll held when its node is retired is answered node_retired (403) then, not at the end of its wait', async () => {
  const agent = await node('edge-16');
  const polling = agent.call('GET', '/api/v1/agent/attempts?wait=60');
  // Past its first look, the poll waits (a retirement before it would be refused by the first look alike).
  await new Promise((r) => setTimeout(r, 500));
  expect((await retire('edge-16')).status).toBe(200);
  expect(await polling).toMatchObject({ status: 403, body: { code: 'node_retired', details: { node_id: 'edge-16' } } });
}, 90_000);

test('K3 A1 a desired write whose placement names a retired node is refused 422 retired_nodes and records nothing', async () => {
  await node('edge-15');
  expect((await retire('edge-15')).status).toBe(200);
  const before = await events('true');
  const placed = { desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: ['edge-15', 'edge-never-seen'] } };
  expect(await as('PUT', '/api/v1/streams/on-retired', placed)).toMatchObject({ status: 422, body: { code: 'retired_nodes', details: { nodes: ['edge-15'] } } });
  expect(await events('true')).toBe(before);
  expect((await as('GET', '/api/v1/streams/on-retired')).status).toBe(404);
  // A node not registered yet is placed as before: its intent waits for the registration.
  expect((await as('PUT', '/api/v1/streams/on-retired', { ...placed, placement: { nodes: ['edge-never-seen'] } })).status).toBe(200);
});

test('K1 K2 K3 a node with live intents is refused with node_has_live_intents and nothing changes; forced, its intents are superseded and queued attempts withdrawn', async () => {
  const agent1 = await node('edge-1');
  await as('PUT', '/api/v1/settings/reconciliation', { mode: 'observe' }); // the attempt stays queued, not handed out
  await as('PUT', '/api/v1/streams/live-on-1', { desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: ['edge-1'] } });
  await as('PUT', '/api/v1/settings/reconciliation', { mode: 'lifecycle' });
  const queued = await eventually(async () => (await sql<{ attempt_id: string }>`SELECT attempt_id FROM attempts WHERE stream_id = 'live-on-1' AND state = 'queued'`.execute(suite.t.db)).rows[0]);
  const intent = (await sql<{ intent_id: string }>`SELECT intent_id FROM intents WHERE stream_id = 'live-on-1'`.execute(suite.t.db)).rows[0]!.intent_id;
  const before = await events('true');
  expect(await retire('edge-1')).toMatchObject({ status: 409, body: { code: 'node_has_live_intents', details: { node_id: 'edge-1', intents: [intent] } } });
  expect(await events('true')).toBe(before);
  expect((await as('GET', '/api/v1/nodes/edge-1')).status).toBe(200);

  const forced = await retire('edge-1', true);
  expect(forced).toMatchObject({ status: 200, body: { forced: true, superseded_intents: [intent], rollouts: [] } });
  expect((await as('GET', `/api/v1/intents/${intent}`)).body).toMatchObject({ state: 'superseded', superseded_by: null });
  const [attempt] = (await sql<{ state: string }>`SELECT state FROM attempts WHERE attempt_id = ${queued.attempt_id}`.execute(suite.t.db)).rows;
  expect(attempt!.state).toBe('superseded');
  // Its agent's answer to its own attempt, which is still there, is refused for the retirement, audited.
  const denied = await events(`type = 'AccessDenied' AND data->>'reason' = 'node_retired'`);
  expect(await agent1.result(queued.attempt_id, { outcome: 'succeeded', generation: 1 })).toMatchObject({ status: 403, body: { code: 'node_retired', details: { node_id: 'edge-1' } } });
  expect(await events(`type = 'AccessDenied' AND data->>'reason' = 'node_retired'`)).toBe(denied + 1);
  // What it reported is forgotten with it: the stream shows no observed state from a retired node.
  expect((await as('GET', '/api/v1/streams/live-on-1')).body.observed).toEqual({});
});

test('K1 K2 a target of a running rollout is refused with node_in_running_rollout; forced, it leaves the rollout as a cancelled target and the rollout goes on', async () => {
  const a3 = await node('edge-3');
  await node('edge-4');
  const version = (await as('POST', '/api/v1/config-versions', { content: 'retire', format: 'text' })).body.config_version;
  await as('PUT', '/api/v1/settings/reconciliation', { mode: 'configuration' });
  const rollout = (await as('POST', '/api/v1/rollouts', { config_version: version, targets: { nodes: ['edge-3', 'edge-4'] }, batch_size: 1 })).body;
  expect(rollout.state).toBe('applying');
  // The first batch's attempt is queued by a job after the answer: counted once it is there, so the count
  // below moves only if a refusal wrote something.
  await eventually(async () => (await sql<{ n: string }>`SELECT attempt_id FROM attempts WHERE node_id = 'edge-3' AND state = 'queued'`.execute(suite.t.db)).rows[0]);
  const before = await events('true');
  expect(await retire('edge-4')).toMatchObject({ status: 409, body: { code: 'node_in_running_rollout', details: { node_id: 'edge-4', rollouts: [rollout.rollout_id] } } });
  expect(await retire('edge-4', false, { 'idempotency-key': 'k-refused' })).toMatchObject({ status: 409 });
  expect(await events('true')).toBe(before);

  const forced = await retire('edge-4', true, { 'idempotency-key': 'k-retire-4' });
  expect(forced).toMatchObject({ status: 200, body: { forced: true, rollouts: [rollout.rollout_id] } });
  // The same Idempotency-Key answers the first answer and writes nothing.
  const again = await retire('edge-4', true, { 'idempotency-key': 'k-retire-4' });
  expect(again.status).toBe(200);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(again.body).toEqual(forced.body);
  const view = (await as('GET', `/api/v1/rollouts/${rollout.rollout_id}`)).body;
  expect(view.targets.find((x: any) => x.node_id === 'edge-4')).toMatchObject({ state: 'cancelled' });

  // edge-3 converges its batch; the next batch held only the retired node: the rollout converges.
  const taken = await takeConfigAttempts(a3);
  for (const attempt of taken) {
    a3.apply(attempt);
    await a3.result(attempt.attempt_id, { outcome: 'succeeded', generation: attempt.generation });
  }
  await a3.report();
  await eventually(async () => ((await as('GET', `/api/v1/rollouts/${rollout.rollout_id}`)).body.state === 'converged' ? true : undefined));
  await as('PUT', '/api/v1/settings/reconciliation', { mode: 'lifecycle' });
});

test('K2 I5 forced, a node whose converged target holds a recovery claim leaves its running rollout: nothing holds the rollout any more', async () => {
  const [a7, a8] = [await node('edge-7'), await node('edge-8')];
  await as('PUT', '/api/v1/settings/reconciliation', { mode: 'configuration' });
  const [base, version] = [
    (await as('POST', '/api/v1/config-versions', { content: 'retire-claim-base', format: 'text' })).body.config_version,
    (await as('POST', '/api/v1/config-versions', { content: 'retire-claim', format: 'text' })).body.config_version,
  ];
  const rollout = (await as('POST', '/api/v1/rollouts', { config_version: version, targets: { nodes: ['edge-7', 'edge-8'] }, batch_size: 2 })).body;
  const view = async () => (await as('GET', `/api/v1/rollouts/${rollout.rollout_id}`)).body;
  const [apply] = await takeConfigAttempts(a7);
  a7.recoveryPoints = [{ ref: recoveryRef(apply.attempt_id), config_version: base }];
  a7.apply(apply);
  await a7.result(apply.attempt_id, { outcome: 'succeeded', generation: apply.generation });
  await a7.report();
  // edge-7's restore fails mid-write: a moved claim on its converged target holds the rollout.
  await eventually(async () => ((await view()).targets.find((x: any) => x.node_id === 'edge-7').state === 'converged' ? true : undefined));
  expect((await as('POST', `/api/v1/rollouts/${rollout.rollout_id}/actions`, { action: 'rollback', scope: 'target', node_id: 'edge-7' })).status).toBe(200);
  const [restore] = await takeConfigAttempts(a7);
  await a7.result(restore.attempt_id, { outcome: 'failed', generation: restore.generation, failure_class: 'permanent', code: 'restore_write_failed', mutation: 'post_mutation' });
  await eventually(async () => ((await view()).recovery === 'recovery_required' ? true : undefined));

  expect(await retire('edge-7', true)).toMatchObject({ status: 200, body: { forced: true, rollouts: [rollout.rollout_id] } });
  expect(await view()).toMatchObject({ recovery: 'none' });
  expect((await view()).targets.find((x: any) => x.node_id === 'edge-7')).toMatchObject({ state: 'cancelled', recovery_claim: { class: 'post_mutation' } });
  const [other] = await takeConfigAttempts(a8);
  a8.apply(other);
  await a8.result(other.attempt_id, { outcome: 'succeeded', generation: other.generation });
  await a8.report();
  await eventually(async () => ((await view()).state === 'converged' ? true : undefined));
  await as('PUT', '/api/v1/settings/reconciliation', { mode: 'lifecycle' });
});

test('K2 I5 a converged rollout whose target on a retired node holds a recovery claim no longer shows recovery_required', async () => {
  const a9 = await node('edge-9');
  await as('PUT', '/api/v1/settings/reconciliation', { mode: 'configuration' });
  const [base, version] = [
    (await as('POST', '/api/v1/config-versions', { content: 'ended-claim-base', format: 'text' })).body.config_version,
    (await as('POST', '/api/v1/config-versions', { content: 'ended-claim', format: 'text' })).body.config_version,
  ];
  const applied = await as('POST', '/api/v1/nodes/edge-9/configuration/apply', { config_version: version });
  expect(applied.status).toBe(201);
  const view = async () => (await as('GET', `/api/v1/rollouts/${applied.body.rollout_id}`)).body;
  const [apply] = await takeConfigAttempts(a9);
  a9.recoveryPoints = [{ ref: recoveryRef(apply.attempt_id), config_version: base }];
  a9.apply(apply);
  await a9.result(apply.attempt_id, { outcome: 'succeeded', generation: apply.generation });
  await a9.report();
  await eventually(async () => ((await view()).state === 'converged' ? true : undefined));
  expect((await as('POST', `/api/v1/rollouts/${applied.body.rollout_id}/actions`, { action: 'rollback', scope: 'target', node_id: 'edge-9' })).status).toBe(200);
  const [restore] = await takeConfigAttempts(a9);
  await a9.result(restore.attempt_id, { outcome: 'failed', generation: restore.generation, failure_class: 'permanent', code: 'restore_write_failed', mutation: 'post_mutation' });
  await eventually(async () => ((await view()).recovery === 'recovery_required' ? true : undefined));

  // The failed restore's blocked intent refuses a plain retirement; forced, the claim's target leaves with the node.
  expect(await retire('edge-9')).toMatchObject({ status: 409, body: { code: 'node_has_live_intents' } });
  expect(await retire('edge-9', true)).toMatchObject({ status: 200, body: { rollouts: [applied.body.rollout_id] } });
  expect(await view()).toMatchObject({ state: 'converged', recovery: 'none' });
  expect((await view()).targets[0]).toMatchObject({ state: 'cancelled', recovery_claim: { class: 'post_mutation' } });
  await as('PUT', '/api/v1/settings/reconciliation', { mode: 'lifecycle' });
});

/** A configuration version of this content. */
const version = async (content: string): Promise<string> => (await as('POST', '/api/v1/config-versions', { content, format: 'text' })).body.config_version;

/** Takes the agent's configuration attempt, applies it capturing a point of `base`, and reports it. */
async function converge(agent: TestAgent, base: string): Promise<void> {
  const [apply] = await takeConfigAttempts(agent);
  agent.recoveryPoints = [{ ref: recoveryRef(apply.attempt_id), config_version: base }];
  agent.apply(apply);
  await agent.result(apply.attempt_id, { outcome: 'succeeded', generation: apply.generation });
  await agent.report();
}

test('K2 I5 forced, a node whose restore is in flight leaves its running rollout: the rollout goes on and converges', async () => {
  const [a10, a11] = [await node('edge-10'), await node('edge-11')];
  await as('PUT', '/api/v1/settings/reconciliation', { mode: 'configuration' });
  const [base, next] = [await version('restoring-base'), await version('restoring-next')];
  const rollout = (await as('POST', '/api/v1/rollouts', { config_version: next, targets: { nodes: ['edge-10', 'edge-11'] }, batch_size: 1 })).body;
  const view = async () => (await as('GET', `/api/v1/rollouts/${rollout.rollout_id}`)).body;
  await converge(a10, base);
  const [apply11] = await takeConfigAttempts(a11);
  // edge-10's restore is taken (dispatched), then the machine is retired.
  expect((await as('POST', `/api/v1/rollouts/${rollout.rollout_id}/actions`, { action: 'rollback', scope: 'target', node_id: 'edge-10' })).status).toBe(200);
  const [restore] = await takeConfigAttempts(a10);
  expect(restore.operation).toBe('restore');
  expect(await retire('edge-10')).toMatchObject({ status: 409, body: { code: 'node_in_running_rollout' } });
  expect(await retire('edge-10', true)).toMatchObject({ status: 200, body: { rollouts: [rollout.rollout_id] } });
  expect(await view()).toMatchObject({ recovery: 'none' });
  a11.apply(apply11);
  await a11.result(apply11.attempt_id, { outcome: 'succeeded', generation: apply11.generation });
  await a11.report();
  await eventually(async () => ((await view()).state === 'converged' ? true : undefined));
  expect((await view()).targets.find((x: any) => x.node_id === 'edge-10')).toMatchObject({ state: 'cancelled' });
  await as('PUT', '/api/v1/settings/reconciliation', { mode: 'lifecycle' });
});

test('K2 I5 I9 a converged rollout whose restore on a node retired since was still queued records it not sent: a rollback to a version is taken', async () => {
  const [a12, a13] = [await node('edge-12'), await node('edge-13')];
  await as('PUT', '/api/v1/settings/reconciliation', { mode: 'configuration' });
  const [base, next] = [await version('queued-restore-base'), await version('queued-restore-next')];
  const rollout = (await as('POST', '/api/v1/rollouts', { config_version: next, targets: { nodes: ['edge-12', 'edge-13'] }, batch_size: 2 })).body;
  const view = async () => (await as('GET', `/api/v1/rollouts/${rollout.rollout_id}`)).body;
  await converge(a12, base);
  await converge(a13, base);
  await eventually(async () => ((await view()).state === 'converged' ? true : undefined));
  // A restore on edge-12, queued, not taken; its live intent refuses a plain retirement.
  expect((await as('POST', `/api/v1/rollouts/${rollout.rollout_id}/actions`, { action: 'rollback', scope: 'target', node_id: 'edge-12' })).status).toBe(200);
  expect(await view()).toMatchObject({ recovery: 'restoring' });
  expect(await retire('edge-12')).toMatchObject({ status: 409, body: { code: 'node_has_live_intents' } });
  expect(await retire('edge-12', true)).toMatchObject({ status: 200, body: { rollouts: [rollout.rollout_id] } });
  expect(await view()).toMatchObject({ state: 'converged', recovery: 'none' });
  // The rollout's pass records the withdrawn restore's terminal: nothing was sent, nothing moved (I9).
  await eventually(async () => ((await view()).targets.find((x: any) => x.node_id === 'edge-12').recovery_phase === 'failed' ? true : undefined));
  expect((await view()).targets.find((x: any) => x.node_id === 'edge-12')).toMatchObject({ state: 'cancelled', recovery_claim: { class: 'pre_mutation', code: 'restore_not_sent' } });
  expect(await as('POST', `/api/v1/rollouts/${rollout.rollout_id}/actions`, { action: 'rollback', config_version: base })).toMatchObject({ status: 201 });
  await as('PUT', '/api/v1/settings/reconciliation', { mode: 'lifecycle' });
});

test('K2 G4 a node-level apply that resolved its node just before the node\'s retirement committed is refused 422 unknown_nodes, not a 500', async () => {
  await node('edge-14');
  const next = await version('racing-apply');
  // The test holds the node's row so both commands queue on it: the retirement first, then the apply, which
  // has read the node (unlocked) on its way to locking it.
  const holder = new pg.Client({ connectionString: suite.t.url });
  await holder.connect();
  const waiting = async () => Number((await holder.query("SELECT count(*) n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).rows[0].n);
  try {
    await holder.query('BEGIN');
    await holder.query("SELECT FROM nodes WHERE node_id = 'edge-14' FOR SHARE");
    const retiring = retire('edge-14', true);
    await eventually(async () => ((await waiting()) === 1 ? true : undefined));
    const applying = as('POST', '/api/v1/nodes/edge-14/configuration/apply', { config_version: next });
    await eventually(async () => ((await waiting()) === 2 ? true : undefined));
    await holder.query('COMMIT');
    expect((await retiring).status).toBe(200);
    expect(await applying).toMatchObject({ status: 422, body: { code: 'unknown_nodes', details: { nodes: ['edge-14'] } } });
  } finally {
    await holder.end();
  }
  expect(Number((await sql<{ n: string }>`SELECT count(*) n FROM rollouts WHERE config_version = ${next}`.execute(suite.t.db)).rows[0]!.n)).toBe(0);
});
