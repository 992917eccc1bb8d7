import { Report } from '@fleetplane/core';
import { raceQueuedPasses, withoutJobs } from '../../../../test/support/commands.ts';
import { eventually, latestIntent, takeAttempts, takeConfigAttempts, TestAgent } from '../../../../test/support/fleet.ts';
import { testConfig, TOKENS } from '../../../../test/support/hub.ts';
import { hubSuite } from '../../../../test/support/hub-suite.ts';
import type { Actor } from '../commands/pipeline.ts';
import { settleRecovery } from '../rollouts/settle-recovery.ts';
import { ingestReport } from './ingest-report.ts';
import { BACKSTOP_QUEUE, RECONCILE_QUEUE } from './queues.ts';

// SPEC I11-I13: a claim that may have moved a node holds every automated actor there, through live workers on
// a real PostgreSQL; an operator's explicit override goes through, recorded as such; retiring the claim re-arms.

const suite = hubSuite({ config: testConfig(4, { mode: 'configuration' }) });

const call = (method: string, path: string, body?: unknown) => suite.hub.call(method, path, { token: TOKENS.operator, ...(body !== undefined ? { body } : {}) });
const version = async (content: string): Promise<string> => (await call('POST', '/api/v1/config-versions', { content, format: 'text' })).body.config_version;
const rollout = async (id: string) => (await call('GET', `/api/v1/rollouts/${id}`)).body;
const until = <T>(check: () => Promise<T | undefined>) => eventually(check, 15_000);
const running = (nodes: string[], extra: Record<string, unknown> = {}) => ({ desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes }, ...extra });
const logged = (streamId: string, type: string) =>
  suite.hub.context.database.db.selectFrom('events').select('data').where('stream_id', '=', streamId).where('type', '=', type).orderBy('position').execute();

/** A node whose rollout converged and whose restore then failed mid-write: a post-mutation claim holds it. */
async function heldNode(n: number): Promise<{ a: TestAgent; rolloutId: string; base: string }> {
  const a = new TestAgent(suite.hub, `edge-${n}`);
  await a.register();
  const base = await version(`hold-${n}-base`);
  const next = await version(`hold-${n}-next`);
  a.appliedConfig = base;
  await a.report();
  const rolloutId = (await call('POST', '/api/v1/rollouts', { config_version: next, targets: { nodes: [a.nodeId] } })).body.rollout_id;
  const [apply] = await takeConfigAttempts(a);
  a.apply(apply);
  await a.result(apply.attempt_id, { outcome: 'succeeded', generation: apply.generation });
  a.seq += 1;
  const point = { ref: `rp_${apply.attempt_id}`, config_version: base };
  await a.call('POST', '/api/v1/agent/reports', { node_id: a.nodeId, boot_id: a.bootId, report_seq: a.seq, streams: [], configuration: { applied_version: next, recovery_points: [point] } });
  await until(async () => ((await rollout(rolloutId)).state === 'converged' ? true : undefined));
  expect((await call('POST', `/api/v1/rollouts/${rolloutId}/actions`, { action: 'rollback', scope: 'target', node_id: a.nodeId })).status).toBe(200);
  const [restore] = await takeConfigAttempts(a);
  await a.result(restore.attempt_id, { outcome: 'failed', generation: restore.generation, failure_class: 'permanent', code: 'restore_write_failed', mutation: 'post_mutation' });
  await until(async () => ((await rollout(rolloutId)).recovery === 'recovery_required' ? true : undefined));
  return { a, rolloutId, base };
}

test('I12 I11 a held node gets no attempt on its own, a desired write and a restart wait (waiting_on recovery_hold); a report retiring the claim sends them at once', async () => {
  const { a, rolloutId, base } = await heldNode(1);
  // Written while held, without the override: accepted (A1), and nothing leaves for the node.
  expect((await call('PUT', '/api/v1/streams/held-1', running(['edge-1']))).status).toBe(200);
  const other = new TestAgent(suite.hub, 'edge-2');
  await other.register();
  expect((await call('PUT', '/api/v1/streams/held-2', running(['edge-1', 'edge-2']))).status).toBe(200);
  await suite.hub.context.reconciler.reconcile('edge-1', 'test');
  expect(await a.attempts(1)).toEqual([]);
  // Issue 22: the intent says why it waits, naming the claim's rollout.
  const held = await latestIntent(suite.hub, 'held-1', 'edge-1');
  expect(held).toMatchObject({ state: 'pending', waiting_on: { kind: 'recovery_hold', node_id: 'edge-1' } });
  expect(held.waiting_on.message).toContain(`post_mutation recovery claim of rollout ${rolloutId}`);
  // The hold is the node's alone: the same write's other node gets its start.
  expect((await takeAttempts(other, 'held-2')).map((x) => x.operation)).toEqual(['job_start']);
  // A restart asked without the override waits too.
  expect((await call('POST', '/api/v1/streams/held-1/actions', { action: 'restart' })).status).toBe(200);
  expect(await a.attempts(1)).toEqual([]);

  // The node reports the restored version: the claim is retired, and every held intent goes in the same breath.
  a.appliedConfig = base;
  await a.report();
  const sent = await until(async () => {
    const got = await a.attempts(1);
    return got.length >= 2 ? got : undefined;
  });
  expect(sent.map((x) => [x.stream_id, x.operation]).sort()).toEqual([
    ['held-1', 'job_restart'],
    ['held-2', 'job_start'],
  ]);
});

