import { sql } from 'kysely';
import pg from 'pg';
import { createTestDatabase, type TestDatabase, waitingForLocks } from '../../../../test/support/database.ts';
import { eventually, takeAttempts, TestAgent } from '../../../../test/support/fleet.ts';
import { startTestHub, testConfig, type TestHub, TOKENS } from '../../../../test/support/hub.ts';
import { counterTotal } from '../metrics.ts';

// SPEC B (reconciliation modes), D (drain) and E (split placement), end to end: a Hub over HTTP, its
// reconcile worker running in the background, and simulated agents polling for their attempts.

const STALE_AFTER_MS = 30_000;

let t: TestDatabase;
let hub: TestHub;
/** The Hub's clock runs with real time, shifted by `skew`: tests move it forward to age nodes. */
let skew = 0;
beforeAll(async () => {
  t = await createTestDatabase();
  hub = await startTestHub(t.url, {
    config: testConfig(50, { stale_after_ms: STALE_AFTER_MS, offline_after_ms: 120_000 }),
    clock: { now: () => new Date(Date.now() + skew) },
  });
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
});
// Every test starts in the configured global mode (lifecycle), whatever the one before it left.
beforeEach(async () => {
  expect((await hub.call('PUT', '/api/v1/settings/reconciliation', { token: TOKENS.operator, body: { mode: 'lifecycle' } })).status).toBe(200);
});

const spec = (args: string[] = ['60']) => ({ command: 'sleep', args });
const desired = (nodes: string[], state = 'running', extra: { split?: boolean; args?: string[] } = {}) => ({
  desired_state: state,
  spec: spec(extra.args),
  placement: { nodes, ...(extra.split !== undefined ? { split: extra.split } : {}) },
});
const put = async (id: string, body: unknown) => {
  const r = await hub.call('PUT', `/api/v1/streams/${id}`, { token: TOKENS.operator, body });
  expect(r.status).toBe(200);
  return r.body;
};
const setGlobalMode = (mode: string | null, token: string = TOKENS.operator) =>
  hub.call('PUT', '/api/v1/settings/reconciliation', { token, body: { mode } });
const setNodeMode = (nodeId: string, mode: string | null, token: string = TOKENS.operator) =>
  hub.call('PUT', `/api/v1/nodes/${nodeId}/mode`, { token, body: { mode } });
const drain = (nodeId: string, token: string = TOKENS.operator) => hub.call('POST', `/api/v1/nodes/${nodeId}/drain`, { token });
const undrain = (nodeId: string, token: string = TOKENS.operator) => hub.call('POST', `/api/v1/nodes/${nodeId}/undrain`, { token });

const SHUFFLE = (n: number) => ({ capabilities: ['network_shuffle'], data_address: `10.0.0.${n}:7000` });

/** A registered simulated agent for edge-n. */
async function agent(n: number, registration: Record<string, unknown> = {}): Promise<TestAgent> {
  const a = new TestAgent(hub, `edge-${n}`);
  expect((await a.register(registration)).status).toBe(200);
  return a;
}

async function rows<R>(query: ReturnType<typeof sql<R>>): Promise<R[]> {
  return (await query.execute(t.db)).rows;
}
const attemptRows = (streamId: string) =>
  rows<{ node_id: string; generation: string; operation: string; state: string }>(
    sql`SELECT node_id, generation, operation, state FROM attempts WHERE stream_id = ${streamId} ORDER BY created_at, node_id`,
  );
const intentRows = (streamId: string) =>
  rows<{ intent_id: string; node_id: string; generation: string; desired_state: string; state: string; failure_class: string | null; failure_code: string | null }>(
    sql`SELECT intent_id, node_id, generation, desired_state, state, failure_class, failure_code
        FROM intents WHERE stream_id = ${streamId} ORDER BY generation, node_id`,
  );
const eventRows = (streamId: string, type: string) =>
  rows<{ data: Record<string, unknown>; metadata: { actor: string; role: string; source: string; correlation_id: string } }>(
    sql`SELECT data, metadata FROM event_history WHERE stream_id = ${streamId} AND type = ${type} ORDER BY position`,
  );

/** Waits until the node's reconcile jobs have all run (nothing created, retrying or active). */
async function settled(nodeId: string): Promise<void> {
  await eventually(async () => {
    const [r] = await rows<{ n: string }>(sql`SELECT count(*) n FROM pgboss.job
      WHERE name = 'reconcile' AND singleton_key = ${nodeId} AND state IN ('created', 'retry', 'active')`);
    return Number(r!.n) === 0 ? true : undefined;
  });
}

/** Asserts that nothing is (or becomes) deliverable to the node: the worker has run, a pass of our own queues nothing, a poll answers []. */
async function nothingFor(a: TestAgent, streamId?: string): Promise<void> {
  await settled(a.nodeId);
  expect(await hub.context.reconciler.reconcile(a.nodeId, 'test')).toBe(0);
  const got = await a.attempts(1);
  expect(streamId ? got.filter((x) => x.stream_id === streamId) : got).toEqual([]);
}

const take = takeAttempts;

const brief = (attempts: Array<{ generation: number; operation: string }>) => attempts.map((x) => [x.operation, x.generation]);

/** Runs the attempt on the simulated node and reports it, so the intent converges. */
async function runAndReport(a: TestAgent, attempt: any): Promise<void> {
  a.apply(attempt);
  expect((await a.result(attempt.attempt_id, { outcome: 'succeeded', generation: attempt.generation })).status).toBe(200);
  expect((await a.report()).status).toBe(202);
}

