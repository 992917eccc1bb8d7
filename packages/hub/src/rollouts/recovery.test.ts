import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type RawBuilder } from 'kysely';
import { Agent } from '../../../agent/src/agent.ts';
import { createSimExecutor, type SimExecutor } from '../../../agent/src/executors/sim.ts';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { eventually, takeConfigAttempts, TestAgent } from '../../../../test/support/fleet.ts';
import { agentToken, startTestHub, testConfig, type TestHub, TOKENS } from '../../../../test/support/hub.ts';
import { allProjections } from '../projections/all.ts';
import { verifyProjections } from '../projections/verify.ts';
import { settleRecovery } from './settle-recovery.ts';

// SPEC I: restores of recovery points by rollout rollback, their classification, holds and claims.
// Real agents (the Agent with the sim executor and its restore faults) where the node's own behaviour
// matters; protocol-level TestAgents where a test must decide exactly what a node answers and when.

// Each test runs two or three rollouts through real agents and live workers: seconds apiece on a quiet
// machine, several times that on a loaded one.
jest.setTimeout(120_000);

let t: TestDatabase;
let hub: TestHub;
let dir: string;
const agents: Agent[] = [];
let now = Date.now();
const clock = { now: () => new Date(now) };
const config = testConfig(31, { mode: 'configuration', lease_ms: 30_000 });
beforeAll(async () => {
  t = await createTestDatabase();
  hub = await startTestHub(t.url, { config, clock });
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-recovery-'));
});
afterAll(async () => {
  for (const a of agents.splice(0)) await a.stop();
  await hub.stop();
  await rm(dir, { recursive: true, force: true });
  await t.drop();
});

const call = (method: string, path: string, body?: unknown) => hub.call(method, path, { token: TOKENS.operator, ...(body !== undefined ? { body } : {}) });
const version = async (content: string): Promise<string> => (await call('POST', '/api/v1/config-versions', { content, format: 'text' })).body.config_version;
const rollout = async (id: string) => (await call('GET', `/api/v1/rollouts/${id}`)).body;
const target = async (id: string, node: string) => (await rollout(id)).targets.find((x: any) => x.node_id === node);
const until = <T>(check: () => Promise<T | undefined>) => eventually(check, 15_000);
const rollback = (id: string, body: Record<string, unknown>) => call('POST', `/api/v1/rollouts/${id}/actions`, { action: 'rollback', ...body });

/** A real agent on `edge-<n>` with the sim executor, reporting every 200 ms. */
async function realNode(n: number): Promise<SimExecutor> {
  const sim = createSimExecutor();
  const node = `edge-${n}`;
  const agent = new Agent({ hub: hub.url, nodeId: node, token: agentToken(node), stateDir: join(dir, node), executor: sim, pollSeconds: 1, reportEveryMs: 200 });
  agents.push(agent);
  await agent.start();
  return sim;
}

/** A protocol-level node that has registered and reported. */
async function testNode(n: number): Promise<TestAgent> {
  const a = new TestAgent(hub, `edge-${n}`);
  await a.register();
  await a.report();
  return a;
}

/** Rolls `version` out to the nodes and waits until the rollout converged (real agents do the work). */
async function converged(content: string, nodes: string[], batchSize = nodes.length): Promise<{ id: string; version: string }> {
  const v = await version(content);
  const created = await call('POST', '/api/v1/rollouts', { config_version: v, targets: { nodes }, batch_size: batchSize });
  expect(created.status).toBe(201);
  await until(async () => ((await rollout(created.body.rollout_id)).state === 'converged' ? true : undefined));
  return { id: created.body.rollout_id, version: v };
}

/**
 * Runs `work` while this Hub runs no rollout pass, then replaces the Hub with a new one on the same database
 * and clock, so that the tests after it (in whatever order) have their rollouts progressed again.
 */
async function withoutProgression(work: () => Promise<void>): Promise<void> {
  await hub.context.rollouts.stop();
  try {
    await work();
  } finally {
    await hub.stop();
    hub = await startTestHub(t.url, { config, clock });
  }
}

/** A full report of a TestAgent's configuration: the version it holds and the recovery points it keeps. */
async function reportConfiguration(a: TestAgent, appliedVersion: string | null, points: unknown[]) {
  a.seq += 1;
  const r = await a.call('POST', '/api/v1/agent/reports', { node_id: a.nodeId, boot_id: a.bootId, report_seq: a.seq, streams: [], configuration: { applied_version: appliedVersion, recovery_points: points } });
  expect(r.status).toBe(202);
}

/** A TestAgent applying its configuration attempt: answered succeeded, reported, with the captured point. */
async function applyWithPoint(a: TestAgent, previous: string | null): Promise<any> {
  const [attempt] = await takeConfigAttempts(a);
  a.apply(attempt);
  await a.result(attempt.attempt_id, { outcome: 'succeeded', generation: attempt.generation });
  return { attempt, point: previous ? { ref: `rp_${attempt.attempt_id}`, config_version: previous } : null };
}

/**
 * A converged single-target rollout on a TestAgent that applied `<tag>-next` (`next`) and reported the point
 * it captured of `<tag>-base` (`base`).
 */
