import { sql } from 'kysely';
import pg from 'pg';
import { eventually, latestIntent, sweptOut, takeAttempts, TestAgent } from '../../../../test/support/fleet.ts';
import { testConfig, TOKENS } from '../../../../test/support/hub.ts';
import { hubSuite } from '../../../../test/support/hub-suite.ts';

// Failures, retries, ambiguity and restarts: SPEC C1-C7. Leases and backoff run on an injected clock.
let now = new Date('2026-11-30T12:00:00.000Z');
const clock = { now: () => now };
const advance = (ms: number) => {
  now = new Date(now.getTime() + ms);
};
const config = testConfig(8, { lease_ms: 30_000, retry_base_ms: 1_000, retry_max_ms: 8_000 });
const suite = hubSuite({ config, clock });

const put = (id: string, nodes: string[], state = 'running') =>
  suite.hub.call('PUT', `/api/v1/streams/${id}`, { token: TOKENS.operator, body: { desired_state: state, spec: { command: 'sleep' }, placement: { nodes } } });
const intentOf = (stream: string, node: string) => latestIntent(suite.hub, stream, node);
const take = takeAttempts;
const nothingFor = async (agent: TestAgent, stream: string) => {
  await suite.hub.context.reconciler.reconcile(agent.nodeId, 'test');
  expect((await agent.attempts(0)).filter((x) => x.stream_id === stream)).toEqual([]);
};
const attemptsOf = async (stream: string) =>
  (await sql<{ attempt_id: string; state: string }>`SELECT attempt_id, state FROM attempts WHERE stream_id = ${stream} ORDER BY created_at, attempt_id`.execute(suite.t.db)).rows;

test('C1 a temporary failure keeps desired state and schedules a capped exponential retry, visible on the intent', async () => {
  const agent = new TestAgent(suite.hub, 'edge-1');
  await agent.register();
  await put('c1', ['edge-1']);
  const retryAts: number[] = [];
  for (let i = 1; i <= 5; i++) {
    const [attempt] = await take(agent, 'c1');
    await agent.result(attempt.attempt_id, { outcome: 'failed', generation: 1, failure_class: 'temporary', code: 'unreachable' });
    const intent = await intentOf('c1', 'edge-1');
    expect(intent).toMatchObject({ state: 'retrying', retry_count: i, failure_class: 'temporary', failure_code: 'unreachable' });
    const delay = Date.parse(intent.next_retry_at) - now.getTime();
    // Backoff 1 s, 2 s, 4 s, 8 s, 8 s (capped), with jitter in the upper half.
    const ceiling = Math.min(8_000, 1_000 * 2 ** (i - 1));
    expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
    expect(delay).toBeLessThanOrEqual(ceiling);
    retryAts.push(delay);
    // Not before its time…
    await nothingFor(agent, 'c1');
    // …and then it is retried.
    advance(delay);
    await suite.hub.context.reconciler.reconcile('edge-1', 'test');
  }
  expect((await suite.hub.call('GET', '/api/v1/streams/c1')).body.desired_state).toBe('running');
  expect(retryAts).toHaveLength(5);
});

test('C1 a retry waiting for its time does not hold back other work for the node', async () => {
  const agent = new TestAgent(suite.hub, 'edge-1', 'edge-1-boot-waiting');
  await agent.register();
  await put('c1-waiting', ['edge-1']);
  const [attempt] = await take(agent, 'c1-waiting');
  await agent.result(attempt.attempt_id, { outcome: 'failed', generation: 1, failure_class: 'temporary' });
  await put('c1-other', ['edge-1']);
  expect((await take(agent, 'c1-other'))[0].generation).toBe(1);
});

test('C2 a permanent failure blocks the intent: no further attempt for that generation; a new generation resumes', async () => {
  const agent = new TestAgent(suite.hub, 'edge-2');
  await agent.register();
  await put('c2', ['edge-2']);
  const [attempt] = await take(agent, 'c2');
  await agent.result(attempt.attempt_id, { outcome: 'failed', generation: 1, failure_class: 'permanent', code: 'bad_spec', message: 'no such command' });
  expect(await intentOf('c2', 'edge-2')).toMatchObject({ state: 'blocked', failure_class: 'permanent', failure_message: 'no such command' });
  advance(3_600_000);
  await nothingFor(agent, 'c2');
  await agent.register({ boot_id: 'edge-2-boot-2' });
  await nothingFor(agent, 'c2');
  expect(await attemptsOf('c2')).toHaveLength(1);
  await put('c2', ['edge-2']);
  const [next] = await take(agent, 'c2');
  expect(next.generation).toBe(2);
});