/** GET /drift, and the `drift` view read with SQL under the same session settings (clock and threshold). */
async function driftOverRest(): Promise<any[]> {
  const r = await hub.call('GET', '/api/v1/drift', { token: TOKENS.viewer });
  expect(r.status).toBe(200);
  return r.body.items;
}
async function driftOverSql(options: { role?: string } = {}): Promise<any[]> {
  return t.db.transaction().execute(async (trx) => {
    if (options.role) await sql`SET LOCAL ROLE ${sql.id(options.role)}`.execute(trx);
    await sql`SELECT set_config('fleetplane.now', ${new Date(Date.now() + skew).toISOString()}, true),
      set_config('fleetplane.stale_after_ms', ${String(STALE_AFTER_MS)}, true)`.execute(trx);
    return (await sql<any>`SELECT * FROM drift ORDER BY node_id, stream_id NULLS FIRST, kind`.execute(trx)).rows;
  });
}
const driftOf = (items: any[], nodeId: string) =>
  items.filter((d) => d.node_id === nodeId).map((d) => ({
    stream_id: d.stream_id,
    kind: d.kind,
    desired_generation: d.desired_generation === null ? null : Number(d.desired_generation),
    observed_generation: d.observed_generation === null ? null : Number(d.observed_generation),
    observed_state: d.observed_state,
  }));

// ---------------------------------------------------------------------------------------------------
// B. Reconciliation modes

test('B1 observe mode persists reports and dispatches nothing: no attempt rows, the poll answers []', async () => {
  expect((await setGlobalMode('observe')).body).toEqual({ mode: 'observe', source: 'operator' });
  const a = await agent(1);
  await put('b1', desired(['edge-1']));
  await put('b1', desired(['edge-1'], 'running', { args: ['120'] }));
  await nothingFor(a);
  expect(await attemptRows('b1')).toEqual([]);
  expect((await intentRows('b1')).map((i) => [Number(i.generation), i.state])).toEqual([[1, 'superseded'], [2, 'pending']]);

  // The node reports what it runs: the report is persisted as an event and in the observed projection.
  a.streams.set('b1', { stream_id: 'b1', generation: 1, state: 'running' });
  expect((await a.report()).status).toBe(202);
  const reported = await eventRows('node:edge-1', 'NodeReported');
  expect(reported).toHaveLength(1);
  expect(reported[0]!.data).toEqual({ seq: 1, streams: [['b1', 1, 'running']], config: null, points: [] });
  expect(reported[0]!.metadata).toMatchObject({ actor: 'edge-1-agent', role: 'agent' });
  expect(await rows(sql`SELECT stream_id, generation::int, state FROM observed_streams WHERE node_id = 'edge-1'`)).toEqual([
    { stream_id: 'b1', generation: 1, state: 'running' },
  ]);
  expect((await hub.call('GET', '/api/v1/nodes/edge-1')).body).toMatchObject({ last_report_seq: 1, mode: 'observe' });
  // Still nothing dispatched after the report.
  await nothingFor(a);
  expect(await attemptRows('b1')).toEqual([]);
});

test('B1 observe mode computes drift: a generation mismatch, and a stale node once the clock passes stale_after_ms', async () => {
  await setGlobalMode('observe');
  const a = await agent(2);
  await put('b1-drift', desired(['edge-2']));
  await put('b1-drift', desired(['edge-2'], 'running', { args: ['90'] }));
  a.streams.set('b1-drift', { stream_id: 'b1-drift', generation: 1, state: 'running' });
  expect((await a.report()).status).toBe(202);

  expect(driftOf(await driftOverRest(), 'edge-2')).toEqual([
    { stream_id: 'b1-drift', kind: 'generation_mismatch', desired_generation: 2, observed_generation: 1, observed_state: 'running' },
  ]);
  // Time passes (the injected clock) without a word from the node: it is stale, and so reported.
  skew += STALE_AFTER_MS + 1_000;
  const stale = driftOf(await driftOverRest(), 'edge-2');
  expect(stale).toEqual([
    { stream_id: null, kind: 'stale_node', desired_generation: null, observed_generation: null, observed_state: null },
    { stream_id: 'b1-drift', kind: 'generation_mismatch', desired_generation: 2, observed_generation: 1, observed_state: 'running' },
  ]);
  // A fresh report ends the staleness, not the mismatch; nothing was dispatched all along.
  expect((await a.report()).status).toBe(202);
  expect(driftOf(await driftOverRest(), 'edge-2').map((d) => d.kind)).toEqual(['generation_mismatch']);
  await nothingFor(a);
  expect(await attemptRows('b1-drift')).toEqual([]);
});

test('B2 lifecycle mode dispatches job_start for a running stream and job_stop for a stopped one', async () => {
  const a = await agent(3);
  await put('b2', desired(['edge-3']));
  const [start] = await take(a, 'b2');
  expect(start).toMatchObject({ operation: 'job_start', stream_id: 'b2', generation: 1, spec: spec() });
  await runAndReport(a, start);
  await put('b2', desired(['edge-3'], 'stopped'));
  const stop = await take(a, 'b2');
  expect(brief(stop)).toEqual([['job_stop', 2]]);
});