test('I13 a write or restart made with override_hold goes to a held node at once, recorded on the write, its intent and its attempt', async () => {
  const { a } = await heldNode(3);
  const written = await call('PUT', '/api/v1/streams/override-1', running(['edge-3'], { override_hold: true }));
  expect(written.status).toBe(200);
  const [start] = await takeAttempts(a, 'override-1');
  expect(start.operation).toBe('job_start');
  const intent = await latestIntent(suite.hub, 'override-1', 'edge-3');
  expect((await logged('stream:override-1', 'StreamDesired')).map((e) => e.data.override_hold)).toEqual([true]);
  expect((await logged(`intent:${intent.intent_id}`, 'IntentOpened'))[0]!.data).toMatchObject({ override_hold: true });
  expect((await logged(`intent:${intent.intent_id}`, 'AttemptQueued'))[0]!.data).toMatchObject({ attempt_id: start.attempt_id, override_hold: true });
  a.apply(start);
  await a.report();
  await until(async () => ((await latestIntent(suite.hub, 'override-1', 'edge-3')).state === 'converged' ? true : undefined));

  // A restart with the override goes too; one without waits behind the claim.
  expect((await call('POST', '/api/v1/streams/override-1/actions', { action: 'restart', override_hold: true })).status).toBe(200);
  expect((await takeAttempts(a, 'override-1')).map((x) => x.operation)).toEqual(['job_restart']);
  expect((await call('POST', '/api/v1/streams/override-1/actions', { action: 'restart' })).status).toBe(200);
  await suite.hub.context.reconciler.reconcile('edge-3', 'test');
  expect(await a.attempts(1)).toEqual([]);
  // A body whose override is not a boolean is refused and writes nothing.
  const refused = await call('PUT', '/api/v1/streams/override-2', running(['edge-3'], { override_hold: 'yes' }));
  expect(refused.status).toBe(400);
  expect((await call('GET', '/api/v1/streams/override-2')).status).toBe(404);
});

test('I11 I12 a retired claim releases its node even when a pass of the node, queued before, runs while the retirement commits', async () => {
  const { a, rolloutId, base } = await heldNode(4);
  expect((await call('PUT', '/api/v1/streams/held-4', running(['edge-4']))).status).toBe(200);
  expect(await a.attempts(1)).toEqual([]);
  // The report that lets the claim be retired, recorded without the rollout pass it asks for: the test runs that pass.
  a.appliedConfig = base;
  const agent: Actor = { principal: 'edge-4', role: 'agent', source: 'agent', correlationId: 'release-race' };
  expect((await suite.hub.context.pipeline.run(agent, withoutJobs(ingestReport(Report.parse(a.nextReport()))))).ok).toBe(true);

  const worker: Actor = { principal: 'hub', role: 'system', source: 'worker', correlationId: 'release-race' };
  const { outcome, atCommit } = await raceQueuedPasses(suite.hub, worker, settleRecovery(rolloutId), ['edge-4']);
  // The race was set up: the retirement's own request for a pass added none beside those queued before.
  expect(atCommit).toEqual([
    { name: RECONCILE_QUEUE, node: 'edge-4', state: 'created' },
    { name: BACKSTOP_QUEUE, node: 'edge-4', state: 'created' },
  ]);
  expect(outcome.ok && outcome.value.result.settled).toBeGreaterThan(0);
  // The claim is retired, and its node released: the intent it held gets its start, with no other trigger.
  expect((await takeAttempts(a, 'held-4')).map((x) => x.operation)).toEqual(['job_start']);
});