async function convergedWithPoint(n: number, tag: string): Promise<{ a: TestAgent; id: string; base: string; next: string; point: unknown }> {
  const a = await testNode(n);
  const base = await version(`${tag}-base`);
  const v = await version(`${tag}-next`);
  a.appliedConfig = base;
  const id = (await call('POST', '/api/v1/rollouts', { config_version: v, targets: { nodes: [a.nodeId] } })).body.rollout_id;
  const { point } = await applyWithPoint(a, base);
  await reportConfiguration(a, v, [point]);
  await until(async () => ((await rollout(id)).state === 'converged' ? true : undefined));
  return { a, id, base, next: v, point };
}

test('I2 a rollback by scope restores the points the rollout captured; a second rollback on a restoring target is 409 before any target opens', async () => {
  const [a, b] = [await realNode(1), await realNode(2)];
  const base = await converged('i2-base', ['edge-1', 'edge-2']);
  const next = await converged('i2-next', ['edge-1', 'edge-2']);
  a.latencyMs = 1500; // the restore on edge-1 stays in flight a while
  const opened = await rollback(next.id, { scope: 'all_changed' });
  expect(opened.status).toBe(200);
  expect(opened.body.recovery).toBe('restoring');
  expect(opened.body.targets.map((x: any) => x.recovery_phase)).toEqual(['restoring', 'restoring']);
  // The rollout's events but its targets' recoveries ending, which come when their restores answer (edge-2's
  // may already have).
  const decided = async () =>
    Number(
      (
        await sql<{ n: string }>`SELECT count(*) n FROM events WHERE stream_id = ${`rollout:${next.id}`}
          AND type NOT IN ('RolloutRecoveryCompleted', 'RolloutRecoveryFailed')`.execute(t.db)
      ).rows[0]!.n,
    );
  const before = await decided();
  await until(async () => ((await target(next.id, 'edge-2')).recovery_phase === 'complete' ? true : undefined));
  const again = await rollback(next.id, { scope: 'all_changed' });
  expect(again).toMatchObject({ status: 409, body: { code: 'rollback_in_progress', details: { nodes: ['edge-1'] } } });
  expect(await decided()).toBe(before); // the refused rollback appended nothing
  await until(async () => ((await rollout(next.id)).recovery === 'none' ? true : undefined));
  expect(a.configContent()).toBe('i2-base');
  expect(b.configContent()).toBe('i2-base');
  // A restore's success settles the recovery; the node's next report (every 200 ms) shows the version.
  await until(async () => ((await call('GET', '/api/v1/nodes/edge-1')).body.applied_config_version === base.version ? true : undefined));
  a.latencyMs = 0;
});

test('I1 I2 an apply whose first attempt could not capture (capture_failed, pre-mutation) and whose retry did: the rollback restores the retry\'s point', async () => {
  const a = await testNode(31);
  const [base, next] = [await version('recapture-base'), await version('recapture-next')];
  a.appliedConfig = base;
  const id = (await call('POST', '/api/v1/rollouts', { config_version: next, targets: { nodes: ['edge-31'] } })).body.rollout_id;
  const [first] = await takeConfigAttempts(a);
  // As the reference agent answers when it cannot write the point: nothing captured, nothing changed.
  await a.result(first.attempt_id, { outcome: 'failed', generation: first.generation, failure_class: 'temporary', code: 'capture_failed', mutation: 'pre_mutation' });
  now += 600_000;
  await hub.context.reconciler.reconcile('edge-31', 'test');
  const { attempt: retry, point } = await applyWithPoint(a, base);
  expect(retry.attempt_id).not.toBe(first.attempt_id);
  await reportConfiguration(a, next, [point]);
  await until(async () => ((await rollout(id)).state === 'converged' ? true : undefined));
  expect((await rollback(id, { scope: 'target', node_id: 'edge-31' })).status).toBe(200);
  expect((await target(id, 'edge-31')).recovery_phase).toBe('restoring');
  const [restore] = await takeConfigAttempts(a);
  expect(restore).toMatchObject({ operation: 'restore', config_version: base, spec: { recovery_ref: `rp_${retry.attempt_id}` } });
});

test('I1 I2 a later apply\'s point never stands in for the first one\'s, which may hold what the first changed: without it, no recovery point', async () => {
  const a = await testNode(30);
  const [base, next] = [await version('no-stand-in-base'), await version('no-stand-in-next')];
  a.appliedConfig = base;
  const id = (await call('POST', '/api/v1/rollouts', { config_version: next, targets: { nodes: ['edge-30'] } })).body.rollout_id;
  const [first] = await takeConfigAttempts(a);
  // It changed the node, then failed for a while: its retry's capture holds the changed configuration.
  await a.result(first.attempt_id, { outcome: 'failed', generation: first.generation, failure_class: 'temporary', code: 'write_failed', mutation: 'post_mutation' });
  now += 600_000;
  await hub.context.reconciler.reconcile('edge-30', 'test');
  const { point } = await applyWithPoint(a, base);
  // The node reports the retry's point only: the first apply's is gone (or never written).
  await reportConfiguration(a, next, [point]);
  await until(async () => ((await rollout(id)).state === 'converged' ? true : undefined));
  expect((await rollback(id, { scope: 'target', node_id: 'edge-30' })).status).toBe(200);
  expect(await target(id, 'edge-30')).toMatchObject({ recovery_phase: 'failed', recovery_claim: { class: 'pre_mutation', code: 'no_recovery_point' } });
});