test('B2 configuration mode dispatches start/stop too', async () => {
  const a = await agent(4);
  expect((await setNodeMode('edge-4', 'configuration')).body).toMatchObject({ mode: 'configuration', mode_override: 'configuration' });
  await put('b2-conf', desired(['edge-4']));
  expect(brief(await take(a, 'b2-conf'))).toEqual([['job_start', 1]]);
});

test('B3 a per-node override to observe stops dispatch on that node only; null restores the global mode', async () => {
  const [a5, a6] = [await agent(5), await agent(6)];
  const set = await setNodeMode('edge-5', 'observe');
  expect(set.status).toBe(200);
  expect(set.body).toMatchObject({ node_id: 'edge-5', mode: 'observe', mode_override: 'observe' });
  await put('b3', desired(['edge-5', 'edge-6']));
  expect(brief(await take(a6, 'b3'))).toEqual([['job_start', 1]]);
  await nothingFor(a5);
  expect((await attemptRows('b3')).map((r) => r.node_id)).toEqual(['edge-6']);

  const back = await setNodeMode('edge-5', null);
  expect(back.body).toMatchObject({ mode: 'lifecycle', mode_override: null });
  expect(brief(await take(a5, 'b3'))).toEqual([['job_start', 1]]);
});

test('B3 an attempt already queued is not handed out once its node is in observe mode', async () => {
  const a = await agent(7);
  await put('b3-queued', desired(['edge-7']));
  await eventually(async () => ((await attemptRows('b3-queued')).length ? true : undefined));
  await setNodeMode('edge-7', 'observe');
  expect(await a.attempts(1)).toEqual([]);
  expect((await attemptRows('b3-queued')).map((r) => r.state)).toEqual(['queued']);
  await setNodeMode('edge-7', null);
  expect(brief(await take(a, 'b3-queued'))).toEqual([['job_start', 1]]);
});

test('B3 the global mode applies to every node without an override; observe→lifecycle dispatches the pending intents', async () => {
  const [a8, a9] = [await agent(8), await agent(9)];
  expect((await setGlobalMode('observe')).status).toBe(200);
  await setNodeMode('edge-9', 'lifecycle');
  await put('b3-global', desired(['edge-8', 'edge-9']));
  expect(brief(await take(a9, 'b3-global'))).toEqual([['job_start', 1]]);
  await nothingFor(a8);
  expect((await hub.call('GET', '/api/v1/nodes/edge-8')).body).toMatchObject({ mode: 'observe', mode_override: null });
  expect((await hub.call('GET', '/api/v1/nodes/edge-9')).body).toMatchObject({ mode: 'lifecycle', mode_override: 'lifecycle' });
  expect((await intentRows('b3-global')).map((i) => [i.node_id, i.state])).toEqual([['edge-8', 'pending'], ['edge-9', 'converging']]);

  // Back to lifecycle: the pending intent is dispatched without any other write.
  expect((await setGlobalMode('lifecycle')).body).toEqual({ mode: 'lifecycle', source: 'operator' });
  expect(brief(await take(a8, 'b3-global'))).toEqual([['job_start', 1]]);
  // An override to observe under a global lifecycle, then null, follows the global again.
  await setNodeMode('edge-9', 'observe');
  expect((await hub.call('GET', '/api/v1/nodes/edge-9')).body).toMatchObject({ mode: 'observe', mode_override: 'observe' });
  await setNodeMode('edge-9', null);
  expect((await hub.call('GET', '/api/v1/nodes/edge-9')).body).toMatchObject({ mode: 'lifecycle', mode_override: null });
});

test('B1 B3 a lease in flight when the global mode turns to observe commits first: nothing is dispatched after the change', async () => {
  const a = await agent(39);
  await put('b3-race', desired(['edge-39']));
  const [queued] = await eventually(async () => {
    const r = await rows<{ intent_id: string }>(sql`SELECT intent_id FROM attempts WHERE stream_id = 'b3-race' AND state = 'queued'`);
    return r.length ? r : undefined;
  });
  // Another transaction holds the attempt's intent, so the node's lease waits with the mode already read.
  const holder = new pg.Client({ connectionString: t.url });
  await holder.connect();
  let changed: Promise<{ status: number }>;
  let polled: Promise<unknown[]>;
  try {
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM intents WHERE intent_id = $1 FOR UPDATE', [queued!.intent_id]);
    polled = a.attempts(0);
    await waitingForLocks(t.db, 1);
    // The change to observe waits for that lease to commit.
    changed = setGlobalMode('observe');
    await waitingForLocks(t.db, 2);
    await holder.query('COMMIT');
  } finally {
    await holder.end();
  }
  expect(brief((await polled) as any[])).toEqual([['job_start', 1]]);
  expect((await changed).status).toBe(200);
  const [order] = await rows<{ dispatched: string; observe: string }>(sql`
    SELECT (SELECT max(position) FROM events WHERE type = 'AttemptDispatched' AND data->>'intent_id' = ${queued!.intent_id}) AS dispatched,
           (SELECT max(position) FROM events WHERE type = 'ReconciliationModeSet') AS observe`);
  expect(BigInt(order!.dispatched)).toBeLessThan(BigInt(order!.observe));
});