test('C3 a stale-generation result supersedes the intent', async () => {
  const agent = new TestAgent(suite.hub, 'edge-3');
  await agent.register();
  await put('c3', ['edge-3']);
  const [attempt] = await take(agent, 'c3');
  await agent.result(attempt.attempt_id, { outcome: 'failed', generation: 1, failure_class: 'stale_generation', code: 'newer_generation_running' });
  expect((await intentOf('c3', 'edge-3')).state).toBe('superseded');
  await nothingFor(agent, 'c3');
});

test('C4 an expired lease makes the attempt ambiguous, and the Hub never replays it on its own', async () => {
  const agent = new TestAgent(suite.hub, 'edge-4');
  await agent.register();
  await put('c4', ['edge-4']);
  const [attempt] = await take(agent, 'c4');
  advance(29_999);
  await suite.hub.context.reconciler.sweep();
  expect((await attemptsOf('c4')).map((a) => a.state)).toEqual(['dispatched']);
  advance(1);
  await sweptOut(suite.hub, 'c4');
  expect(await intentOf('c4', 'edge-4')).toMatchObject({ state: 'ambiguous' });
  expect((await attemptsOf('c4')).map((a) => a.state)).toEqual(['ambiguous']);
  advance(3_600_000);
  await nothingFor(agent, 'c4');
  // A registration (the agent reconnecting) does not wake an ambiguous intent either (C7).
  await agent.register({ boot_id: 'edge-4-boot-1b' });
  await nothingFor(agent, 'c4');
  // A late result is recorded on the attempt but moves nothing.
  await agent.result(attempt.attempt_id, { outcome: 'succeeded', generation: 1 });
  expect((await intentOf('c4', 'edge-4')).state).toBe('ambiguous');
});

test('C4 K2 a dispatched attempt of a node retired since runs out its lease and turns ambiguous like any other', async () => {
  const agent = new TestAgent(suite.hub, 'edge-8');
  await agent.register();
  await put('c4-retired', ['edge-8']);
  const [attempt] = await take(agent, 'c4-retired');
  expect((await suite.hub.call('DELETE', '/api/v1/nodes/edge-8?force=true', { token: TOKENS.operator })).status).toBe(200);
  advance(30_000);
  await suite.hub.context.reconciler.sweep();
  expect((await attemptsOf('c4-retired')).map((a) => [a.attempt_id, a.state])).toEqual([[attempt.attempt_id, 'ambiguous']]);
});

test('C4 a result that comes after the lease ran out is late even before a sweep: the restart is neither retried nor sent again', async () => {
  const agent = new TestAgent(suite.hub, 'edge-4', 'edge-4-boot-late');
  const restart = await restartTaken(agent, 'c4-late');
  // The lease runs out and no sweep has run yet when the node answers that the restart failed, temporarily.
  advance(31_000);
  expect((await agent.result(restart.attempt_id, { outcome: 'failed', generation: 2, failure_class: 'temporary', code: 'busy' })).status).toBe(200);
  expect(await intentOf('c4-late', 'edge-4')).toMatchObject({ state: 'ambiguous', retry_count: 0, next_retry_at: null });
  expect((await attemptsOf('c4-late')).map((a) => a.state)).toEqual(['succeeded', 'failed']);
  advance(3_600_000);
  await suite.hub.context.reconciler.sweep();
  await nothingFor(agent, 'c4-late');
});

test('C5 a divergent ambiguous intent gets another attempt only after a newer full report', async () => {
  const agent = new TestAgent(suite.hub, 'edge-5');
  await agent.register();
  await put('c5', ['edge-5']);
  await take(agent, 'c5');
  advance(31_000);
  await sweptOut(suite.hub, 'c5');
  expect((await intentOf('c5', 'edge-5')).state).toBe('ambiguous');
  // The report shows the effect did not happen: now, and only now, the intent is retried.
  expect((await agent.report()).status).toBe(202);
  const [second] = await take(agent, 'c5');
  expect(second.generation).toBe(1);
  expect((await attemptsOf('c5')).map((a) => a.state)).toEqual(['ambiguous', 'dispatched']);
});

