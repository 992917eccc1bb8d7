import { recoveryRef } from '@fleetplane/core';
import { sql } from 'kysely';
import { eventually, takeConfigAttempts, TestAgent } from '../../../../test/support/fleet.ts';
import { testConfig, TOKENS } from '../../../../test/support/hub.ts';
import { hubSuite } from '../../../../test/support/hub-suite.ts';
import type { Clock } from '../clock.ts';
import { allProjections } from '../projections/all.ts';
import { verifyProjections } from '../projections/verify.ts';
import { nodesThatApplied } from '../rollouts/load.ts';
import { pruneIntentsBefore } from './prune-intents.ts';

// Configuration intents leave the tables once no rollback can reach them: done, not their node's newest, their
// rollout finished, and the node holding no recovery point of theirs (the agent keeps its newest few; this
// node keeps one, to make the window short). Older than log.hot_retention (7 days here), as lifecycle intents.

const DAY = 86_400_000;
let ahead = 0;
const clock: Clock = { now: () => new Date(Date.now() + ahead) };
const suite = hubSuite({ config: testConfig(8, { mode: 'configuration' }), clock, pruneIntentsEveryMs: 200 });

const as = (method: string, path: string, body?: unknown) => suite.hub.call(method, path, { token: TOKENS.operator, ...(body !== undefined ? { body } : {}) });
const version = async (content: string): Promise<string> => (await as('POST', '/api/v1/config-versions', { content, format: 'text' })).body.config_version;
const rolloutState = async (id: string): Promise<string> => (await as('GET', `/api/v1/rollouts/${id}`)).body.state;
const intentIds = async (node: string) =>
  (await sql<{ intent_id: string }>`SELECT intent_id FROM intents WHERE kind = 'configuration' AND node_id = ${node} ORDER BY generation`.execute(suite.t.db)).rows.map((r) => r.intent_id);
const pruned = async () =>
  (await sql<{ ids: string[] }>`SELECT data->'intent_ids' AS ids FROM events WHERE type = 'IntentHistoryPruned'`.execute(suite.t.db)).rows.flatMap((r) => r.ids);
const rollback = (rolloutId: string, node: string) => as('POST', `/api/v1/rollouts/${rolloutId}/actions`, { action: 'rollback', scope: 'target', node_id: node });

/**
 * The node takes its configuration attempt (an apply or a restore), answers it, and reports its version; an
 * apply's captured point (of the version it held before) is then the only one the node keeps.
 */
async function answers(agent: TestAgent, operation: 'config_apply' | 'restore', v: string): Promise<{ intentId: string; ref: string }> {
  const [attempt] = await takeConfigAttempts(agent);
  expect(attempt).toMatchObject({ operation, config_version: v });
  const ref = recoveryRef(attempt.attempt_id);
  if (operation === 'config_apply') agent.recoveryPoints = [{ ref, config_version: agent.appliedConfig! }];
  agent.apply(attempt);
  expect((await agent.result(attempt.attempt_id, { outcome: 'succeeded', generation: attempt.generation })).status).toBe(200);
  expect((await agent.report()).status).toBe(202);
  return { intentId: attempt.intent_id, ref };
}

/** A single-node apply of `v`, converged. */
async function applied(agent: TestAgent, v: string): Promise<{ rolloutId: string; intentId: string; ref: string }> {
  const created = await as('POST', `/api/v1/nodes/${agent.nodeId}/configuration/apply`, { config_version: v });
  expect(created.status).toBe(201);
  const taken = await answers(agent, 'config_apply', v);
  await eventually(async () => ((await rolloutState(created.body.rollout_id)) === 'converged' ? true : undefined));
  return { rolloutId: created.body.rollout_id, ...taken };
}

/** A node that reports holding `v`. */
async function holding(node: string, v: string): Promise<TestAgent> {
  const agent = await TestAgent.reporting(suite.hub, node);
  agent.appliedConfig = v;
  expect((await agent.report()).status).toBe(202);
  return agent;
}