test('B3 an agent already waiting in its long poll gets an attempt queued before observe as soon as the global mode returns', async () => {
  const a = await agent(40);
  await put('b3-wake', desired(['edge-40']));
  await eventually(async () => ((await attemptRows('b3-wake')).length ? true : undefined));
  expect((await setGlobalMode('observe')).status).toBe(200);
  // The poll is open before the switch back; it must be woken by it, not by its own 20 s deadline.
  const started = Date.now();
  const poll = a.attempts(20);
  await new Promise((r) => setTimeout(r, 100));
  expect((await setGlobalMode('lifecycle')).status).toBe(200);
  expect(brief((await poll).filter((x) => x.stream_id === 'b3-wake'))).toEqual([['job_start', 1]]);
  expect(Date.now() - started).toBeLessThan(15_000);
});

test('B3 every mode change is an audited event with actor and role; a repeat records nothing; a viewer gets 403', async () => {
  await agent(10);
  const globalBefore = (await eventRows('settings:reconciliation', 'ReconciliationModeSet')).length;
  const nodeBefore = (await eventRows('node:edge-10', 'NodeModeSet')).length;

  await setGlobalMode('observe', TOKENS.operator);
  await setGlobalMode('observe', TOKENS.admin); // the same mode again: nothing to record
  await setGlobalMode('lifecycle', TOKENS.admin);
  const globalEvents = (await eventRows('settings:reconciliation', 'ReconciliationModeSet')).slice(globalBefore);
  expect(globalEvents.map((e) => [e.data, e.metadata.actor, e.metadata.role])).toEqual([
    [{ mode: 'observe', previous: 'lifecycle' }, 'bob', 'operator'],
    [{ mode: 'lifecycle', previous: 'observe' }, 'alice', 'admin'],
  ]);

  await setNodeMode('edge-10', 'observe', TOKENS.operator);
  await setNodeMode('edge-10', 'observe', TOKENS.operator);
  await setNodeMode('edge-10', null, TOKENS.admin);
  const nodeEvents = (await eventRows('node:edge-10', 'NodeModeSet')).slice(nodeBefore);
  expect(nodeEvents.map((e) => [e.data, e.metadata.actor, e.metadata.role])).toEqual([
    [{ node_id: 'edge-10', mode: 'observe', previous: null }, 'bob', 'operator'],
    [{ node_id: 'edge-10', mode: null, previous: 'observe' }, 'alice', 'admin'],
  ]);
  for (const e of [...globalEvents, ...nodeEvents]) expect(e.metadata.correlation_id).toEqual(expect.any(String));

  // A viewer may not change modes; nothing changes.
  const denied = [await setGlobalMode('observe', TOKENS.viewer), await setNodeMode('edge-10', 'observe', TOKENS.viewer)];
  expect(denied.map((r) => [r.status, r.body.code])).toEqual([[403, 'forbidden'], [403, 'forbidden']]);
  expect(await eventRows('settings:reconciliation', 'ReconciliationModeSet')).toHaveLength(globalBefore + 2);
  expect(await eventRows('node:edge-10', 'NodeModeSet')).toHaveLength(nodeBefore + 2);
  // Bad input and unknown nodes.
  expect((await setGlobalMode('chaos')).status).toBe(400);
  expect((await setGlobalMode(null)).status).toBe(400);
  const unknown = await setNodeMode('nowhere', 'observe');
  expect([unknown.status, unknown.body.code]).toEqual([404, 'node_not_found']);
});

test('B4 drift is queryable over REST and as the SQL view `drift`, which agree; a converged stream has no drift', async () => {
  const a = await agent(11);
  await put('b4', desired(['edge-11']));
  // Nothing reported yet: a mismatch with no observed generation.
  expect(driftOf(await driftOverRest(), 'edge-11')).toEqual([
    { stream_id: 'b4', kind: 'generation_mismatch', desired_generation: 1, observed_generation: null, observed_state: null },
  ]);

  // The SQL view answers the same as REST, for the Hub's owner and for the read-only role.
  const normalize = (items: any[]) =>
    items.map((d) => ({ ...d, desired_generation: d.desired_generation === null ? null : Number(d.desired_generation), observed_generation: d.observed_generation === null ? null : Number(d.observed_generation), last_seen_at: d.last_seen_at ? new Date(d.last_seen_at).toISOString() : null }));
  // The two reads are a few milliseconds apart: leave out nodes whose age is within 5 s of the stale threshold.
  const clear = (items: any[]) =>
    normalize(items).filter((d) => !d.last_seen_at || Math.abs(Date.now() + skew - Date.parse(d.last_seen_at) - STALE_AFTER_MS) > 5_000);
  const rest = await driftOverRest();
  // Its times written as every answer writes them: the node's last report as GET /nodes/{id} shows it.
  expect(rest.find((d: any) => d.node_id === 'edge-11').last_seen_at).toBe((await hub.call('GET', '/api/v1/nodes/edge-11')).body.last_seen_at);
  expect(clear(await driftOverSql())).toEqual(clear(rest));
  expect(clear(await driftOverSql({ role: 'fleetplane_reader' }))).toEqual(clear(rest));
  expect(clear(rest).filter((d) => d.node_id === 'edge-11')).toHaveLength(1);

  // A plain SQL query with the settings of the session.
  const plain = await t.db.transaction().execute(async (trx) => {
    await sql`SET LOCAL fleetplane.now = ${sql.lit(new Date(Date.now() + skew).toISOString())}`.execute(trx);
    return (await sql<{ kind: string; desired_generation: string }>`SELECT kind, desired_generation FROM drift WHERE node_id = 'edge-11' AND stream_id = 'b4'`.execute(trx)).rows;
  });
  expect(plain.map((d) => [d.kind, Number(d.desired_generation)])).toEqual([['generation_mismatch', 1]]);

  // The node runs it and reports: no drift left for the stream.
  const [start] = await take(a, 'b4');
  await runAndReport(a, start);
  expect(driftOf(await driftOverRest(), 'edge-11')).toEqual([]);
  expect(driftOf(await driftOverSql(), 'edge-11')).toEqual([]);
  // A viewer reads drift; an agent may not.
  expect((await hub.call('GET', '/api/v1/drift', { token: TOKENS.agent1 })).status).toBe(403);
});

