import { sql } from 'kysely';
import { eventually, latestIntent, takeAttempts, TestAgent } from '../../../../test/support/fleet.ts';
import { testConfig, TOKENS } from '../../../../test/support/hub.ts';
import { hubSuite } from '../../../../test/support/hub-suite.ts';

// Desired writes, reports and results as an agent sees them: SPEC A7-A12.
let now = new Date('2026-11-30T12:00:00.000Z');
const suite = hubSuite({ config: testConfig(4), clock: { now: () => now } });

const put = (id: string, nodes: string[], state = 'running') =>
  suite.hub.call('PUT', `/api/v1/streams/${id}`, { token: TOKENS.operator, body: { desired_state: state, spec: { command: 'sleep' }, placement: { nodes } } });
const intentOf = (stream: string, node: string) => latestIntent(suite.hub, stream, node);
const take = takeAttempts;

test('A7 a report never changes desired state, generation, placement or configuration target', async () => {
  const agent = new TestAgent(suite.hub, 'edge-1');
  await agent.register();
  await put('a7', ['edge-1']);
  const configBefore = await sql<{ desired_config_version: string | null; config_generation: number }>`
    SELECT desired_config_version, config_generation FROM nodes WHERE node_id = 'edge-1'`.execute(suite.t.db);
  agent.streams.set('a7', { stream_id: 'a7', generation: 42, state: 'stopped' });
  agent.appliedConfig = 'cv_reported_by_the_node';
  expect((await agent.report()).status).toBe(202);
  const stream = (await suite.hub.call('GET', '/api/v1/streams/a7')).body;
  expect(stream).toMatchObject({ generation: 1, desired_state: 'running', placement: { nodes: ['edge-1'], split: false } });
  expect(stream.observed['edge-1']).toMatchObject({ generation: 42, state: 'stopped' });
  const node = (await suite.hub.call('GET', '/api/v1/nodes/edge-1')).body;
  expect(node.applied_config_version).toBe('cv_reported_by_the_node');
  const configAfter = await sql<{ desired_config_version: string | null; config_generation: number }>`
    SELECT desired_config_version, config_generation FROM nodes WHERE node_id = 'edge-1'`.execute(suite.t.db);
  expect(configAfter.rows).toEqual(configBefore.rows);
  agent.appliedConfig = null;
});

test('A8 a report not after the last one of its boot is ignored; a new boot is accepted, a late one of the old boot is not', async () => {
  const agent = new TestAgent(suite.hub, 'edge-2');
  await agent.register();
  expect((await agent.report()).status).toBe(202);
  expect((await agent.report()).status).toBe(202);
  const reports = async () =>
    Number((await sql<{ n: string }>`SELECT count(*) n FROM events WHERE stream_id = 'node:edge-2' AND type = 'NodeReported'`.execute(suite.t.db)).rows[0]!.n);
  const before = await reports();
  agent.seq = 1; // a replay of report 2, and an older one
  const replay = await agent.report();
  expect(replay).toMatchObject({ status: 200, body: { accepted: false, reason: 'stale_report' } });
  agent.seq = 0;
  expect((await agent.report()).body.accepted).toBe(false);
  expect(await reports()).toBe(before);
  // A report the old boot sent just before the node restarted, arriving after the new boot registered.
  const late = agent.nextReport();
  agent.restart('edge-2-boot-2');
  await agent.register();
  expect((await agent.report()).status).toBe(202);
  expect(await reports()).toBe(before + 1);
  expect((await agent.call('POST', '/api/v1/agent/reports', late)).body).toEqual({ accepted: false, reason: 'stale_report' });
  expect(await reports()).toBe(before + 1);
  expect((await suite.hub.call('GET', '/api/v1/nodes/edge-2')).body).toMatchObject({ last_report_seq: 1 });
  // A boot the node never registered is not current either.
  agent.restart('edge-2-boot-unregistered');
  expect((await agent.report()).body).toEqual({ accepted: false, reason: 'stale_report' });
});

test('A8 a repeated report is stored as its sequence alone, a changed one with what the node runs', async () => {
  const agent = new TestAgent(suite.hub, 'edge-2', 'edge-2-boot-digest');
  await agent.register();
  const { rows: [registered] } = await sql<{ position: number }>`SELECT max(position) AS position FROM events WHERE stream_id = 'node:edge-2'`.execute(suite.t.db);
  agent.streams.set('x', { stream_id: 'x', generation: 1, state: 'running' });
  await agent.report();
  await agent.report();
  agent.streams.set('x', { stream_id: 'x', generation: 2, state: 'running', last_action_id: 'act-1' });
  await agent.report();
  const { rows } = await sql<{ schema_version: number; data: unknown }>`
    SELECT schema_version, data FROM events
    WHERE stream_id = 'node:edge-2' AND type = 'NodeReported' AND position > ${registered!.position} ORDER BY position`.execute(suite.t.db);
  expect(rows).toEqual([
    { schema_version: 2, data: { seq: 1, streams: [['x', 1, 'running']], config: null, points: [] } },
    { schema_version: 2, data: { seq: 2 } },
    { schema_version: 2, data: { seq: 3, streams: [['x', 2, 'running', 'act-1']], config: null, points: [] } },
  ]);
  // The node's marks and digest come from the log: the digest is that of the last changed report.
  expect((await suite.hub.call('GET', '/api/v1/nodes/edge-2')).body).toMatchObject({ last_report_seq: 3 });
});