test('I3 I4 two targets: one refused pre-mutation, one moved; the refusal alone holds nothing, the moved one holds the rollout', async () => {
  const [a, b] = [await realNode(3), await realNode(4)];
  await converged('i3-base', ['edge-3', 'edge-4']);
  const next = await converged('i3-next', ['edge-3', 'edge-4']);
  a.faults.push({ kind: 'restore_refused' });
  const refused = await rollback(next.id, { scope: 'target', node_id: 'edge-3' });
  expect(refused.status).toBe(200);
  await until(async () => ((await target(next.id, 'edge-3')).recovery_phase === 'failed' ? true : undefined));
  expect((await target(next.id, 'edge-3')).recovery_claim).toMatchObject({ class: 'pre_mutation', code: 'recovery_point_mismatch' });
  expect((await rollout(next.id)).recovery).toBe('none');
  b.faults.push({ kind: 'restore_mid_write' });
  await rollback(next.id, { scope: 'target', node_id: 'edge-4' });
  await until(async () => ((await target(next.id, 'edge-4')).recovery_phase === 'failed' ? true : undefined));
  expect((await target(next.id, 'edge-4')).recovery_claim).toMatchObject({ class: 'post_mutation', code: 'restore_write_failed' });
  expect((await rollout(next.id)).recovery).toBe('recovery_required');
  const holds = await sql<{ node_id: string; holds_as: string }>`SELECT node_id, holds_as FROM recovery_holds WHERE rollout_id = ${next.id}`.execute(t.db);
  expect(holds.rows).toEqual([{ node_id: 'edge-4', holds_as: 'recovery_required' }]);
});

test('I3 classification: the node verdict wins; a success for another generation is unconfirmed; an unknown code holds; no point is pre-mutation', async () => {
  const nodes = [await testNode(5), await testNode(6), await testNode(7), await testNode(8)];
  const base = await version('i3c-base');
  const v = await version('i3c-next');
  for (const n of nodes) n.appliedConfig = base;
  const created = (await call('POST', '/api/v1/rollouts', { config_version: v, targets: { nodes: nodes.map((n) => n.nodeId) }, batch_size: 4 })).body.rollout_id;
  for (const n of nodes.slice(0, 3)) {
    const { point } = await applyWithPoint(n, base);
    (n as any).points = [point];
  }
  // edge-8 applies without having captured anything it reports.
  await applyWithPoint(nodes[3]!, null);
  for (const n of nodes) {
    const points = (n as any).points ?? [];
    await reportConfiguration(n, n.appliedConfig, points);
  }
  await until(async () => ((await rollout(created)).state === 'converged' ? true : undefined));
  const opened = await rollback(created, { scope: 'all_changed' });
  expect(opened.status).toBe(200);
  const restores = await Promise.all(nodes.slice(0, 3).map(async (n) => (await takeConfigAttempts(n))[0]));
  expect(restores.map((r) => r.operation)).toEqual(['restore', 'restore', 'restore']);
  expect(restores[0]).toMatchObject({ config_version: base, spec: { recovery_ref: (nodes[0] as any).points[0].ref } });
  // edge-5: a pre-mutation code, but the node says it moved: the node wins.
  await nodes[0]!.result(restores[0].attempt_id, { outcome: 'failed', generation: restores[0].generation, failure_class: 'permanent', code: 'no_recovery_point', mutation: 'post_mutation' });
  // edge-6: success for another generation.
  expect((await nodes[1]!.result(restores[1].attempt_id, { outcome: 'succeeded', generation: restores[1].generation + 7 })).status).toBe(200);
  // edge-7: a code nobody knows.
  await nodes[2]!.result(restores[2].attempt_id, { outcome: 'failed', generation: restores[2].generation, failure_class: 'permanent', code: 'disk_on_fire' });
  const claims = await until(async () => {
    const r = await rollout(created);
    const c = Object.fromEntries(r.targets.map((x: any) => [x.node_id, x.recovery_claim && [x.recovery_claim.class, x.recovery_claim.code]]));
    return r.targets.every((x: any) => x.recovery_phase === 'failed') ? c : undefined;
  });
  expect(claims).toEqual({
    'edge-5': ['post_mutation', 'no_recovery_point'],
    'edge-6': ['post_mutation', 'unconfirmed'],
    'edge-7': ['unknown', 'disk_on_fire'],
    'edge-8': ['pre_mutation', 'no_recovery_point'],
  });
});