test('B1 B4 a node the placement left that still runs the stream is drift (desired stopped) until it reports it stopped', async () => {
  const [left, kept] = [await agent(41), await agent(42)];
  await put('b4-left', desired(['edge-41']));
  await runAndReport(left, (await take(left, 'b4-left'))[0]);
  expect(driftOf(await driftOverRest(), 'edge-41')).toEqual([]);
  // Observing only, the operator moves the stream: nothing is stopped, and drift says where it still runs.
  expect((await setGlobalMode('observe')).status).toBe(200);
  await put('b4-left', desired(['edge-42']));
  expect((await left.report()).status).toBe(202);
  const expected = [{ stream_id: 'b4-left', kind: 'generation_mismatch', desired_generation: 2, observed_generation: 1, observed_state: 'running' }];
  expect(driftOf(await driftOverRest(), 'edge-41')).toEqual(expected);
  expect(driftOf(await driftOverSql(), 'edge-41')).toEqual(expected);
  expect((await driftOverRest()).find((d) => d.node_id === 'edge-41')).toMatchObject({ desired_state: 'stopped' });
  // Dispatching again, the node gets its stop, and once it reports the stream stopped there is no drift left.
  expect((await setGlobalMode('lifecycle')).status).toBe(200);
  await runAndReport(left, (await take(left, 'b4-left'))[0]);
  expect(driftOf(await driftOverRest(), 'edge-41')).toEqual([]);
  expect(brief(await take(kept, 'b4-left'))).toEqual([['job_start', 2]]);
});

// ---------------------------------------------------------------------------------------------------
// D. Drain

test('D1 a draining node gets no new attempts; its stream stays desired running and its intents pending', async () => {
  const a = await agent(12);
  const drained = await drain('edge-12');
  expect(drained.status).toBe(200);
  expect(drained.body).toMatchObject({ node_id: 'edge-12', maintenance: 'draining' });
  await put('d1', desired(['edge-12']));
  await put('d1', desired(['edge-12'], 'running', { args: ['61'] }));
  await nothingFor(a);
  expect(await attemptRows('d1')).toEqual([]);
  const stream = (await hub.call('GET', '/api/v1/streams/d1')).body;
  expect(stream).toMatchObject({ generation: 2, desired_state: 'running' });
  expect((await intentRows('d1')).map((i) => [Number(i.generation), i.desired_state, i.state])).toEqual([
    [1, 'running', 'superseded'],
    [2, 'running', 'pending'],
  ]);
  // A re-registration (a new boot) does not end a drain: still nothing.
  a.restart('edge-12-boot-2');
  expect((await a.register()).body).toMatchObject({ maintenance: 'draining' });
  await nothingFor(a);
  expect(await attemptRows('d1')).toEqual([]);
});

test('D1 an attempt queued before the drain is not handed out while the node drains', async () => {
  const a = await agent(13);
  await put('d1-queued', desired(['edge-13']));
  await eventually(async () => ((await attemptRows('d1-queued')).length ? true : undefined));
  await drain('edge-13');
  await nothingFor(a);
  expect((await attemptRows('d1-queued')).map((r) => r.state)).toEqual(['queued']);
  await undrain('edge-13');
  expect(brief(await take(a, 'd1-queued'))).toEqual([['job_start', 1]]);
});

test('D2 undrain resumes reconciliation at the current generation: only the latest of several writes is delivered', async () => {
  const a = await agent(14);
  await drain('edge-14');
  await put('d2', desired(['edge-14']));
  await put('d2', desired(['edge-14'], 'stopped'));
  await put('d2', desired(['edge-14'], 'running', { args: ['3'] }));
  await nothingFor(a);
  const r = await undrain('edge-14');
  expect(r.body).toMatchObject({ maintenance: 'active' });
  const delivered = await take(a, 'd2');
  expect(delivered).toEqual([expect.objectContaining({ operation: 'job_start', generation: 3, spec: spec(['3']) })]);
  expect(await a.attempts(1)).toEqual([]);
  expect((await attemptRows('d2')).map((x) => [Number(x.generation), x.state])).toEqual([[3, 'dispatched']]);
  expect((await intentRows('d2')).map((i) => [Number(i.generation), i.state])).toEqual([[1, 'superseded'], [2, 'superseded'], [3, 'converging']]);
});

test('D2 an agent already waiting in its long poll gets the held attempt as soon as the node is undrained', async () => {
  const a = await agent(32);
  await put('d2-wake', desired(['edge-32']));
  await settled('edge-32');
  expect(brief((await attemptRows('d2-wake')).map((r) => ({ operation: r.state, generation: Number(r.generation) })))).toEqual([['queued', 1]]);
  expect((await drain('edge-32')).status).toBe(200);
  // The poll is open before the undrain; it must be woken by it, not by its own 20 s deadline.
  const started = Date.now();
  const poll = a.attempts(20);
  await new Promise((r) => setTimeout(r, 100));
  expect((await undrain('edge-32')).status).toBe(200);
  const got = (await poll).filter((x) => x.stream_id === 'd2-wake');
  expect(brief(got)).toEqual([['job_start', 1]]);
  expect(Date.now() - started).toBeLessThan(15_000);
});

