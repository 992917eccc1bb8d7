import { sql } from 'kysely';
import { fleetplane } from '../../../../../test/support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../../../../test/support/database.ts';
import { eventually, takeAttempts, takeConfigAttempts, TestAgent } from '../../../../../test/support/fleet.ts';
import { startTestHub, testConfig, TOKENS, type TestHub } from '../../../../../test/support/hub.ts';
import { EXIT } from '../../cli/exit.ts';
import { run } from '../../cli/run.ts';
import { connect } from '../../database/connect.ts';
import { readIntentWaits, waitingOnView } from './waiting.ts';

// Issue 22, item 1: every stall has a reason. Through the Hub's HTTP API (and the CLI) against PostgreSQL:
// rollout targets, intents and streams' intents say what they wait on, one test per kind (mode, drain,
// offline and the recovery hold are proven where those behaviours are: rollouts.test.ts, recovery.test.ts).

let t: TestDatabase;
let hub: TestHub;
/** The Hub's clock runs with real time, shifted by `skew`. */
let skew = 0;
beforeAll(async () => {
  t = await createTestDatabase();
  hub = await startTestHub(t.url, {
    config: testConfig(20, { mode: 'configuration', lease_ms: 30_000, retry_base_ms: 600_000, retry_max_ms: 600_000 }),
    clock: { now: () => new Date(Date.now() + skew) },
  });
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
});

const asOperator = (method: string, path: string, body?: unknown) => hub.call(method, path, { token: TOKENS.operator, ...(body !== undefined ? { body } : {}) });
const cli = (...args: string[]) => fleetplane(args, { FLEETPLANE_HUB: hub.url, FLEETPLANE_TOKEN: TOKENS.operator });

async function node(n: number, extra: Record<string, unknown> = {}): Promise<TestAgent> {
  const a = new TestAgent(hub, `edge-${n}`);
  expect((await a.register(extra)).status).toBe(200);
  expect((await a.report()).status).toBe(202);
  return a;
}
async function version(content: string): Promise<string> {
  return (await asOperator('POST', '/api/v1/config-versions', { content, format: 'text' })).body.config_version;
}
const put = (stream: string, body: Record<string, unknown>) => asOperator('PUT', `/api/v1/streams/${stream}`, body);
const running = (nodes: string[], split = false) => ({ desired_state: 'running', spec: { command: 'worker' }, placement: { nodes, split } });
const rollout = async (id: string) => (await hub.call('GET', `/api/v1/rollouts/${id}`)).body;
const target = async (id: string, nodeId: string) => (await rollout(id)).targets.find((x: any) => x.node_id === nodeId);
/** The stream's intent on the node, as GET /streams/{id} shows it. */
const streamIntent = async (stream: string, nodeId: string) => ((await hub.call('GET', `/api/v1/streams/${stream}`)).body.intents as any[]).find((i) => i.node_id === nodeId);
const waitsOn = (read: () => Promise<any>, kind: string) =>
  eventually(async () => {
    const w = (await read())?.waiting_on;
    return w?.kind === kind ? w : undefined;
  });