test('I3 I5 a restore whose lease runs out is post_mutation (lease_expired): it holds the rollout, and the Hub never sends it again', async () => {
  const { a, id, next, point } = await convergedWithPoint(24, 'i3l');
  expect((await rollback(id, { scope: 'target', node_id: 'edge-24' })).status).toBe(200);
  const [restore] = await takeConfigAttempts(a);
  // The restore was sent; its answer never comes.
  now += 31_000;
  await until(async () => {
    await hub.context.reconciler.sweep();
    return (await target(id, 'edge-24')).recovery_phase === 'failed' ? true : undefined;
  });
  expect((await target(id, 'edge-24')).recovery_claim).toMatchObject({ class: 'post_mutation', code: 'lease_expired' });
  expect((await rollout(id)).recovery).toBe('recovery_required');
  // Newer reports, still at the rollout's version, prove nothing about the restore; and long after any
  // backoff the Hub has sent nothing: only the operator's next rollback restores again.
  await reportConfiguration(a, next, [point]);
  now += 600_000;
  await reportConfiguration(a, next, [point]);
  await hub.context.reconciler.reconcile('edge-24', 'test');
  expect(await a.attempts(0)).toEqual([]);
  expect((await rollout(id)).recovery).toBe('recovery_required');
  expect((await rollback(id, { scope: 'target', node_id: 'edge-24' })).status).toBe(200);
  const [again] = await takeConfigAttempts(a);
  expect(again).toMatchObject({ operation: 'restore' });
  expect(again.attempt_id).not.toBe(restore.attempt_id);
});

test('I3 I4 a restore the node refuses with target_not_found is pre_mutation and holds nothing', async () => {
  const { a, id } = await convergedWithPoint(25, 'i3n');
  expect((await rollback(id, { scope: 'target', node_id: 'edge-25' })).status).toBe(200);
  const [restore] = await takeConfigAttempts(a);
  await a.result(restore.attempt_id, { outcome: 'failed', generation: restore.generation, failure_class: 'permanent', code: 'target_not_found' });
  await until(async () => ((await target(id, 'edge-25')).recovery_phase === 'failed' ? true : undefined));
  expect((await target(id, 'edge-25')).recovery_claim).toMatchObject({ class: 'pre_mutation', code: 'target_not_found' });
  expect((await rollout(id)).recovery).toBe('none');
  expect((await sql`SELECT * FROM recovery_holds WHERE rollout_id = ${id}`.execute(t.db)).rows).toEqual([]);
});

test('I5 I11 issue 22 a moved claim holds the next batch, and the waiting target names it as its recovery_hold; a report at the expected version retires it and the next batch starts at once', async () => {
  const [a, c] = [await testNode(9), await testNode(10)];
  await testNode(11);
  const base = await version('i5-base');
  const v = await version('i5-next');
  a.appliedConfig = base;
  const id = (await call('POST', '/api/v1/rollouts', { config_version: v, targets: { nodes: ['edge-9', 'edge-10', 'edge-11'] }, batch_size: 2 })).body.rollout_id;
  const { point } = await applyWithPoint(a, base);
  await reportConfiguration(a, v, [point]);
  await until(async () => ((await target(id, 'edge-9')).state === 'converged' ? true : undefined));
  // edge-10 has not converged yet; edge-9's restore fails mid-write.
  expect((await rollback(id, { scope: 'target', node_id: 'edge-9' })).status).toBe(200);
  const [restore] = await takeConfigAttempts(a);
  await a.result(restore.attempt_id, { outcome: 'failed', generation: restore.generation, failure_class: 'permanent', code: 'restore_write_failed', mutation: 'post_mutation' });
  await until(async () => ((await rollout(id)).recovery === 'recovery_required' ? true : undefined));
  // The batch completes while the hold stands: no new batch.
  await applyWithPoint(c, null);
  await c.report();
  await until(async () => ((await target(id, 'edge-10')).state === 'converged' ? true : undefined));
  await hub.context.rollouts.progress(id, 'test');
  expect(await rollout(id)).toMatchObject({ current_batch: 0, recovery: 'recovery_required' });
  // Issue 22: the waiting target says what holds it, naming the held target and its restore.
  expect(await target(id, 'edge-11')).toMatchObject({ state: 'waiting', waiting_on: { kind: 'recovery_hold', node_id: 'edge-9', intent_id: expect.any(String) } });
  // The node reports the restored version: success evidence. No operator action: the next batch starts.
  a.appliedConfig = base;
  await a.report();
  const moved = await until(async () => {
    const r = await rollout(id);
    return r.current_batch === 1 ? r : undefined;
  });
  expect(moved.recovery).toBe('none');
  expect(moved.targets.find((x: any) => x.node_id === 'edge-9')).toMatchObject({ recovery_phase: 'complete', recovery_claim: null });
  expect(moved.targets.find((x: any) => x.node_id === 'edge-11').state).toBe('applying');
});

