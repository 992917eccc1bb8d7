import { sql } from 'kysely';
import { raceQueuedPasses, withoutJobs } from '../../../../test/support/commands.ts';
import { eventually, takeAttempts, TestAgent } from '../../../../test/support/fleet.ts';
import { testConfig, TOKENS } from '../../../../test/support/hub.ts';
import { hubSuite } from '../../../../test/support/hub-suite.ts';
import type { Actor } from '../commands/pipeline.ts';
import { Registration } from '../http/routes/agent.ts';
import { registerNode } from '../nodes/register-node.ts';
import { BACKSTOP_QUEUE, RECONCILE_QUEUE } from './queues.ts';
import { refreshPeers } from './refresh-peers.ts';

// SPEC E3, E4: a split placement's nodes learn each other's data addresses with their job_start, and a node
// that moves its data address gets the placement started again, by the Hub, with the new one. A Hub over HTTP
// with its workers, simulated agents, a real PostgreSQL.

const suite = hubSuite({ config: testConfig(8) });

const address = (n: number, port = 7000) => `10.0.0.${n}:${port}`;
const shuffle = (n: number, port = 7000) => ({ capabilities: ['network_shuffle'], data_address: address(n, port) });
/** The `split-peers` jobs ever queued for the stream: a registration's commit inserts them with it. */
const checksAskedFor = async (streamId: string) =>
  Number((await sql<{ n: string }>`SELECT count(*) AS n FROM pgboss.job WHERE name = 'split-peers' AND singleton_key = ${streamId}`.execute(suite.t.db)).rows[0]!.n);
const logged = async (streamId: string, type: string) =>
  (await sql<{ data: any; metadata: any }>`SELECT data, metadata FROM event_history WHERE stream_id = ${streamId} AND type = ${type} ORDER BY position`.execute(suite.t.db)).rows;

async function startedSplit(streamId: string, nodes: number[]): Promise<TestAgent[]> {
  const agents = nodes.map((n) => new TestAgent(suite.hub, `edge-${n}`));
  for (const [i, a] of agents.entries()) expect((await a.register(shuffle(nodes[i]!))).status).toBe(200);
  const body = { desired_state: 'running', spec: { command: 'shuffle' }, placement: { nodes: agents.map((a) => a.nodeId), split: true } };
  expect((await suite.hub.call('PUT', `/api/v1/streams/${streamId}`, { token: TOKENS.operator, body })).status).toBe(200);
  for (const a of agents) {
    const [start] = await takeAttempts(a, streamId);
    a.apply(start);
    expect((await a.result(start.attempt_id, { outcome: 'succeeded', generation: start.generation })).status).toBe(200);
    expect((await a.report()).status).toBe(202);
  }
  return agents;
}

test('E4 a node that registers with a new data address gets its split placement started again on every node, by the Hub, with the new address', async () => {
  const [a, b] = await startedSplit('e4-moved', [1, 2]);
  b!.restart('edge-2-boot-2');
  expect((await b!.register(shuffle(2, 7100))).status).toBe(200);
  expect(await checksAskedFor('e4-moved')).toBe(1);

  const peers = [{ node_id: 'edge-1', data_address: address(1) }, { node_id: 'edge-2', data_address: address(2, 7100) }];
  for (const [index, agent] of [a!, b!].entries()) {
    const [start] = await takeAttempts(agent, 'e4-moved');
    expect(start).toMatchObject({ operation: 'job_start', generation: 2, placement: { index, count: 2, peers } });
  }
  // Written by the Hub, under the registration's correlation id: the audit says why the generation came.
  const [registered] = (await logged('node:edge-2', 'NodeRegistered')).slice(-1);
  const written = await logged('stream:e4-moved', 'StreamDesired');
  expect(written.map((e) => e.data.generation)).toEqual([1, 2]);
  expect(written[1]!.metadata).toMatchObject({ actor: 'hub', role: 'system', source: 'worker', correlation_id: registered!.metadata.correlation_id });
  expect(written[1]!.data).toEqual({ ...written[0]!.data, generation: 2 });

  // Level-triggered: the shares are current now, so the check finds nothing, however often it runs.
  const check = await suite.hub.context.pipeline.run({ principal: 'hub', role: 'system', source: 'worker', correlationId: 'again' }, refreshPeers('e4-moved'));
  expect(check).toMatchObject({ ok: true, value: { events: [], result: { generation: 2, nodes: [] } } });
  expect(await logged('stream:e4-moved', 'StreamDesired')).toHaveLength(2);
});