test('A9 an intent converges only when generation, state and action all match', async () => {
  const agent = new TestAgent(suite.hub, 'edge-3');
  await agent.register();
  await put('a9', ['edge-3']);
  const [attempt] = await take(agent, 'a9');
  expect(attempt).toMatchObject({ operation: 'job_start', generation: 1 });
  agent.streams.set('a9', { stream_id: 'a9', generation: 1, state: 'stopped' });
  await agent.report();
  expect((await intentOf('a9', 'edge-3')).state).toBe('converging');
  agent.streams.set('a9', { stream_id: 'a9', generation: 0, state: 'running' });
  await agent.report();
  expect((await intentOf('a9', 'edge-3')).state).toBe('converging');
  agent.apply(attempt);
  await agent.report();
  expect((await intentOf('a9', 'edge-3')).state).toBe('converged');
});

test('A9 a restart converges only after the restart action is reported and the stream runs', async () => {
  const agent = new TestAgent(suite.hub, 'edge-3', 'edge-3-boot-restart');
  await agent.register();
  await put('a9-restart', ['edge-3']);
  agent.apply((await take(agent, 'a9-restart'))[0]);
  await agent.report();
  const restarted = await suite.hub.call('POST', '/api/v1/streams/a9-restart/actions', { token: TOKENS.operator, body: { action: 'restart' } });
  const [attempt] = await take(agent, 'a9-restart');
  expect(attempt).toMatchObject({ operation: 'job_restart', generation: 2, action_id: restarted.body.action_id });
  // The new generation running, but without the action: not yet.
  agent.streams.set('a9-restart', { stream_id: 'a9-restart', generation: 2, state: 'running', last_action_id: null });
  await agent.report();
  expect((await intentOf('a9-restart', 'edge-3')).state).toBe('converging');
  agent.apply(attempt);
  await agent.report();
  expect((await intentOf('a9-restart', 'edge-3')).state).toBe('converged');
});

test('A11 the database refuses a second active attempt for one target and generation', async () => {
  const agent = new TestAgent(suite.hub, 'edge-4');
  await agent.register();
  await put('a11', ['edge-4']);
  const intent = await eventually(async () => {
    const i = await intentOf('a11', 'edge-4');
    return i.state === 'converging' ? i : undefined;
  });
  const row = (await sql<Record<string, unknown>>`SELECT * FROM attempts WHERE intent_id = ${intent.intent_id}`.execute(suite.t.db)).rows[0]!;
  await expect(
    sql`INSERT INTO attempts (attempt_id, intent_id, node_id, stream_id, generation, operation, spec, state, correlation_id, created_at)
        VALUES ('at_second', ${row.intent_id}, ${row.node_id}, ${row.stream_id}, ${row.generation}, 'job_start', '{}', 'queued', 'c', now())`.execute(suite.t.db),
  ).rejects.toThrow(/attempts_one_active/);
  // Reconciling again, concurrently, queues nothing more either.
  await Promise.all([1, 2, 3].map(() => suite.hub.context.reconciler.reconcile('edge-4', 'test')));
  const { rows } = await sql<{ n: string }>`SELECT count(*) n FROM attempts WHERE intent_id = ${intent.intent_id}`.execute(suite.t.db);
  expect(Number(rows[0]!.n)).toBe(1);
});

test('A12 an agent acknowledgement is transport state, not convergence', async () => {
  const agent = new TestAgent(suite.hub, 'edge-4', 'edge-4-boot-a12');
  await agent.register();
  await put('a12', ['edge-4']);
  const [attempt] = await take(agent, 'a12');
  const ack = await agent.result(attempt.attempt_id, { outcome: 'succeeded', generation: 1 });
  expect(ack.status).toBe(200);
  expect(ack.body.state).toBe('succeeded');
  expect((await intentOf('a12', 'edge-4')).state).toBe('converging');
  agent.apply(attempt);
  await agent.report();
  expect((await intentOf('a12', 'edge-4')).state).toBe('converged');
});

test('an agent can neither take nor answer another node\'s attempts', async () => {
  const one = new TestAgent(suite.hub, 'edge-1', 'edge-1-boot-mine');
  const two = new TestAgent(suite.hub, 'edge-2', 'edge-2-boot-mine');
  await one.register();
  await two.register();
  await put('mine', ['edge-1']);
  const [attempt] = await take(one, 'mine');
  expect((await two.attempts(0)).filter((a) => a.stream_id === 'mine')).toEqual([]);
  const r = await two.result(attempt.attempt_id, { outcome: 'succeeded', generation: 1 });
  expect([r.status, r.body.code]).toEqual([404, 'attempt_not_found']);
  const report = await two.call('POST', '/api/v1/agent/reports', { node_id: 'edge-1', boot_id: 'b', report_seq: 99, streams: [] });
  expect([report.status, report.body.code]).toEqual([403, 'node_mismatch']);
});
