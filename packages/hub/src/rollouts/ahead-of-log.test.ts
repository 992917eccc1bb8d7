import { eventually, takeConfigAttempts, TestAgent } from '../../../../test/support/fleet.ts';
import { testConfig, TOKENS } from '../../../../test/support/hub.ts';
import { hubSuite } from '../../../../test/support/hub-suite.ts';
import { allProjections } from '../projections/all.ts';
import { verifyProjections } from '../projections/verify.ts';

// A Hub restored from a backup is behind its nodes (docs/decisions.md): a node reports an applied configuration
// version its log does not know. Reproduced without a backup: the node reports a version id no
// ConfigVersionCreated made, as a version created after the backup is to the restored log. Leases run on an
// injected clock.
let now = new Date('2026-12-07T12:00:00.000Z');
const suite = hubSuite({ config: testConfig(6, { mode: 'configuration', lease_ms: 30_000 }), clock: { now: () => now } });

const operator = (method: string, path: string, body?: unknown) => suite.hub.call(method, path, { token: TOKENS.operator, ...(body !== undefined ? { body } : {}) });
const version = async (content: string): Promise<string> => (await operator('POST', '/api/v1/config-versions', { content, format: 'text' })).body.config_version;
const rollout = async (id: string) => (await operator('GET', `/api/v1/rollouts/${id}`)).body;
const intent = async (id: string) => (await operator('GET', `/api/v1/intents/${id}`)).body;
const aheadOf = async (nodeId: string) =>
  (await suite.hub.context.database.db.selectFrom('nodes').select('config_ahead_of').where('node_id', '=', nodeId).executeTakeFirstOrThrow()).config_ahead_of;

/** The node takes its configuration attempt, applies it, answers and reports. */
async function applyConfig(agent: TestAgent): Promise<void> {
  const [attempt] = await takeConfigAttempts(agent);
  agent.apply(attempt);
  expect((await agent.result(attempt.attempt_id, { outcome: 'succeeded', generation: attempt.generation })).status).toBe(200);
  expect((await agent.report()).status).toBe(202);
}

test('C5 restored backup: a rollout apply whose answer was lost is not sent again to a node reporting a version the log does not know; the rollout pauses node_ahead_of_log, and resume applies over it', async () => {
  const agent = await TestAgent.reporting(suite.hub, 'edge-1');
  // A node registered with no version, or holding one the log knows, is not marked.
  expect(await aheadOf('edge-1')).toBeNull();
  const older = await version('older');
  const id = (await operator('POST', '/api/v1/rollouts', { config_version: older, targets: { nodes: ['edge-1'] } })).body.rollout_id;
  // Its apply is out when the answer is lost (the backup), and its lease runs out on the restored Hub.
  const [lost] = await takeConfigAttempts(agent);
  now = new Date(now.getTime() + 31_000);
  await eventually(async () => {
    await suite.hub.context.reconciler.sweep();
    return (await intent(lost.intent_id)).state === 'ambiguous' ? true : undefined;
  });
  // The node took a later version since, one the restored log does not know, and reports it (C5 would reopen the apply).
  agent.appliedConfig = 'cv-lost-in-the-restore';
  expect((await agent.report()).status).toBe(202);
  const paused = await eventually(async () => {
    const r = await rollout(id);
    return r.state === 'paused' ? r : undefined;
  });
  const why = /^node edge-1 reports a configuration version this Hub's log does not know .*: this config_apply of \S+, decided before that report, is not sent; resume the rollout, or roll out a version, to apply over it$/;
  expect(paused).toMatchObject({ paused_reason: 'target_failed' });
  expect(paused.targets[0]).toMatchObject({ node_id: 'edge-1', state: 'failed', failure_class: 'permanent', failure_code: 'node_ahead_of_log', failure_message: expect.stringMatching(why) });
  const blocked = await intent(lost.intent_id);
  expect(blocked).toMatchObject({ state: 'blocked', failure_code: 'node_ahead_of_log', waiting_on: { kind: 'new_generation', message: expect.stringMatching(why) } });
  // Nothing was sent again: the lost attempt is its only one, and the node is handed nothing.
  expect(blocked.attempts.map((a: { state: string }) => a.state)).toEqual(['ambiguous']);
  await suite.hub.context.reconciler.reconcile('edge-1', 'test');
  expect(await agent.attempts(0)).toEqual([]);
  expect(agent.appliedConfig).toBe('cv-lost-in-the-restore');

  // The operator's resume opens a new intent, after the report: it goes, and the node's version is known again.
  expect((await operator('POST', `/api/v1/rollouts/${id}/actions`, { action: 'resume' })).status).toBe(200);
  await applyConfig(agent);
  await eventually(async () => ((await rollout(id)).state === 'converged' ? true : undefined));
  expect(agent.appliedConfig).toBe(older);
  expect(await aheadOf('edge-1')).toBeNull();
});