test('I7 I8 a moved claim keeps its class: a later refusal and a later deploy failure are recorded beside it; only success retires it', async () => {
  const { a, id, base } = await convergedWithPoint(12, 'i7');
  const restoreOnce = async (answer: Record<string, unknown>) => {
    expect((await rollback(id, { scope: 'target', node_id: 'edge-12' })).status).toBe(200);
    const [restore] = await takeConfigAttempts(a);
    await a.result(restore.attempt_id, { outcome: 'failed', generation: restore.generation, failure_class: 'permanent', ...answer });
    return restore;
  };
  await restoreOnce({ code: 'restore_write_failed', mutation: 'post_mutation' });
  await until(async () => ((await target(id, 'edge-12')).recovery_phase === 'failed' ? true : undefined));
  const claim = (await target(id, 'edge-12')).recovery_claim;
  expect(claim).toMatchObject({ class: 'post_mutation', code: 'restore_write_failed' });

  // I8: busy leaves the restore in flight and settles nothing; the claim is untouched meanwhile.
  expect((await rollback(id, { scope: 'target', node_id: 'edge-12' })).status).toBe(200);
  const [busy] = await takeConfigAttempts(a);
  await a.result(busy.attempt_id, { outcome: 'failed', generation: busy.generation, failure_class: 'temporary', code: 'busy' });
  await hub.context.rollouts.progress(id, 'test');
  expect(await target(id, 'edge-12')).toMatchObject({ recovery_phase: 'restoring', recovery_claim: claim });
  expect((await rollback(id, { scope: 'target', node_id: 'edge-12' })).body.code).toBe('rollback_in_progress');
  // The retried restore is refused pre-mutation: the moved class survives.
  now += 120_000;
  await hub.context.reconciler.reconcile('edge-12', 'test');
  const [retry] = await takeConfigAttempts(a);
  await a.result(retry.attempt_id, { outcome: 'failed', generation: retry.generation, failure_class: 'permanent', code: 'recovery_point_mismatch', mutation: 'pre_mutation' });
  await until(async () => ((await target(id, 'edge-12')).recovery_phase === 'failed' ? true : undefined));
  expect((await target(id, 'edge-12')).recovery_claim).toEqual(claim);
  const refusal = await sql<{ data: any }>`SELECT data FROM events WHERE stream_id = ${`rollout:${id}`} AND type = 'RolloutRecoveryFailed' ORDER BY position DESC LIMIT 1`.execute(t.db);
  expect(refusal.rows[0]!.data).toMatchObject({ class: 'pre_mutation', claim: 'post_mutation', code: 'recovery_point_mismatch' });

  // A later deploy (a rollback to the base version, as a new rollout) that fails is recorded beside the claim.
  const again = await rollback(id, { config_version: base });
  expect(again.status).toBe(201);
  const [deploy] = await takeConfigAttempts(a);
  await a.result(deploy.attempt_id, { outcome: 'failed', generation: deploy.generation, failure_class: 'permanent', code: 'invalid_config' });
  await until(async () => ((await target(again.body.rollout_id, 'edge-12')).state === 'failed' ? true : undefined));
  await hub.context.rollouts.progress(id, 'test');
  expect((await target(id, 'edge-12')).recovery_claim).toEqual(claim);
  expect((await rollout(id)).recovery).toBe('recovery_required');
  // Success evidence retires it: the node reports the version its newest intent wants.
  expect((await call('POST', `/api/v1/rollouts/${again.body.rollout_id}/actions`, { action: 'resume' })).status).toBe(200);
  const [ok] = await takeConfigAttempts(a);
  a.apply(ok);
  await a.result(ok.attempt_id, { outcome: 'succeeded', generation: ok.generation });
  await a.report();
  await hub.context.rollouts.progress(id, 'test');
  expect(await target(id, 'edge-12')).toMatchObject({ recovery_claim: null, recovery_phase: 'complete' });
  expect((await rollout(id)).recovery).toBe('none');
});

test('I7 I11 a moved claim of a rollout that has ended is retired by a newer apply that succeeds there and is reported, with nothing asking for that rollout', async () => {
  const { a, id } = await convergedWithPoint(28, 'i7e');
  expect((await rollback(id, { scope: 'target', node_id: 'edge-28' })).status).toBe(200);
  const [restore] = await takeConfigAttempts(a);
  await a.result(restore.attempt_id, { outcome: 'failed', generation: restore.generation, failure_class: 'permanent', code: 'restore_write_failed', mutation: 'post_mutation' });
  await until(async () => ((await target(id, 'edge-28')).recovery_claim?.class === 'post_mutation' ? true : undefined));
  expect((await rollout(id)).state).toBe('converged');
  // The operator mends the node with a newer apply (a single-node rollout of its own).
  const newer = await version('i7e-newer');
  expect((await call('POST', '/api/v1/nodes/edge-28/configuration/apply', { config_version: newer })).status).toBe(201);
  const [apply] = await takeConfigAttempts(a);
  a.apply(apply);
  await a.result(apply.attempt_id, { outcome: 'succeeded', generation: apply.generation });
  expect((await a.report()).status).toBe(202);
  await until(async () => ((await target(id, 'edge-28')).recovery_claim === null ? true : undefined));
  expect((await rollout(id)).recovery).toBe('none');
});

test('I7 a pre-mutation claim is also retired by a later failure', async () => {
  const { a, id, base } = await convergedWithPoint(13, 'i7p');
  await rollback(id, { scope: 'target', node_id: 'edge-13' });
  const [restore] = await takeConfigAttempts(a);
  await a.result(restore.attempt_id, { outcome: 'failed', generation: restore.generation, failure_class: 'permanent', code: 'recovery_point_mismatch' });
  await until(async () => ((await target(id, 'edge-13')).recovery_claim?.class === 'pre_mutation' ? true : undefined));
  const later = await rollback(id, { config_version: base });
  const [deploy] = await takeConfigAttempts(a);
  await a.result(deploy.attempt_id, { outcome: 'failed', generation: deploy.generation, failure_class: 'permanent', code: 'invalid_config' });
  await until(async () => ((await target(later.body.rollout_id, 'edge-13')).state === 'failed' ? true : undefined));
  await hub.context.rollouts.progress(id, 'test');
  expect(await target(id, 'edge-13')).toMatchObject({ recovery_claim: null, recovery_phase: 'failed' });
});

