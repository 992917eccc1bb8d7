import { recoveryRef } from '@fleetplane/core';
import { sql } from 'kysely';
import { eventually, takeAttempts, takeConfigAttempts, TestAgent } from '../../../../test/support/fleet.ts';
import { testConfig, TOKENS } from '../../../../test/support/hub.ts';
import { hubSuite } from '../../../../test/support/hub-suite.ts';

// The health executor under the approval gate: SPEC L9 (H9's exemption, as for an operator's rollback).
const suite = hubSuite({ config: testConfig(4, { mode: 'configuration' }, { approval_required: true }) });

const as = (token: string, method: string, path: string, body?: unknown) => suite.hub.call(method, path, { token, ...(body !== undefined ? { body } : {}) });
const rollout = async (id: string) => (await suite.hub.call('GET', `/api/v1/rollouts/${id}`)).body;
const until = (id: string, check: (r: any) => boolean) => eventually(async () => ((r) => (check(r) ? r : undefined))(await rollout(id)), 30_000);

/** A rollout through the gate: submitted by an operator, approved by another admin. */
async function approved(body: Record<string, unknown>): Promise<string> {
  const submitted = await as(TOKENS.operator, 'POST', '/api/v1/config-approvals', body);
  expect(submitted.status).toBe(201);
  const decided = await as(TOKENS.admin2, 'POST', `/api/v1/config-approvals/${submitted.body.approval_id}/approve`);
  expect(decided.status).toBe(200);
  return decided.body.rollout_id;
}

/** A node running a healthy stream and holding `held` as its configuration, reported with its recovery points. */
async function node(n: number, held: string | null): Promise<{ agent: TestAgent; report(points?: unknown[]): Promise<unknown> }> {
  const agent = new TestAgent(suite.hub, `edge-${n}`);
  await agent.register();
  agent.appliedConfig = held;
  const stream = `k9-${n}`;
  await as(TOKENS.operator, 'PUT', `/api/v1/streams/${stream}`, { desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: [`edge-${n}`] } });
  const [start] = await takeAttempts(agent, stream);
  agent.apply(start);
  agent.streams.set(stream, { ...agent.streams.get(stream)!, health: { status: 'running', exit_code: null, restarts: 0 } });
  await agent.result(start.attempt_id, { outcome: 'succeeded', generation: start.generation });
  let points: unknown[] = [];
  const report = (next?: unknown[]) => {
    if (next) points = next;
    const body = agent.nextReport();
    return agent.call('POST', '/api/v1/agent/reports', { ...body, configuration: { ...body.configuration, recovery_points: points } });
  };
  await report();
  return { agent, report };
}

/** Applies the rollout's configuration on the node (capturing what it held), then crashes its stream during the soak. */
async function crashAfterApply(n: { agent: TestAgent; report(points?: unknown[]): Promise<unknown> }, id: string, held: string): Promise<void> {
  const [apply] = await takeConfigAttempts(n.agent);
  n.agent.apply(apply);
  await n.agent.result(apply.attempt_id, { outcome: 'succeeded', generation: apply.generation });
  await n.report([{ ref: recoveryRef(apply.attempt_id), config_version: held }]);
  await until(id, (r) => r.gate?.state === 'soaking');
  const stream = `k9-${n.agent.nodeId.slice('edge-'.length)}`;
  n.agent.streams.set(stream, { stream_id: stream, generation: 1, state: 'failed', last_action_id: null, health: { status: 'exited', exit_code: 2, restarts: 0 } });
  await n.report();
}

const version = async (content: string) => (await as(TOKENS.operator, 'POST', '/api/v1/config-versions', { content, format: 'text' })).body.config_version as string;
const gate = { soak_ms: 60_000, on_unhealthy: 'rollback' };

test('L9 under the approval gate the executor rolls back without approval where every node applied its version before (H9)', async () => {
  const n = await node(1, null);
  const base = await version('k9 base');
  const first = await approved({ config_version: base, targets: { nodes: ['edge-1'] } });
  const [apply] = await takeConfigAttempts(n.agent);
  n.agent.apply(apply);
  await n.agent.result(apply.attempt_id, { outcome: 'succeeded', generation: apply.generation });
  await n.report();
  await until(first, (r) => r.state === 'converged');
  const id = await approved({ config_version: await version('k9 crashes'), targets: { nodes: ['edge-1'] }, health: gate });
  expect((await rollout(id)).health).toEqual({ soak_ms: 60_000, max_unhealthy_targets: 0, on_unhealthy: 'rollback' });
  await crashAfterApply(n, id, base);
  const acted = await until(id, (r) => r.gate?.action !== null && r.gate?.action !== undefined);
  expect(acted).toMatchObject({ state: 'paused', paused_reason: 'health_gate', gate: { action: 'opened' } });
  expect(acted.targets[0].recovery_phase).toBe('restoring');
});

test('L9 a rollback to a version the node never applied through the Hub is not exempt: the executor opens nothing, pauses and says it needs an approval', async () => {
  // The node came with its own configuration: no configuration intent of the Hub ever converged to it.
  const n = await node(2, 'cv_local');
  const id = await approved({ config_version: await version('k9 crashes again'), targets: { nodes: ['edge-2'] }, health: gate });
  await crashAfterApply(n, id, 'cv_local');
  const acted = await until(id, (r) => r.gate?.action === 'approval_required');
  expect(acted).toMatchObject({ state: 'paused', paused_reason: 'approval_required' });
  expect(acted.targets[0].recovery_phase).toBeNull();
  const { rows } = await sql<{ data: unknown; actor: string }>`
    SELECT data, metadata->>'actor' AS actor FROM events WHERE stream_id = ${`rollout:${id}`} AND type = 'RolloutHealthExecuted'`.execute(suite.t.db);
  expect(rows).toEqual([
    { actor: 'health-executor', data: expect.objectContaining({ outcome: 'approval_required', nodes: [], code: 'approval_required', message: expect.stringContaining('needs approval') }) },
  ]);
});