test('C5 restored backup: a rollout created after the node reported a version the log does not know applies at once', async () => {
  const agent = await TestAgent.reporting(suite.hub, 'edge-2');
  agent.appliedConfig = 'cv-also-lost';
  expect((await agent.report()).status).toBe(202);
  expect(await aheadOf('edge-2')).toBe(0);
  const wanted = await version('wanted');
  const id = (await operator('POST', '/api/v1/rollouts', { config_version: wanted, targets: { nodes: ['edge-2'] } })).body.rollout_id;
  await applyConfig(agent);
  await eventually(async () => ((await rollout(id)).state === 'converged' ? true : undefined));
  expect(await aheadOf('edge-2')).toBeNull();
});

test('C5 restored backup: a later batch of a rollout created before its node reported a version the log does not know is not sent there; resume applies over it', async () => {
  const [first, later] = [await TestAgent.reporting(suite.hub, 'edge-4'), await TestAgent.reporting(suite.hub, 'edge-5')];
  const older = await version('older, in batches');
  const id = (await operator('POST', '/api/v1/rollouts', { config_version: older, targets: { nodes: ['edge-4', 'edge-5'] }, batch_size: 1 })).body.rollout_id;
  now = new Date(now.getTime() + 1000);
  later.appliedConfig = 'cv-lost-too';
  expect((await later.report()).status).toBe(202);
  // The first batch converges; the second starts on edge-5 and stops there, nothing sent.
  await applyConfig(first);
  const paused = await eventually(async () => {
    const r = await rollout(id);
    return r.state === 'paused' ? r : undefined;
  });
  expect(paused).toMatchObject({ paused_reason: 'target_failed', current_batch: 1 });
  expect(paused.targets.find((t: { node_id: string }) => t.node_id === 'edge-5')).toMatchObject({ state: 'failed', failure_code: 'node_ahead_of_log' });
  await suite.hub.context.reconciler.reconcile('edge-5', 'test');
  expect(await later.attempts(0)).toEqual([]);
  expect((await operator('POST', `/api/v1/rollouts/${id}/actions`, { action: 'resume' })).status).toBe(200);
  await applyConfig(later);
  await eventually(async () => ((await rollout(id)).state === 'converged' ? true : undefined));
});

test('J3 the nodes ahead of the log rebuild exactly from the log, a node leaving and taking again a version it does not know included', async () => {
  const agent = await TestAgent.reporting(suite.hub, 'edge-3');
  agent.appliedConfig = 'cv-unknown';
  expect((await agent.report()).status).toBe(202);
  expect((await agent.report()).status).toBe(202);
  expect(await aheadOf('edge-3')).toBe(0);
  // A rollout takes the node's configuration generation to 1; the node reports a known version (not the rollout's),
  // then the unknown one again, in reports that follow one another in the log: marked from generation 1, not 0.
  const [known, other] = [await version('known'), await version('other')];
  expect((await operator('POST', '/api/v1/rollouts', { config_version: known, targets: { nodes: ['edge-3'] } })).status).toBe(201);
  await eventually(async () => ((await operator('GET', '/api/v1/intents?node_id=edge-3&kind=configuration')).body.items[0]?.state === 'converging' ? true : undefined));
  agent.appliedConfig = other;
  expect((await agent.report()).status).toBe(202);
  expect(await aheadOf('edge-3')).toBeNull();
  agent.appliedConfig = 'cv-unknown';
  expect((await agent.report()).status).toBe(202);
  expect(await aheadOf('edge-3')).toBe(1);
  expect(await verifyProjections(suite.t.db, allProjections)).toEqual([]);
});