test('C5 a report received while the lease still ran does not count: the ambiguous intent waits for one after it', async () => {
  const agent = new TestAgent(suite.hub, 'edge-4', 'edge-4-boot-c5');
  await agent.register();
  await agent.report();
  await put('c5-between', ['edge-4']);
  const [first] = await take(agent, 'c5-between');
  // While the lease runs (the node may still be executing), it reports without the stream.
  await agent.report();
  advance(31_000);
  await sweptOut(suite.hub, 'c5-between');
  expect((await intentOf('c5-between', 'edge-4')).state).toBe('ambiguous');
  await nothingFor(agent, 'c5-between');
  // The next report is newer than any the node sent while it might have been executing: another attempt.
  await agent.report();
  const [second] = await take(agent, 'c5-between');
  expect(second).toMatchObject({ intent_id: first.intent_id, generation: 1, operation: 'job_start' });
  expect(second.attempt_id).not.toBe(first.attempt_id);
});

test('C5 a sweep passes over an attempt whose node is reporting at that moment, and takes it once that report has committed', async () => {
  const agent = new TestAgent(suite.hub, 'edge-5', 'edge-5-boot-sweep');
  await agent.register();
  await agent.report();
  await put('c5-sweep', ['edge-5']);
  await take(agent, 'c5-sweep');
  advance(31_000);
  // A report of the node is in its transaction, holding the node's row, when the sweep runs.
  const reporting = new pg.Client({ connectionString: suite.t.url });
  await reporting.connect();
  try {
    await reporting.query('BEGIN');
    await reporting.query("SELECT 1 FROM nodes WHERE node_id = 'edge-5' FOR UPDATE");
    await suite.hub.context.reconciler.sweep();
    expect((await attemptsOf('c5-sweep')).map((a) => a.state)).toEqual(['dispatched']);
  } finally {
    await reporting.query('COMMIT');
    await reporting.end();
  }
  // The next sweep takes it, waiting beyond the node's last report.
  await suite.hub.context.reconciler.sweep();
  expect((await attemptsOf('c5-sweep')).map((a) => a.state)).toEqual(['ambiguous']);
});

test('C5 when the newer report proves the effect, the ambiguous intent converges with no new attempt', async () => {
  const agent = new TestAgent(suite.hub, 'edge-6');
  await agent.register();
  await put('c5-done', ['edge-6']);
  const [attempt] = await take(agent, 'c5-done');
  agent.apply(attempt); // it ran; its result was lost
  advance(31_000);
  await sweptOut(suite.hub, 'c5-done');
  expect((await intentOf('c5-done', 'edge-6')).state).toBe('ambiguous');
  await agent.report();
  expect((await intentOf('c5-done', 'edge-6')).state).toBe('converged');
  await nothingFor(agent, 'c5-done');
  expect(await attemptsOf('c5-done')).toHaveLength(1);
});

/** A stream started and running on the agent's node, then a restart of it taken by the node: the restart's attempt. */
async function restartTaken(agent: TestAgent, stream: string): Promise<any> {
  await agent.register();
  await put(stream, [agent.nodeId]);
  const [start] = await take(agent, stream);
  agent.apply(start);
  await agent.result(start.attempt_id, { outcome: 'succeeded', generation: 1 });
  await agent.report();
  advance(1_000); // attempts list in creation order
  const restart = await suite.hub.call('POST', `/api/v1/streams/${stream}/actions`, { token: TOKENS.operator, body: { action: 'restart' } });
  const [attempt] = await take(agent, stream);
  expect(attempt).toMatchObject({ operation: 'job_restart', generation: 2, action_id: restart.body.action_id });
  return attempt;
}

test('C6 a restart proven by a late report after it was queued again is not sent a second time', async () => {
  const agent = new TestAgent(suite.hub, 'edge-6', 'edge-6-boot-c6');
  const first = await restartTaken(agent, 'c6-late');
  // Its result is lost; the lease runs out; a newer report does not show the restart: it is queued again.
  advance(31_000);
  await sweptOut(suite.hub, 'c6-late');
  await agent.report();
  await suite.hub.context.reconciler.reconcile('edge-6', 'test');
  expect((await attemptsOf('c6-late')).map((a) => a.state)).toEqual(['succeeded', 'ambiguous', 'queued']);
  // Before the node takes it, a report shows the first restart did happen: the intent converges and the
  // queued restart is withdrawn, never delivered.
  agent.apply(first);
  await agent.report();
  expect((await intentOf('c6-late', 'edge-6')).state).toBe('converged');
  expect((await attemptsOf('c6-late')).map((a) => a.state)).toEqual(['succeeded', 'ambiguous', 'superseded']);
  expect((await agent.attempts(0)).filter((a) => a.stream_id === 'c6-late')).toEqual([]);
});