test('D2 a node that registers after several writes gets only the current generation', async () => {
  // edge-15 has never registered: the writes are accepted and wait for it.
  await put('d2-register', desired(['edge-15']));
  await put('d2-register', desired(['edge-15'], 'running', { args: ['2'] }));
  await put('d2-register', desired(['edge-15'], 'running', { args: ['3'] }));
  await settled('edge-15');
  expect(await attemptRows('d2-register')).toEqual([]);
  const a = await agent(15);
  expect(await take(a, 'd2-register')).toEqual([expect.objectContaining({ operation: 'job_start', generation: 3, spec: spec(['3']) })]);
  expect(await a.attempts(1)).toEqual([]);
});

test('D2 a node back online after being offline through several writes reports and gets only the current generation', async () => {
  const a = await agent(16);
  skew += 200_000; // past offline_after_ms
  expect((await hub.call('GET', '/api/v1/nodes/edge-16')).body.liveness).toBe('offline');
  await put('d2-report', desired(['edge-16']));
  await put('d2-report', desired(['edge-16'], 'stopped'));
  await put('d2-report', desired(['edge-16'], 'running', { args: ['3'] }));
  expect((await a.report()).status).toBe(202);
  expect((await hub.call('GET', '/api/v1/nodes/edge-16')).body.liveness).toBe('online');
  expect(await take(a, 'd2-report')).toEqual([expect.objectContaining({ operation: 'job_start', generation: 3, spec: spec(['3']) })]);
  expect(await a.attempts(1)).toEqual([]);
});

test('D3 drain and undrain never stop a stream; it stays stopped only when the operator writes desired stopped', async () => {
  const a = await agent(17);
  await put('d3', desired(['edge-17']));
  await runAndReport(a, (await take(a, 'd3'))[0]);
  await eventually(async () => ((await intentRows('d3'))[0]!.state === 'converged' ? true : undefined));

  await drain('edge-17');
  await nothingFor(a);
  await undrain('edge-17');
  await nothingFor(a);
  // No stop anywhere: same generation, still desired running, no new intent, no job_stop.
  expect((await hub.call('GET', '/api/v1/streams/d3')).body).toMatchObject({ generation: 1, desired_state: 'running' });
  expect(await eventRows('stream:d3', 'StreamDesired')).toHaveLength(1);
  expect((await intentRows('d3')).map((i) => [Number(i.generation), i.state])).toEqual([[1, 'converged']]);
  expect((await attemptRows('d3')).map((r) => r.operation)).toEqual(['job_start']);

  // The operator's desired stopped stops it, and it stays stopped across a drain cycle.
  await put('d3', desired(['edge-17'], 'stopped'));
  const [stop] = await take(a, 'd3');
  expect(stop).toMatchObject({ operation: 'job_stop', generation: 2 });
  await runAndReport(a, stop);
  await drain('edge-17');
  await undrain('edge-17');
  await nothingFor(a);
  expect((await hub.call('GET', '/api/v1/streams/d3')).body).toMatchObject({ generation: 2, desired_state: 'stopped' });
});

test('D3 drain and undrain are audited events with actor and role; a repeat records nothing; a viewer gets 403', async () => {
  await agent(18);
  await drain('edge-18', TOKENS.operator);
  await drain('edge-18', TOKENS.operator); // already draining: nothing to record
  await undrain('edge-18', TOKENS.admin);
  const drained = await eventRows('node:edge-18', 'NodeDrained');
  const undrained = await eventRows('node:edge-18', 'NodeUndrained');
  expect(drained.map((e) => [e.data, e.metadata.actor, e.metadata.role])).toEqual([[{ node_id: 'edge-18' }, 'bob', 'operator']]);
  expect(undrained.map((e) => [e.data, e.metadata.actor, e.metadata.role])).toEqual([[{ node_id: 'edge-18' }, 'alice', 'admin']]);

  const denied = await drain('edge-18', TOKENS.viewer);
  expect([denied.status, denied.body.code]).toEqual([403, 'forbidden']);
  expect((await undrain('edge-18', TOKENS.viewer)).status).toBe(403);
  expect((await drain('edge-18', TOKENS.agent1)).status).toBe(403);
  expect((await hub.call('GET', '/api/v1/nodes/edge-18')).body.maintenance).toBe('active');
  expect(await eventRows('node:edge-18', 'NodeDrained')).toHaveLength(1);
  expect((await eventRows('principal:audit', 'AccessDenied')).length).toBeGreaterThan(0);
  const unknown = await drain('nowhere');
  expect([unknown.status, unknown.body.code]).toEqual([404, 'node_not_found']);
});

// ---------------------------------------------------------------------------------------------------
// E. Split placement