test('J3 I2 H9 configuration intents no rollback can reach leave the tables once older than the hot log; one whose version a held point holds and the node’s newest stay', async () => {
  const [v0, vx, vy, vz, vw] = [await version('v0'), await version('vx'), await version('vy'), await version('vz'), await version('vw')];
  const edge1 = await holding('edge-1', v0);
  const x = await applied(edge1, vx);
  const y = await applied(edge1, vy);
  const z = await applied(edge1, vz);
  const w = await applied(edge1, vw);
  // edge-1 now holds one point: w's, of vz.
  expect(edge1.recoveryPoints).toEqual([{ ref: w.ref, config_version: vz }]);
  expect(await intentIds('edge-1')).toEqual([x.intentId, y.intentId, z.intentId, w.intentId]);

  // Nothing is older than the hot log yet: the Hub's runs record nothing.
  await new Promise((r) => setTimeout(r, 600));
  expect(await pruned()).toEqual([]);

  ahead = 8 * DAY;
  // x, y: out of reach. z: converged to vz, which the node's point holds (a rollback to vz is exempt from
  // approval, H9). w: the node's newest, and its point is held.
  await eventually(async () => ((await intentIds('edge-1')).length === 2 ? true : undefined));
  expect(await intentIds('edge-1')).toEqual([z.intentId, w.intentId]);
  expect((await pruned()).sort()).toEqual([x.intentId, y.intentId].sort());
  const attemptsOf = async (id: string) => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM attempts WHERE intent_id = ${id}`.execute(suite.t.db)).rows[0]!.n;
  expect(await attemptsOf(x.intentId)).toBe(0);
  expect(await attemptsOf(w.intentId)).toBe(1);
  // Their events stay in the log.
  const events = await sql<{ type: string }>`SELECT type FROM events WHERE stream_id = ${`intent:${x.intentId}`} ORDER BY position`.execute(suite.t.db);
  expect(events.rows.map((e) => e.type)).toContain('IntentConverged');
  expect([...(await nodesThatApplied(suite.t.db, vy, ['edge-1']))]).toEqual([]);
  expect([...(await nodesThatApplied(suite.t.db, vz, ['edge-1']))]).toEqual(['edge-1']);

  // A rollback of a pruned apply's rollout is refused, as it would have been without the pruning: later
  // rollouts changed the node since (rollout_superseded); a rollback of the newest restores its point.
  const old = await rollback(y.rolloutId, 'edge-1');
  expect(old).toMatchObject({ status: 409, body: { code: 'rollout_superseded', details: { nodes: { 'edge-1': w.rolloutId } } } });
  const newest = await rollback(w.rolloutId, 'edge-1');
  expect(newest.status).toBe(200);
  expect(newest.body.targets[0].recovery_phase).toBe('restoring');
  const [restore] = await takeConfigAttempts(edge1);
  expect(restore).toMatchObject({ operation: 'restore', config_version: vz, spec: { recovery_ref: w.ref } });
  expect(await verifyProjections(suite.t.db, allProjections)).toEqual([]);
});

test('J3 I2 I5 a rollout’s intents its restores put behind stay while it is live, and then while their node holds the point its apply captured', async () => {
  const [v0, va] = [await version('r0'), await version('ra')];
  const [edge3, edge5] = [await holding('edge-3', v0), await holding('edge-5', v0)];
  await holding('edge-4', v0); // reports, and never takes an attempt: the rollout stays live
  const created = await as('POST', '/api/v1/rollouts', { config_version: va, targets: { nodes: ['edge-3', 'edge-4', 'edge-5'] }, batch_size: 3 });
  expect(created.status).toBe(201);
  const rolloutId = created.body.rollout_id;
  // Each node applies, then restores v0 (a rollback of its target): the apply is no longer its newest.
  const applies = new Map<TestAgent, string>();
  for (const agent of [edge3, edge5]) applies.set(agent, (await answers(agent, 'config_apply', va)).intentId);
  const restores = new Map<TestAgent, string>();
  for (const agent of [edge3, edge5]) {
    expect((await rollback(rolloutId, agent.nodeId)).status).toBe(200);
    restores.set(agent, (await answers(agent, 'restore', v0)).intentId);
  }
  await eventually(async () => {
    const rows = await sql<{ state: string }>`SELECT state FROM intents WHERE intent_id = any(${[...restores.values()]})`.execute(suite.t.db);
    return rows.rows.every((r) => r.state === 'converged') ? true : undefined;
  });
  expect(['applying', 'paused']).toContain(await rolloutState(rolloutId));
  // edge-3 has let its point go; edge-5 holds it.
  edge3.recoveryPoints = [];
  expect((await edge3.report()).status).toBe(202);
  const kept = async () => ({ edge3: await intentIds('edge-3'), edge5: await intentIds('edge-5') });
  const both = (agent: TestAgent) => [applies.get(agent)!, restores.get(agent)!];

  ahead = 16 * DAY;
  // Whatever the horizon, the live rollout keeps both.
  const past = () => new Date(clock.now().getTime() + DAY);
  expect((await pruneIntentsBefore(suite.hub.context.pipeline, past())).intents).toBe(0);
  expect(await kept()).toEqual({ edge3: both(edge3), edge5: both(edge5) });

  expect((await as('POST', `/api/v1/rollouts/${rolloutId}/actions`, { action: 'cancel' })).status).toBe(200);
  // Ended: edge-3's apply leaves at the Hub's next run; edge-5's stays while edge-5 holds the point its rollback
  // would restore.
  const after = async (expected: Awaited<ReturnType<typeof kept>>) => {
    await eventually(async () => (JSON.stringify(await kept()) === JSON.stringify(expected) ? true : undefined));
    await pruneIntentsBefore(suite.hub.context.pipeline, past());
    expect(await kept()).toEqual(expected);
  };
  await after({ edge3: [restores.get(edge3)!], edge5: both(edge5) });
  edge5.recoveryPoints = [];
  expect((await edge5.report()).status).toBe(202);
  await after({ edge3: [restores.get(edge3)!], edge5: [restores.get(edge5)!] });
  expect(await verifyProjections(suite.t.db, allProjections)).toEqual([]);
});

test('J3 I5 I7 a target’s claim keeps its rollout’s intents on the node until a newer apply retires it', async () => {
  const [v0, va, vb] = [await version('c0'), await version('ca'), await version('cb')];
  const edge2 = await holding('edge-2', v0);
  const r = await applied(edge2, va);
  // A restore fails mid-write: a moved claim holds the target.
  expect((await rollback(r.rolloutId, 'edge-2')).status).toBe(200);
  const [restore] = await takeConfigAttempts(edge2);
  await edge2.result(restore.attempt_id, { outcome: 'failed', generation: restore.generation, failure_class: 'permanent', code: 'restore_write_failed', mutation: 'post_mutation' });
  const claim = async () => (await as('GET', `/api/v1/rollouts/${r.rolloutId}`)).body.targets[0].recovery_claim;
  await eventually(async () => ((await claim())?.class === 'post_mutation' ? true : undefined));
  // A newer apply is sent (the restore's intent is superseded), not yet answered; the node let its point go.
  expect((await as('POST', '/api/v1/nodes/edge-2/configuration/apply', { config_version: vb })).status).toBe(201);
  const [newer] = await takeConfigAttempts(edge2);
  edge2.recoveryPoints = [];
  expect((await edge2.report()).status).toBe(202);
  const ids = await intentIds('edge-2');
  expect(ids).toEqual([r.intentId, restore.intent_id, newer.intent_id]);

  const past = () => new Date(clock.now().getTime() + DAY);
  expect((await pruneIntentsBefore(suite.hub.context.pipeline, past())).intents).toBe(0);
  expect(await intentIds('edge-2')).toEqual(ids);

  // The newer apply succeeds and is reported: the claim retires, and the rollout's intents leave.
  edge2.apply(newer);
  expect((await edge2.result(newer.attempt_id, { outcome: 'succeeded', generation: newer.generation })).status).toBe(200);
  expect((await edge2.report()).status).toBe(202);
  await eventually(async () => ((await claim()) === null ? true : undefined));
  await pruneIntentsBefore(suite.hub.context.pipeline, past());
  expect(await intentIds('edge-2')).toEqual([newer.intent_id]);
  expect(await verifyProjections(suite.t.db, allProjections)).toEqual([]);
});

test('J3 a retired node’s configuration intents leave, its newest and those its points held too: nothing is left to restore there', async () => {
  const [v0, va, vb] = [await version('t0'), await version('ta'), await version('tb')];
  const edge6 = await holding('edge-6', v0);
  const a = await applied(edge6, va);
  const b = await applied(edge6, vb);
  const past = () => new Date(clock.now().getTime() + DAY);
  // b is the node's newest; a converged to va, which b's point holds.
  await pruneIntentsBefore(suite.hub.context.pipeline, past());
  expect(await intentIds('edge-6')).toEqual([a.intentId, b.intentId]);
  expect((await as('DELETE', '/api/v1/nodes/edge-6')).status).toBe(200);
  await pruneIntentsBefore(suite.hub.context.pipeline, past());
  expect(await intentIds('edge-6')).toEqual([]);
  expect(await verifyProjections(suite.t.db, allProjections)).toEqual([]);
});

test('J3 I6 a claim on a target its retired node’s removal cancelled holds nothing: the node’s intents leave once the rollout ends', async () => {
  const [v0, va] = [await version('x0'), await version('xa')];
  const edge7 = await holding('edge-7', v0);
  await holding('edge-8', v0); // never answers: the rollout stays live
  const created = await as('POST', '/api/v1/rollouts', { config_version: va, targets: { nodes: ['edge-7', 'edge-8'] }, batch_size: 2 });
  expect(created.status).toBe(201);
  const rolloutId = created.body.rollout_id;
  await answers(edge7, 'config_apply', va);
  // A restore fails mid-write: a moved claim on edge-7's target.
  expect((await rollback(rolloutId, 'edge-7')).status).toBe(200);
  const [restore] = await takeConfigAttempts(edge7);
  await edge7.result(restore.attempt_id, { outcome: 'failed', generation: restore.generation, failure_class: 'permanent', code: 'restore_write_failed', mutation: 'post_mutation' });
  const edge7Target = async () => (await as('GET', `/api/v1/rollouts/${rolloutId}`)).body.targets.find((x: { node_id: string }) => x.node_id === 'edge-7');
  await eventually(async () => ((await edge7Target()).recovery_claim?.class === 'post_mutation' ? true : undefined));
  // Retired by force: the running rollout's target is cancelled, its claim kept in the record.
  expect((await as('DELETE', '/api/v1/nodes/edge-7?force=true')).status).toBe(200);
  expect(await edge7Target()).toMatchObject({ state: 'cancelled', recovery_claim: { class: 'post_mutation' } });
  const past = () => new Date(clock.now().getTime() + DAY);
  const before = await intentIds('edge-7');
  expect(before).toHaveLength(2);
  await pruneIntentsBefore(suite.hub.context.pipeline, past());
  expect(await intentIds('edge-7')).toEqual(before);
  expect((await as('POST', `/api/v1/rollouts/${rolloutId}/actions`, { action: 'cancel' })).status).toBe(200);
  await pruneIntentsBefore(suite.hub.context.pipeline, past());
  expect(await intentIds('edge-7')).toEqual([]);
  expect(await verifyProjections(suite.t.db, allProjections)).toEqual([]);
});