test("issue 22 the demo fleet's stall: an unrelated stream blocked with command_not_found on a rollout target's node is named in API and CLI until it is stopped", async () => {
  const a = await node(1);
  expect((await put('broken', { ...running(['edge-1']), spec: { command: 'no-such-binary' } })).status).toBe(200);
  const [start] = await takeAttempts(a, 'broken');
  const failed = { outcome: 'failed', generation: start.generation, failure_class: 'permanent', code: 'command_not_found', message: 'command not found: no-such-binary' };
  expect((await a.result(start.attempt_id, failed)).status).toBe(200);
  expect((await a.report()).status).toBe(202);
  const blocked = await streamIntent('broken', 'edge-1');
  // C2 new_generation: the stream's own intent waits for a new generation.
  expect(blocked).toMatchObject({ state: 'blocked', waiting_on: { kind: 'new_generation', intent_id: blocked.intent_id } });

  const v = await version('demo');
  const created = await asOperator('POST', '/api/v1/rollouts', { config_version: v, targets: { nodes: ['edge-1'] } });
  expect(created.status).toBe(201);
  const id = created.body.rollout_id;
  // job: the batch opened the intent and the node's reconcile pass is queued; on a quiet machine that pass may
  // already have queued the apply before the POST answers (the job kind has a test of its own below).
  expect(created.body.targets[0]).toMatchObject({ state: 'applying', waiting_on: { node_id: 'edge-1' } });
  expect(['job', 'attempt_queued']).toContain(created.body.targets[0].waiting_on.kind);
  // attempt_queued: the agent has not taken it yet.
  expect(await waitsOn(() => target(id, 'edge-1'), 'attempt_queued')).toMatchObject({ node_id: 'edge-1', attempt_id: expect.any(String) });
  const [apply] = await takeConfigAttempts(a);
  // attempt_dispatched: the node holds it until its lease ends.
  expect((await target(id, 'edge-1')).waiting_on).toMatchObject({ kind: 'attempt_dispatched', attempt_id: apply.attempt_id, at: expect.any(String) });
  a.apply(apply);
  expect((await a.result(apply.attempt_id, { outcome: 'succeeded', generation: apply.generation })).status).toBe(200);
  // report (A12): success is not convergence.
  expect((await target(id, 'edge-1')).waiting_on).toMatchObject({ kind: 'report', node_id: 'edge-1' });
  expect((await a.report()).status).toBe(202);

  // stream_blocked (A10): the node runs the version, the rollout still waits, and says on what.
  const stalled = await target(id, 'edge-1');
  expect(stalled).toMatchObject({
    state: 'applying',
    intent_state: 'converging',
    waiting_on: { kind: 'stream_blocked', node_id: 'edge-1', stream_id: 'broken', intent_id: blocked.intent_id, attempt_id: null, at: null },
  });
  expect(stalled.waiting_on.message).toMatch(/stream broken is blocked on node edge-1 \(permanent command_not_found\)/);
  const intent = (await hub.call('GET', `/api/v1/intents/${stalled.intent_id}`)).body;
  expect(intent.waiting_on).toEqual(stalled.waiting_on);
  const listed = (await hub.call('GET', `/api/v1/intents?rollout_id=${id}`)).body.items;
  expect(listed[0].waiting_on).toEqual(stalled.waiting_on);

  const got = await cli('rollouts', 'get', id);
  expect(got.code).toBe(EXIT.ok);
  expect(got.out).toMatch(/^edge-1\s+1\s+applying\s+converging\s+stream_blocked broken\s/m);
  expect(got.out).toMatch(/^ {2}waiting: edge-1 on stream_blocked broken: stream broken is blocked on node edge-1 \(permanent command_not_found\)/m);
  expect((await cli('streams', 'get', 'broken')).out).toMatch(/\sblocked\s+0\s+command_not_found\s+new_generation edge-1$/m);

  // Stopping the stream lets the rollout finish: its watch shows the reason, then the end.
  let shown = '';
  const io = { out: (text: string) => void (shown += text), err: () => {}, env: { FLEETPLANE_HUB: hub.url, FLEETPLANE_TOKEN: TOKENS.operator }, signal: new AbortController().signal };
  const watching = run(['rollouts', 'watch', id, '--interval', '50'], io);
  await eventually(async () => (shown.includes('stream_blocked') ? true : undefined));
  expect((await put('broken', { ...running(['edge-1']), spec: { command: 'no-such-binary' }, desired_state: 'stopped' })).status).toBe(200);
  // stream_converging: the stop is on its way.
  const converging = await waitsOn(() => target(id, 'edge-1'), 'stream_converging');
  expect(converging).toMatchObject({ stream_id: 'broken', node_id: 'edge-1' });
  const [stop] = await takeAttempts(a, 'broken');
  a.apply(stop);
  await a.result(stop.attempt_id, { outcome: 'succeeded', generation: stop.generation });
  await a.report();
  expect(await watching).toBe(EXIT.ok);
  expect(shown).toMatch(/^ {2}waiting: edge-1 on stream_blocked broken: stream broken is blocked/m);
  expect(shown).toMatch(/: converged, batch 1\/1$/m);
  expect((await target(id, 'edge-1')).waiting_on).toBeNull();
});

test('issue 22 C4 C5 ambiguous_attempt: an attempt whose lease ran out waits for a newer report, naming the attempt', async () => {
  const a = await node(2);
  await put('lost', running(['edge-2']));
  const [attempt] = await takeAttempts(a, 'lost');
  skew = 31_000;
  try {
    await eventually(async () => {
      await hub.context.reconciler.sweep();
      return (await streamIntent('lost', 'edge-2')).state === 'ambiguous' ? true : undefined;
    });
    const intent = await streamIntent('lost', 'edge-2');
    expect(intent.waiting_on).toMatchObject({ kind: 'ambiguous_attempt', attempt_id: attempt.attempt_id, intent_id: intent.intent_id, node_id: 'edge-2' });
    expect(intent.waiting_on.message).toMatch(/newer than report 1 of boot edge-2-boot-1/);
  } finally {
    skew = 0;
  }
});

test('issue 22 C1 retry: a temporary failure waits for its retry time', async () => {
  const a = await node(3);
  await put('flaky', running(['edge-3']));
  const [attempt] = await takeAttempts(a, 'flaky');
  await a.result(attempt.attempt_id, { outcome: 'failed', generation: attempt.generation, failure_class: 'temporary', code: 'busy', message: 'try later' });
  const intent = await streamIntent('flaky', 'edge-3');
  expect(intent).toMatchObject({ state: 'retrying', retry_count: 1 });
  expect(intent.waiting_on).toMatchObject({ kind: 'retry', intent_id: intent.intent_id, at: intent.next_retry_at });
  expect(intent.waiting_on.message).toMatch(/temporary busy/);
});