test('E1 a split placement whose nodes do not all advertise network_shuffle and a data address is rejected before dispatch', async () => {
  const capable = await agent(19, SHUFFLE(19));
  const noShuffle = await agent(20, { data_address: '10.0.0.20:7000' });
  await put('e1', desired(['edge-19', 'edge-20'], 'running', { split: true }));
  const blocked = await eventually(async () => {
    const i = await intentRows('e1');
    return i.every((x) => x.state === 'blocked') ? i : undefined;
  });
  expect(blocked.map((i) => [i.node_id, i.state, i.failure_class, i.failure_code])).toEqual([
    ['edge-19', 'blocked', 'placement', 'placement_rejected'],
    ['edge-20', 'blocked', 'placement', 'placement_rejected'],
  ]);
  await nothingFor(capable);
  await nothingFor(noShuffle);
  expect(await attemptRows('e1')).toEqual([]);
  expect((await hub.call('GET', `/api/v1/intents/${blocked[0]!.intent_id}`)).body).toMatchObject({ state: 'blocked', failure_class: 'placement', attempts: [] });
});

test('E1 a split placement with a node that has network_shuffle but no data address is rejected too', async () => {
  const capable = await agent(21, SHUFFLE(21));
  const noAddress = await agent(22, { capabilities: ['network_shuffle'] });
  await put('e1-address', desired(['edge-21', 'edge-22'], 'running', { split: true }));
  await eventually(async () => ((await intentRows('e1-address')).every((x) => x.state === 'blocked') ? true : undefined));
  await nothingFor(capable);
  await nothingFor(noAddress);
  expect(await attemptRows('e1-address')).toEqual([]);
});

test('E1 a valid split placement (every node with network_shuffle and a data address) dispatches to all of its nodes', async () => {
  const agents = [await agent(23, SHUFFLE(23)), await agent(24, SHUFFLE(24)), await agent(25, SHUFFLE(25))];
  await put('e1-valid', desired(['edge-23', 'edge-24', 'edge-25'], 'running', { split: true }));
  for (const a of agents) expect(brief(await take(a, 'e1-valid'))).toEqual([['job_start', 1]]);
  expect((await intentRows('e1-valid')).map((i) => i.state)).toEqual(['converging', 'converging', 'converging']);
});

test('E1 the reconciles of a split placement\'s nodes run at once: each locks the placement\'s intents in one order, so none deadlocks', async () => {
  const ids = [43, 44, 45, 46, 47, 48, 49, 50];
  const agents = await Promise.all(ids.map((n) => agent(n, SHUFFLE(n))));
  const deadlocks = () => counterTotal(hub.context.metrics.commandReruns, { command: 'ReconcileNode', reason: 'deadlock' });
  const before = await deadlocks();
  await put('e1-together', desired(ids.map((n) => `edge-${n}`), 'running', { split: true }));
  for (const a of agents) expect(brief(await take(a, 'e1-together'))).toEqual([['job_start', 1]]);
  expect(await deadlocks()).toBe(before);
});

test('E1 a split placement waits for a node that has not registered; once it registers qualified, every node gets its job_start', async () => {
  const early = await agent(26, SHUFFLE(26));
  await put('e1-wait', desired(['edge-26', 'edge-27'], 'running', { split: true }));
  await nothingFor(early);
  expect(await attemptRows('e1-wait')).toEqual([]);
  expect((await intentRows('e1-wait')).map((i) => i.state)).toEqual(['pending', 'pending']);
  const late = await agent(27, SHUFFLE(27));
  expect(brief(await take(late, 'e1-wait'))).toEqual([['job_start', 1]]);
  expect(brief(await take(early, 'e1-wait'))).toEqual([['job_start', 1]]);
});

test('E1 a split placement waiting for a node that then registers without network_shuffle is rejected on every node', async () => {
  const early = await agent(28, SHUFFLE(28));
  await put('e1-late-bad', desired(['edge-28', 'edge-29'], 'running', { split: true }));
  await nothingFor(early);
  const late = await agent(29, {});
  await eventually(async () => ((await intentRows('e1-late-bad')).every((x) => x.state === 'blocked') ? true : undefined));
  await nothingFor(early);
  await nothingFor(late);
  expect(await attemptRows('e1-late-bad')).toEqual([]);
});

test('E1 a peer that re-registers without network_shuffle while a node\'s dispatch waits is seen by that dispatch: no job_start', async () => {
  const x = await agent(32, SHUFFLE(32));
  const y = await agent(33, SHUFFLE(33));
  // edge-32 observes, so the write dispatches to edge-33 only and edge-32's intent waits.
  expect((await setNodeMode('edge-32', 'observe')).status).toBe(200);
  await put('e1-race', desired(['edge-32', 'edge-33'], 'running', { split: true }));
  expect(brief(await take(y, 'e1-race'))).toEqual([['job_start', 1]]);
  await settled('edge-32');

  const deadlocks = () => counterTotal(hub.context.metrics.commandReruns, { reason: 'deadlock' });
  const deadlocksBefore = await deadlocks();
  // Another transaction holds edge-33's intent of the placement for a while (closing it ends that, on failure too).
  const holder = new pg.Client({ connectionString: t.url });
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await holder.query(`SELECT intent_id FROM intents WHERE node_id = 'edge-33' AND stream_id = 'e1-race' FOR UPDATE`);
    // edge-33 comes back without the capability: its registration waits for that intent, holding the node.
    y.restart('edge-33-boot-2');
    const registering = y.register({ capabilities: [], data_address: '10.0.0.33:7000' });
    await waitingForLocks(t.db, 1);
    // edge-32 returns to lifecycle: its reconcile waits for the placement's intents, which the registration locks first.
    expect((await setNodeMode('edge-32', null)).status).toBe(200);
    await waitingForLocks(t.db, 2);
    await holder.query('COMMIT');
    expect((await registering).status).toBe(200);
  } finally {
    await holder.end();
  }

  // The registration locked the placement's intents first: edge-32's dispatch read edge-33 as it registered, without the capability.
  await eventually(async () => ((await intentRows('e1-race')).find((i) => i.node_id === 'edge-32')?.state === 'blocked' ? true : undefined));
  await nothingFor(x, 'e1-race');
  expect((await attemptRows('e1-race')).map((a) => a.node_id)).toEqual(['edge-33']);
  // Both lock the placement's intents in one id order: neither was broken off as a deadlock and run again.
  expect(await deadlocks()).toBe(deadlocksBefore);
});

