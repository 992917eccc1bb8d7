import { sql } from 'kysely';
import { TestAgent } from '../../../../test/support/fleet.ts';
import { testConfig, TOKENS } from '../../../../test/support/hub.ts';
import { hubSuite } from '../../../../test/support/hub-suite.ts';

// Stream health in reports, projections and drift: SPEC L1, L2.
const suite = hubSuite({ config: testConfig(3, { mode: 'observe' }) });

const put = (id: string, nodes: string[]) =>
  suite.hub.call('PUT', `/api/v1/streams/${id}`, { token: TOKENS.operator, body: { desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes } } });
const reports = async (nodeId: string, after: number) =>
  (await sql<{ data: unknown }>`SELECT data FROM events WHERE stream_id = ${`node:${nodeId}`} AND type = 'NodeReported' AND position > ${after} ORDER BY position`.execute(suite.t.db)).rows.map((r) => r.data);
const lastPosition = async () => Number((await sql<{ p: string }>`SELECT max(position) p FROM events`.execute(suite.t.db)).rows[0]!.p);
const drift = async (nodeId: string) => ((await suite.hub.call('GET', '/api/v1/drift')).body.items as any[]).filter((d) => d.node_id === nodeId);

test('L1 a report may carry each stream\'s health: stored compactly, a repeat is its sequence alone, and a report without health is accepted as before', async () => {
  const agent = new TestAgent(suite.hub, 'edge-1');
  await agent.register();
  const from = await lastPosition();
  agent.streams.set('k1', { stream_id: 'k1', generation: 1, state: 'running', health: { status: 'running', exit_code: null, restarts: 0 } });
  expect((await agent.report()).status).toBe(202);
  expect((await agent.report()).status).toBe(202);
  agent.streams.set('k1', { stream_id: 'k1', generation: 1, state: 'failed', health: { status: 'exited', exit_code: 3, restarts: 2 } });
  expect((await agent.report()).status).toBe(202);
  // An older agent: no health at all.
  agent.streams.set('k1', { stream_id: 'k1', generation: 1, state: 'running' });
  expect((await agent.report()).status).toBe(202);
  expect(await reports('edge-1', from)).toEqual([
    { seq: 1, streams: [['k1', 1, 'running', null, null, ['running', null, 0]]], config: null, points: [] },
    { seq: 2 },
    { seq: 3, streams: [['k1', 1, 'failed', null, null, ['exited', 3, 2]]], config: null, points: [] },
    { seq: 4, streams: [['k1', 1, 'running']], config: null, points: [] },
  ]);
});

test('L1 a health that is not a fact of the agreed shape is refused with a clear error and changes nothing', async () => {
  const agent = new TestAgent(suite.hub, 'edge-2');
  await agent.register();
  const before = await lastPosition();
  agent.streams.set('k1-bad', { stream_id: 'k1-bad', generation: 1, state: 'running', health: { status: 'crashing' as 'exited', exit_code: null, restarts: -1 } });
  const r = await agent.report();
  expect(r.status).toBe(400);
  expect(r.body.code).toBe('invalid_request');
  expect(await lastPosition()).toBe(before);
});

test('L2 the Hub keeps the reported health in observed streams, the stream view and drift, where a stream that exited or restarted is unhealthy', async () => {
  const agent = new TestAgent(suite.hub, 'edge-3');
  await agent.register();
  expect((await put('k2', ['edge-3'])).status).toBe(200);
  agent.streams.set('k2', { stream_id: 'k2', generation: 1, state: 'running', health: { status: 'running', exit_code: null, restarts: 0 } });
  await agent.report();
  expect(await drift('edge-3')).toEqual([]);
  // Running at its desired generation, but restarted within the window: unhealthy.
  agent.streams.set('k2', { stream_id: 'k2', generation: 1, state: 'running', health: { status: 'running', exit_code: null, restarts: 3 } });
  await agent.report();
  expect((await suite.hub.call('GET', '/api/v1/streams/k2')).body.observed['edge-3']).toMatchObject({ state: 'running', health: { status: 'running', exit_code: null, restarts: 3 } });
  expect(await drift('edge-3')).toEqual([
    expect.objectContaining({ stream_id: 'k2', kind: 'unhealthy', observed_state: 'running', health: { status: 'running', exit_code: null, restarts: 3 } }),
  ]);
  // Exited on its own: a generation mismatch of state, with its health beside it.
  agent.streams.set('k2', { stream_id: 'k2', generation: 1, state: 'failed', health: { status: 'exited', exit_code: 137, restarts: 3 } });
  await agent.report();
  expect(await drift('edge-3')).toEqual([
    expect.objectContaining({ stream_id: 'k2', kind: 'generation_mismatch', observed_state: 'failed', health: { status: 'exited', exit_code: 137, restarts: 3 } }),
  ]);
  const { rows } = await sql<{ health: unknown }>`SELECT health FROM observed_streams WHERE node_id = 'edge-3' AND stream_id = 'k2'`.execute(suite.t.db);
  expect(rows).toEqual([{ health: { status: 'exited', exit_code: 137, restarts: 3 } }]);
});