test('issue 22 E1 A1 placement and node_unregistered: a split placement waits for a node that never registered, which waits for its agent', async () => {
  await node(4, { capabilities: ['network_shuffle'], data_address: '127.0.0.1:7004' });
  expect((await put('shuffle', running(['edge-4', 'edge-ghost'], true))).status).toBe(200);
  await hub.context.reconciler.reconcile('edge-4', 'test');
  expect((await streamIntent('shuffle', 'edge-4')).waiting_on).toMatchObject({ kind: 'placement', node_id: 'edge-ghost', stream_id: 'shuffle' });
  expect((await streamIntent('shuffle', 'edge-ghost')).waiting_on).toMatchObject({ kind: 'node_unregistered', node_id: 'edge-ghost' });
});

test('issue 22 node_stale: a node silent past stale_after_ms holds its queued attempt', async () => {
  skew = -60_000;
  try {
    await node(5);
  } finally {
    skew = 0;
  }
  await put('quiet', running(['edge-5']));
  expect((await streamIntent('quiet', 'edge-5')).waiting_on).toMatchObject({ kind: 'node_stale', node_id: 'edge-5' });
});

test('issue 22 G1 G2 batch and rollout_paused: a later batch names the current batch\'s open target; pausing makes it wait for resume', async () => {
  await node(6);
  await node(7);
  const id = (await asOperator('POST', '/api/v1/rollouts', { config_version: await version('batches'), targets: { nodes: ['edge-6', 'edge-7'] }, batch_size: 1 })).body.rollout_id;
  expect((await target(id, 'edge-7')).waiting_on).toMatchObject({ kind: 'batch', node_id: 'edge-6' });
  expect((await asOperator('POST', `/api/v1/rollouts/${id}/actions`, { action: 'pause' })).status).toBe(200);
  expect((await target(id, 'edge-7')).waiting_on).toMatchObject({ kind: 'rollout_paused' });
  const progress = await cli('rollouts', 'get', id);
  expect(progress.out).toMatch(/^ {2}batch 2 waits on rollout_paused: the rollout is paused/m);
  expect((await asOperator('POST', `/api/v1/rollouts/${id}/actions`, { action: 'cancel' })).status).toBe(200);
  expect((await rollout(id)).targets.map((x: any) => x.waiting_on)).toEqual([null, null]);
});

test('issue 21 issue 22 B3: what intents wait on is read by prepared statements, named by how many keys each reads, and answers as the view does', async () => {
  await node(9);
  await node(10);
  expect((await put('waits-one', running(['edge-9']))).status).toBe(200);
  expect((await put('waits-two', running(['edge-9', 'edge-10']))).status).toBe(200);
  // One connection, so that its session's prepared statements are the ones these reads made.
  const database = connect(t.url, { max: 1 });
  try {
    const context = { ...hub.context, database };
    for (const stream of ['waits-one', 'waits-two']) {
      const rows = await database.db.selectFrom('intents').selectAll().where('stream_id', '=', stream).execute();
      const waits = await readIntentWaits(context, rows);
      for (const r of rows) expect(waitingOnView(waits.get(r.intent_id) ?? null)).toEqual((await streamIntent(stream, r.node_id)).waiting_on);
    }
    const { rows } = await sql<{ name: string }>`SELECT name FROM pg_prepared_statements WHERE name LIKE 'wait%' OR name LIKE 'mode%' ORDER BY name`.execute(database.db);
    // One node and intent by equality (`wait_`), two by an array (`waits_`); the mode, read without a lock, has one text.
    expect(rows.map((r) => r.name)).toEqual([
      'mode_none',
      'wait_attempts', 'wait_holds', 'wait_nodes',
      'waits_attempts', 'waits_holds', 'waits_lifecycle', 'waits_nodes', 'waits_observed',
    ]);
  } finally {
    await database.close();
  }
});

// Last: it stops this Hub's rollout workers.
test("issue 22 job: a target whose intent converged waits for the rollout's queued pass", async () => {
  const a = await node(8);
  await hub.context.rollouts.stop();
  const id = (await asOperator('POST', '/api/v1/rollouts', { config_version: await version('job'), targets: { nodes: ['edge-8'] } })).body.rollout_id;
  const [apply] = await takeConfigAttempts(a);
  a.apply(apply);
  await a.result(apply.attempt_id, { outcome: 'succeeded', generation: apply.generation });
  await a.report();
  expect(await target(id, 'edge-8')).toMatchObject({ state: 'applying', intent_state: 'converged', waiting_on: { kind: 'job', node_id: 'edge-8' } });
});