test('E1 attempts already queued for a split are withdrawn when one of its nodes re-registers without network_shuffle', async () => {
  const x = await agent(34, SHUFFLE(34));
  const y = await agent(35, SHUFFLE(35));
  await put('e1-queued', desired(['edge-34', 'edge-35'], 'running', { split: true }));
  // Both job_starts wait in the queue; neither node has polled.
  await eventually(async () => ((await attemptRows('e1-queued')).length === 2 ? true : undefined));
  y.restart('edge-35-boot-2');
  expect((await y.register({ capabilities: [], data_address: '10.0.0.35:7000' })).status).toBe(200);
  await nothingFor(x, 'e1-queued');
  await nothingFor(y, 'e1-queued');
  expect((await intentRows('e1-queued')).map((i) => [i.node_id, i.state, i.failure_class])).toEqual([
    ['edge-34', 'blocked', 'placement'],
    ['edge-35', 'blocked', 'placement'],
  ]);
  expect((await attemptRows('e1-queued')).map((a) => [a.node_id, a.operation, a.state]).sort()).toEqual([
    ['edge-34', 'job_start', 'superseded'],
    ['edge-35', 'job_start', 'superseded'],
  ]);
});

test('D3 E1 a split whose node lost network_shuffle can still be stopped: the operator\'s stop reaches every node', async () => {
  const x = await agent(36, SHUFFLE(36));
  const y = await agent(37, SHUFFLE(37));
  await put('e1-stop', desired(['edge-36', 'edge-37'], 'running', { split: true }));
  for (const a of [x, y]) await runAndReport(a, (await take(a, 'e1-stop'))[0]);
  y.restart('edge-37-boot-2');
  expect((await y.register({ capabilities: [], data_address: '10.0.0.37:7000' })).status).toBe(200);
  await put('e1-stop', desired(['edge-36', 'edge-37'], 'stopped', { split: true }));
  expect(brief(await take(x, 'e1-stop'))).toEqual([['job_stop', 2]]);
  expect(brief(await take(y, 'e1-stop'))).toEqual([['job_stop', 2]]);
});

test('D3 E1 a node dropped from a placement that becomes a rejected split still gets its stop there', async () => {
  const kept = await agent(38, SHUFFLE(38));
  const dropped = await agent(19, SHUFFLE(19));
  await agent(20, { data_address: '10.0.0.20:7000' });
  await put('e1-dropped', desired(['edge-38', 'edge-19'], 'running'));
  for (const a of [kept, dropped]) await runAndReport(a, (await take(a, 'e1-dropped'))[0]);
  // Generation 2 splits over edge-38 and edge-20, which has no network_shuffle: it is rejected, edge-19 stops.
  await put('e1-dropped', desired(['edge-38', 'edge-20'], 'running', { split: true }));
  expect(brief(await take(dropped, 'e1-dropped'))).toEqual([['job_stop', 2]]);
  await eventually(async () => ((await intentRows('e1-dropped')).filter((i) => i.state === 'blocked').length === 2 ? true : undefined));
  await nothingFor(kept, 'e1-dropped');
});

test('E2 the rejection is permanent: fixing the capabilities does not unblock that generation; a new generation dispatches', async () => {
  const first = await agent(30, SHUFFLE(30));
  const second = await agent(31, { capabilities: [] });
  await put('e2', desired(['edge-30', 'edge-31'], 'running', { split: true }));
  await eventually(async () => ((await intentRows('e2')).every((x) => x.state === 'blocked') ? true : undefined));

  // The node comes back with the capability and a data address: generation 1 stays blocked.
  second.restart('edge-31-boot-2');
  expect((await second.register(SHUFFLE(31))).body).toMatchObject({ capabilities: ['network_shuffle'], data_address: '10.0.0.31:7000' });
  await nothingFor(first);
  await nothingFor(second);
  expect((await intentRows('e2')).map((i) => [Number(i.generation), i.state, i.failure_class])).toEqual([
    [1, 'blocked', 'placement'],
    [1, 'blocked', 'placement'],
  ]);
  expect(await attemptRows('e2')).toEqual([]);

  // A new generation (the same desired state written again) is dispatched to both nodes.
  const g2 = await put('e2', desired(['edge-30', 'edge-31'], 'running', { split: true }));
  expect(g2.generation).toBe(2);
  expect(brief(await take(first, 'e2'))).toEqual([['job_start', 2]]);
  expect(brief(await take(second, 'e2'))).toEqual([['job_start', 2]]);
  expect((await intentRows('e2')).map((i) => [Number(i.generation), i.state])).toEqual([
    [1, 'superseded'],
    [1, 'superseded'],
    [2, 'converging'],
    [2, 'converging'],
  ]);
});