/**
 * DDL on the log while the agents report: PostgreSQL may break a deadlock between its locks and an append's by
 * failing the DDL (SQLSTATE 40P01), which then runs again.
 */
async function onLog(statement: RawBuilder<unknown>): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      await statement.execute(t.db);
      return;
    } catch (e) {
      if ((e as { code?: string }).code !== '40P01' || tries === 5) throw e;
    }
  }
}

test('I9 a restore terminal is recorded even when the progression step after it throws; a later rollback is accepted', async () => {
  const [a, b] = [await testNode(14), await testNode(16)];
  const base = await version('i9-base');
  const v = await version('i9-next');
  a.appliedConfig = base;
  const id = (await call('POST', '/api/v1/rollouts', { config_version: v, targets: { nodes: ['edge-14', 'edge-16'] }, batch_size: 2 })).body.rollout_id;
  const { point } = await applyWithPoint(a, base);
  await reportConfiguration(a, v, [point]);
  await until(async () => ((await target(id, 'edge-14')).state === 'converged' ? true : undefined));
  await rollback(id, { scope: 'target', node_id: 'edge-14' });
  const [restore] = await takeConfigAttempts(a);
  // From now on progression cannot record a target's convergence: the step after settling throws.
  await sql`CREATE FUNCTION i9_fail() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN IF NEW.type = 'RolloutTargetConverged' AND NEW.data->>'rollout_id' = ${sql.lit(id)} THEN RAISE EXCEPTION 'injected progression fault'; END IF; RETURN NEW; END $$`.execute(t.db);
  await onLog(sql`CREATE TRIGGER i9_fail BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION i9_fail()`);
  try {
    await applyWithPoint(b, null);
    await b.report();
    await a.result(restore.attempt_id, { outcome: 'failed', generation: restore.generation, failure_class: 'permanent', code: 'restore_write_failed', mutation: 'post_mutation' });
    // A pass here (as well as the job's, which pg-boss retries while the fault stands) settles, then fails.
    await expect(hub.context.rollouts.progress(id, 'test')).rejects.toThrow(/injected progression fault/);
    expect((await target(id, 'edge-14')).recovery_phase).toBe('failed');
    expect((await target(id, 'edge-16')).state).toBe('applying'); // the later step did fail
  } finally {
    await onLog(sql`DROP TRIGGER i9_fail ON events`);
  }
  expect((await rollback(id, { scope: 'target', node_id: 'edge-14' })).status).toBe(200);
});

test('I3 I5 a restore refused with a temporary failure gets its terminal and is never retried by the Hub; a new rollback restores again', async () => {
  const { a, id } = await convergedWithPoint(20, 'i5t');
  expect((await rollback(id, { scope: 'target', node_id: 'edge-20' })).status).toBe(200);
  const [restore] = await takeConfigAttempts(a);
  await a.result(restore.attempt_id, { outcome: 'failed', generation: restore.generation, failure_class: 'temporary', code: 'io_error', mutation: 'pre_mutation' });
  await until(async () => ((await target(id, 'edge-20')).recovery_phase === 'failed' ? true : undefined));
  expect((await target(id, 'edge-20')).recovery_claim).toMatchObject({ class: 'pre_mutation', code: 'io_error' });
  // Long after any backoff, the Hub has sent nothing: only the operator's next rollback restores again.
  now += 600_000;
  await hub.context.reconciler.reconcile('edge-20', 'test');
  expect(await a.attempts(0)).toEqual([]);
  expect((await rollback(id, { scope: 'target', node_id: 'edge-20' })).status).toBe(200);
  const [again] = await takeConfigAttempts(a);
  expect(again).toMatchObject({ operation: 'restore' });
  expect(again.attempt_id).not.toBe(restore.attempt_id);
});