test('E4 a registration that keeps the node\'s data address, or moves it under a split not running, asks for no new generation', async () => {
  const [c, d] = await startedSplit('e4-same', [3, 4]);
  d!.restart('edge-4-boot-2');
  expect((await d!.register(shuffle(4))).status).toBe(200);
  expect(await checksAskedFor('e4-same')).toBe(0);
  const stop = { desired_state: 'stopped', spec: { command: 'shuffle' }, placement: { nodes: ['edge-3', 'edge-4'], split: true } };
  expect((await suite.hub.call('PUT', '/api/v1/streams/e4-same', { token: TOKENS.operator, body: stop })).status).toBe(200);
  for (const agent of [c!, d!]) expect((await takeAttempts(agent, 'e4-same')).map((x) => [x.operation, x.generation])).toEqual([['job_stop', 2]]);
  c!.restart('edge-3-boot-2');
  expect((await c!.register(shuffle(3, 7100))).status).toBe(200);
  expect(await checksAskedFor('e4-same')).toBe(0);
  expect((await logged('stream:e4-same', 'StreamDesired')).map((e) => e.data.generation)).toEqual([1, 2]);
});

test('E4 the new generation reaches every node of the split even when a pass of a node, queued before, runs while the generation commits', async () => {
  const [e, f] = await startedSplit('e4-race', [5, 6]);
  // A registration moving edge-6's data address, recorded without the check it asks for: the test runs that check.
  f!.restart('edge-6-boot-2');
  const moved = Registration.parse({ node_id: 'edge-6', boot_id: f!.bootId, ...shuffle(6, 7100) });
  const agent: Actor = { principal: 'edge-6', role: 'agent', source: 'agent', correlationId: 'peers-race' };
  expect((await suite.hub.context.pipeline.run(agent, withoutJobs(registerNode(moved)))).ok).toBe(true);

  const worker: Actor = { principal: 'hub', role: 'system', source: 'worker', correlationId: 'peers-race' };
  const { outcome, atCommit } = await raceQueuedPasses(suite.hub, worker, refreshPeers('e4-race'), ['edge-5', 'edge-6']);
  expect(atCommit).toEqual(
    ['edge-5', 'edge-6'].flatMap((node) => [
      { name: RECONCILE_QUEUE, node, state: 'created' },
      { name: BACKSTOP_QUEUE, node, state: 'created' },
    ]),
  );
  expect(outcome).toMatchObject({ ok: true, value: { result: { generation: 2, nodes: ['edge-5', 'edge-6'] } } });
  for (const a of [e!, f!]) expect((await takeAttempts(a, 'e4-race')).map((x) => [x.operation, x.generation])).toEqual([['job_start', 2]]);
});

test('E1 a split placement waiting for a node starts on its peer when that node registers, even while a pass of the peer, queued before, runs', async () => {
  const g = new TestAgent(suite.hub, 'edge-7');
  expect((await g.register(shuffle(7))).status).toBe(200);
  const body = { desired_state: 'running', spec: { command: 'shuffle' }, placement: { nodes: ['edge-7', 'edge-8'], split: true } };
  expect((await suite.hub.call('PUT', '/api/v1/streams/e1-race', { token: TOKENS.operator, body })).status).toBe(200);
  expect((await g.attempts(1)).filter((x) => x.stream_id === 'e1-race')).toEqual([]);

  const h = new TestAgent(suite.hub, 'edge-8');
  const registration = Registration.parse({ node_id: 'edge-8', boot_id: h.bootId, ...shuffle(8) });
  const agent: Actor = { principal: 'edge-8', role: 'agent', source: 'agent', correlationId: 'e1-race' };
  const { outcome, atCommit } = await raceQueuedPasses(suite.hub, agent, registerNode(registration), ['edge-7', 'edge-8']);
  expect(outcome.ok).toBe(true);
  expect(atCommit.filter((j) => j.state === 'created')).toHaveLength(4);
  for (const a of [g, h]) expect((await takeAttempts(a, 'e1-race')).map((x) => x.operation)).toEqual(['job_start']);
});