test('C6 a restart the node reports carried out is not sent again: a stream that then failed gets a start', async () => {
  const agent = new TestAgent(suite.hub, 'edge-5', 'edge-5-boot-c6');
  const first = await restartTaken(agent, 'c6-failed');
  // The restart ran, then the process died; the result was lost and the lease runs out.
  agent.apply(first);
  agent.streams.set('c6-failed', { ...agent.streams.get('c6-failed')!, state: 'failed' });
  advance(31_000);
  await sweptOut(suite.hub, 'c6-failed');
  expect((await intentOf('c6-failed', 'edge-5')).state).toBe('ambiguous');
  // The newer report shows the restart's action but not a running stream: another attempt, and it is a start.
  await agent.report();
  const [second] = await take(agent, 'c6-failed');
  expect(second).toMatchObject({ operation: 'job_start', generation: 2 });
  agent.apply(second);
  agent.streams.set('c6-failed', { ...agent.streams.get('c6-failed')!, last_action_id: first.action_id });
  await agent.report();
  expect((await intentOf('c6-failed', 'edge-5')).state).toBe('converged');
});

test('C7 registration wakes the node\'s pending intents', async () => {
  // A desired write for a node that has not registered yet is kept, pending: nothing can be delivered.
  await put('c7', ['edge-7']);
  await suite.hub.context.reconciler.reconcile('edge-7', 'test');
  expect((await intentOf('c7', 'edge-7')).state).toBe('pending');
  // The write's own reconcile jobs have run (and found nothing to do): only the registration can wake it.
  await eventually(async () => {
    const { rows } = await sql<{ n: string }>`
      SELECT count(*) n FROM pgboss.job WHERE data->>'node_id' = 'edge-7' AND state IN ('created', 'retry', 'active')`.execute(suite.t.db);
    return Number(rows[0]!.n) === 0 ? true : undefined;
  });
  expect((await intentOf('c7', 'edge-7')).state).toBe('pending');
  const agent = new TestAgent(suite.hub, 'edge-7');
  await agent.register();
  const [attempt] = await take(agent, 'c7');
  expect(attempt).toMatchObject({ stream_id: 'c7', generation: 1, operation: 'job_start' });
});

test('metrics: blocked intents, retries, lease expiries, reconciliation latency, reports ingested, queue depth', async () => {
  const scrape = async () => {
    const text = (await suite.hub.call('GET', '/metrics', { token: null })).body as string;
    const value = (series: string) => Number(new RegExp(`^${series.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
    return { text, value };
  };
  const series = [
    'fleetplane_intents{state="blocked"}',
    'fleetplane_retries_total',
    'fleetplane_lease_expiries_total',
    'fleetplane_reconciliation_latency_seconds_count',
    'fleetplane_reports_ingested_total',
  ];
  const agent = new TestAgent(suite.hub, 'edge-1', 'edge-1-boot-metrics');
  await agent.register();
  const before = await scrape();
  // One of each: a permanent failure, a temporary one, a result after its lease ran out, and a report that
  // proves one intent.
  await put('metrics-blocked', ['edge-1']);
  const [blocked] = await take(agent, 'metrics-blocked');
  await agent.result(blocked.attempt_id, { outcome: 'failed', generation: 1, failure_class: 'permanent', code: 'bad_spec' });
  await put('metrics-retry', ['edge-1']);
  const [retried] = await take(agent, 'metrics-retry');
  await agent.result(retried.attempt_id, { outcome: 'failed', generation: 1, failure_class: 'temporary', code: 'unreachable' });
  await put('metrics-late', ['edge-1']);
  const [late] = await take(agent, 'metrics-late');
  await put('metrics-converged', ['edge-1']);
  const [converging] = await take(agent, 'metrics-converged');
  agent.apply(converging);
  await agent.result(converging.attempt_id, { outcome: 'succeeded', generation: 1 });
  expect((await agent.report()).status).toBe(202);
  advance(31_000);
  await agent.result(late.attempt_id, { outcome: 'succeeded', generation: 1 });
  const after = await scrape();
  expect(series.map((s) => [s, after.value(s) - before.value(s)])).toEqual(series.map((s) => [s, 1]));
  expect(after.text).toMatch(/^# TYPE fleetplane_job_queue_depth gauge$/m);
});