test('I8 success evidence that arrives while a restore is in flight retires nothing; the claim waits for the restore to end', async () => {
  const { a, id, point } = await convergedWithPoint(26, 'i8e');
  // A first restore fails mid-write: a moved claim.
  expect((await rollback(id, { scope: 'target', node_id: 'edge-26' })).status).toBe(200);
  const [first] = await takeConfigAttempts(a);
  await a.result(first.attempt_id, { outcome: 'failed', generation: first.generation, failure_class: 'permanent', code: 'restore_write_failed', mutation: 'post_mutation' });
  await until(async () => ((await target(id, 'edge-26')).recovery_phase === 'failed' ? true : undefined));
  const claim = (await target(id, 'edge-26')).recovery_claim;
  expect(claim).toMatchObject({ class: 'post_mutation', code: 'restore_write_failed' });
  // A second restore is sent; its answer has not come.
  expect((await rollback(id, { scope: 'target', node_id: 'edge-26' })).status).toBe(200);
  const [inFlight] = await takeConfigAttempts(a);
  expect(inFlight).toMatchObject({ operation: 'restore' });
  const unmoved = async () => {
    await hub.context.rollouts.progress(id, 'test');
    expect(await target(id, 'edge-26')).toMatchObject({ recovery_phase: 'restoring', recovery_claim: claim });
    expect((await rollout(id)).recovery).toBe('restoring');
  };
  // Meanwhile a node-level apply of a newer configuration succeeds, then the node reports it: either would
  // retire the claim (I7), but not while its restore is in flight.
  const other = await version('i8e-other');
  const apply = await call('POST', '/api/v1/nodes/edge-26/configuration/apply', { config_version: other });
  expect(apply.status).toBe(201);
  const [applied] = await takeConfigAttempts(a);
  expect(applied).toMatchObject({ operation: 'config_apply', config_version: other });
  await a.result(applied.attempt_id, { outcome: 'succeeded', generation: applied.generation });
  await unmoved();
  await reportConfiguration(a, other, [point]);
  await until(async () => ((await rollout(apply.body.rollout_id)).state === 'converged' ? true : undefined));
  await unmoved();
  expect((await rollback(id, { scope: 'target', node_id: 'edge-26' })).body.code).toBe('rollback_in_progress');
  // The restore answers at last: its terminal is recorded, and only then does the newer apply's success
  // retire the claim.
  await a.result(inFlight.attempt_id, { outcome: 'failed', generation: inFlight.generation, failure_class: 'permanent', code: 'revert_failed', mutation: 'post_mutation' });
  await until(async () => ((await rollout(id)).recovery === 'none' ? true : undefined));
  expect(await target(id, 'edge-26')).toMatchObject({ recovery_phase: 'complete', recovery_claim: null });
  const ended = await sql<{ type: string; data: any }>`
    SELECT type, data FROM events WHERE stream_id = ${`rollout:${id}`} AND type IN ('RolloutRecoveryFailed', 'RolloutRecoveryClaimRetired') ORDER BY position`.execute(t.db);
  expect(ended.rows.map((r) => [r.type, r.data.code ?? r.data.evidence])).toEqual([
    ['RolloutRecoveryFailed', 'restore_write_failed'],
    ['RolloutRecoveryFailed', 'revert_failed'],
    ['RolloutRecoveryClaimRetired', 'converged'],
  ]);
});

test('I8 busy keeps the restore in flight even when the node adds a verdict', async () => {
  const { a, id } = await convergedWithPoint(21, 'i8v');
  expect((await rollback(id, { scope: 'target', node_id: 'edge-21' })).status).toBe(200);
  const [restore] = await takeConfigAttempts(a);
  await a.result(restore.attempt_id, { outcome: 'failed', generation: restore.generation, failure_class: 'temporary', code: 'busy', mutation: 'pre_mutation' });
  await hub.context.rollouts.progress(id, 'test');
  expect(await target(id, 'edge-21')).toMatchObject({ recovery_phase: 'restoring', recovery_claim: null });
  expect((await rollback(id, { scope: 'target', node_id: 'edge-21' })).body.code).toBe('rollback_in_progress');
});

test('I9 a restore that waited for its busy node and was then superseded gets its terminal (not sent); a later rollback is accepted', async () => {
  const { a, id } = await convergedWithPoint(22, 'i9b');
  expect((await rollback(id, { scope: 'target', node_id: 'edge-22' })).status).toBe(200);
  const [restore] = await takeConfigAttempts(a);
  await a.result(restore.attempt_id, { outcome: 'failed', generation: restore.generation, failure_class: 'temporary', code: 'busy' });
  // Before its retry, a node-level apply supersedes the waiting restore.
  expect((await call('POST', '/api/v1/nodes/edge-22/configuration/apply', { config_version: await version('i9b-other') })).status).toBe(201);
  await until(async () => ((await target(id, 'edge-22')).recovery_phase === 'failed' ? true : undefined));
  expect((await target(id, 'edge-22')).recovery_claim).toMatchObject({ class: 'pre_mutation', code: 'restore_not_sent' });
  expect((await rollout(id)).recovery).toBe('none');
});

test('I10 a restore in flight when the Hub stops is interrupted at boot; a later successful rollback clears it', async () => {
  const { a, id, base } = await convergedWithPoint(15, 'i10');
  await rollback(id, { scope: 'target', node_id: 'edge-15' });
  await takeConfigAttempts(a); // dispatched; the Hub goes down before any answer
  await hub.stop();
  now += 60_000;
  hub = await startTestHub(t.url, { config, clock });
  (a as { hub: Pick<TestHub, 'call'> }).hub = hub;
  expect((await target(id, 'edge-15')).recovery_claim).toMatchObject({ class: 'unknown', code: 'interrupted' });
  expect((await rollout(id)).recovery).toBe('recovery_required');
  expect((await rollback(id, { scope: 'target', node_id: 'edge-15' })).status).toBe(200);
  const [restore] = await takeConfigAttempts(a);
  a.apply(restore);
  await a.result(restore.attempt_id, { outcome: 'succeeded', generation: restore.generation });
  await until(async () => ((await rollout(id)).recovery === 'none' ? true : undefined));
  expect(await target(id, 'edge-15')).toMatchObject({ recovery_phase: 'complete', recovery_claim: null });
});

test('I6 the recovery state is derived from the live targets: each claim counts until retired, a cancelled target not at all', async () => {
  const [a, b] = [await testNode(17), await testNode(18)];
  const base = await version('i6-base');
  const v = await version('i6-next');
  const id = (await call('POST', '/api/v1/rollouts', { config_version: v, targets: { nodes: ['edge-17', 'edge-18'] }, batch_size: 2 })).body.rollout_id;
  for (const n of [a, b]) {
    n.appliedConfig = base;
    const { point } = await applyWithPoint(n, base);
    await reportConfiguration(n, v, [point]);
  }
  await until(async () => ((await rollout(id)).state === 'converged' ? true : undefined));
  expect((await rollback(id, { scope: 'all_changed' })).status).toBe(200);
  for (const n of [a, b]) {
    const [restore] = await takeConfigAttempts(n);
    await n.result(restore.attempt_id, { outcome: 'failed', generation: restore.generation, failure_class: 'permanent', code: 'restore_write_failed', mutation: 'post_mutation' });
  }
  await until(async () => ((await rollout(id)).targets.every((x: any) => x.recovery_claim?.class === 'post_mutation') ? true : undefined));
  expect((await rollout(id)).recovery).toBe('recovery_required');
  a.appliedConfig = base;
  await a.report();
  await until(async () => ((await target(id, 'edge-17')).recovery_claim === null ? true : undefined));
  expect((await rollout(id)).recovery).toBe('recovery_required'); // edge-18 still claims
  b.appliedConfig = base;
  await b.report();
  await until(async () => ((await rollout(id)).recovery === 'none' ? true : undefined));

  // A target cancelled with its claim no longer counts. (Progression is stopped so that the applying
  // target is not first settled as failed: the cancel finds it applying, with its claim.)
  const c = await testNode(19);
  const w = await version('i6-cancel');
  const held = (await call('POST', '/api/v1/rollouts', { config_version: w, targets: { nodes: ['edge-19'] } })).body.rollout_id;
  const [apply] = await takeConfigAttempts(c);
  await c.result(apply.attempt_id, { outcome: 'succeeded', generation: apply.generation });
  await reportConfiguration(c, base, [{ ref: `rp_${apply.attempt_id}`, config_version: base }]);
  await withoutProgression(async () => {
    expect((await rollback(held, { scope: 'target', node_id: 'edge-19' })).status).toBe(200);
    const [restore] = await takeConfigAttempts(c);
    await c.result(restore.attempt_id, { outcome: 'failed', generation: restore.generation, failure_class: 'permanent', code: 'revert_failed' });
    const actor = { principal: 'hub', role: 'system' as const, source: 'worker' as const, correlationId: 'i6' };
    await hub.context.pipeline.run(actor, settleRecovery(held));
    expect(await rollout(held)).toMatchObject({ recovery: 'recovery_required', targets: [{ state: 'applying', recovery_claim: { class: 'post_mutation', code: 'revert_failed' } }] });
    expect((await call('POST', `/api/v1/rollouts/${held}/actions`, { action: 'cancel' })).body).toMatchObject({ state: 'cancelled', recovery: 'none' });
  });
  const holds = await sql`SELECT * FROM recovery_holds WHERE rollout_id = ${held}`.execute(t.db);
  expect(holds.rows).toEqual([]);
});

test('I9 a restore a cancel withdrew before it was sent gets its terminal on the cancelled target', async () => {
  const a = await testNode(23);
  const base = await version('i9c-base');
  const v = await version('i9c-next');
  a.appliedConfig = base;
  const id = (await call('POST', '/api/v1/rollouts', { config_version: v, targets: { nodes: ['edge-23'] } })).body.rollout_id;
  // The apply ran and captured its point, but the node still reports the old version: the target is applying.
  const { point } = await applyWithPoint(a, base);
  await reportConfiguration(a, base, [point]);
  // No pass runs between the rollback and the cancel (progression stopped), so the cancel finds the target
  // applying and cancels it, restore and all.
  await withoutProgression(async () => {
    expect((await rollback(id, { scope: 'target', node_id: 'edge-23' })).status).toBe(200);
    expect((await call('POST', `/api/v1/rollouts/${id}/actions`, { action: 'cancel' })).body.state).toBe('cancelled');
    expect(await target(id, 'edge-23')).toMatchObject({ state: 'cancelled', recovery_phase: 'restoring' });
    // The cancel asked for the pass that settles it.
    const jobs = await sql<{ n: string }>`SELECT count(*) n FROM pgboss.job WHERE name = 'rollout' AND singleton_key = ${id} AND state = 'created'`.execute(t.db);
    expect(Number(jobs.rows[0]!.n)).toBeGreaterThanOrEqual(1);
    await hub.context.pipeline.run({ principal: 'hub', role: 'system', source: 'worker', correlationId: 'i9c' }, settleRecovery(id));
    expect(await target(id, 'edge-23')).toMatchObject({ recovery_phase: 'failed', recovery_claim: { class: 'pre_mutation', code: 'restore_not_sent' } });
    expect((await rollout(id)).recovery).toBe('none');
  });
});

test('J3 recovery phases and claims rebuild exactly from the log', async () => {
  // A claim of its own, beside whatever the other tests left.
  const { a, id } = await convergedWithPoint(27, 'j3');
  expect((await rollback(id, { scope: 'target', node_id: 'edge-27' })).status).toBe(200);
  const [restore] = await takeConfigAttempts(a);
  await a.result(restore.attempt_id, { outcome: 'failed', generation: restore.generation, failure_class: 'permanent', code: 'revert_failed' });
  await until(async () => ((await target(id, 'edge-27')).recovery_claim?.class === 'post_mutation' ? true : undefined));
  expect(await verifyProjections(t.db, allProjections)).toEqual([]);
});
