import { sql } from 'kysely';
import { eventually, takeAttempts, takeConfigAttempts, TestAgent } from '../../../../test/support/fleet.ts';
import { testConfig, TOKENS } from '../../../../test/support/hub.ts';
import { hubSuite } from '../../../../test/support/hub-suite.ts';
import type { Actor } from '../commands/pipeline.ts';
import { deleteStream } from './delete-stream.ts';
import { BACKSTOP_QUEUE } from './queues.ts';

// Issue 22: DELETE /streams/{id} stops a stream everywhere and removes it once every node observed the stop.

const suite = hubSuite({ config: testConfig(5, { mode: 'configuration' }) });

const as = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  suite.hub.call(method, path, { token: TOKENS.operator, headers, ...(body !== undefined ? { body } : {}) });
const desired = (nodes: string[]) => ({ desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes } });
const events = async (where: string) => Number((await sql<{ n: string }>`SELECT count(*) n FROM events WHERE ${sql.raw(where)}`.execute(suite.t.db)).rows[0]!.n);
const listed = async () => (await as('GET', '/api/v1/streams')).body.items.map((s: any) => s.stream_id);

/** A node's agent, registered and reporting: a new boot for a node an earlier test's agent ran. */
async function agent(id: string, boot = 'boot-1'): Promise<TestAgent> {
  const a = new TestAgent(suite.hub, id, `${id}-${boot}`);
  await a.register();
  await a.report();
  return a;
}

/** The agent takes the stream's attempts, runs them and reports. */
async function converge(a: TestAgent, stream: string): Promise<void> {
  for (const attempt of await takeAttempts(a, stream)) {
    a.apply(attempt);
    await a.result(attempt.attempt_id, { outcome: 'succeeded', generation: attempt.generation });
  }
  await a.report();
}

test('K4 K5 a deleted stream stops on every node, shows deleting meanwhile, and is removed once every node observed the stop', async () => {
  const [a1, a2] = [await agent('edge-1'), await agent('edge-2')];
  await as('PUT', '/api/v1/streams/gone', desired(['edge-1', 'edge-2', 'edge-9'])); // edge-9 never registered
  await converge(a1, 'gone');
  await converge(a2, 'gone');

  const deleted = await as('DELETE', '/api/v1/streams/gone', undefined, { 'if-match': '"1"', 'x-correlation-id': 'delete-gone' });
  expect(deleted).toMatchObject({ status: 202, body: { stream_id: 'gone', generation: 2, desired_state: 'stopped', deleting: true } });
  expect(deleted.headers.get('etag')).toBe('"2"');
  const [request] = (await sql<any>`SELECT metadata FROM event_history WHERE type = 'StreamDeletionRequested'`.execute(suite.t.db)).rows;
  expect(request.metadata).toMatchObject({ actor: 'bob', correlation_id: 'delete-gone' });
  expect((await as('GET', '/api/v1/streams/gone')).body).toMatchObject({ deleting: true, generation: 2 });
  expect(await listed()).toContain('gone');

  // Meanwhile it takes no write; a second DELETE answers the same and records nothing.
  expect(await as('PUT', '/api/v1/streams/gone', desired(['edge-1']))).toMatchObject({ status: 409, body: { code: 'stream_deleting' } });
  expect(await as('POST', '/api/v1/streams/gone/actions', { action: 'restart' })).toMatchObject({ status: 409, body: { code: 'stream_deleting' } });
  const before = await events(`stream_id = 'stream:gone'`);
  expect(await as('DELETE', '/api/v1/streams/gone')).toMatchObject({ status: 202, body: { deleting: true, generation: 2 } });
  expect(await events(`stream_id = 'stream:gone'`)).toBe(before);

  // One node observed the stop: not yet removed. Both: removed (the never-registered node waits for nothing).
  await converge(a1, 'gone');
  expect((await as('GET', '/api/v1/streams/gone')).status).toBe(200);
  await converge(a2, 'gone');
  await eventually(async () => ((await as('GET', '/api/v1/streams/gone')).status === 404 ? true : undefined));
  expect(await listed()).not.toContain('gone');
  expect(await events(`type = 'StreamRemoved' AND stream_id = 'stream:gone'`)).toBe(1);
  expect((await sql<{ state: string }>`SELECT state FROM intents WHERE stream_id = 'gone' AND node_id = 'edge-9' AND generation = 2`.execute(suite.t.db)).rows[0]!.state).toBe('superseded');
  expect((await as('GET', '/api/v1/drift')).body.items.filter((d: any) => d.stream_id === 'gone')).toEqual([]);

  // A removed stream is not found by DELETE; a PUT creates it again at its next generation.
  expect(await as('DELETE', '/api/v1/streams/gone')).toMatchObject({ status: 404, body: { code: 'stream_not_found' } });
  expect(await as('POST', '/api/v1/streams/gone/actions', { action: 'restart' })).toMatchObject({ status: 404, body: { code: 'stream_not_found' } });
  expect(await as('PUT', '/api/v1/streams/gone', desired(['edge-1']))).toMatchObject({ status: 200, body: { generation: 3, deleting: false } });
  expect(await listed()).toContain('gone');
});

test('K4 A3 a DELETE under If-Match of another generation is 412 and changes nothing; an unknown stream is 404', async () => {
  await as('PUT', '/api/v1/streams/kept', desired(['edge-1']));
  const before = await events(`stream_id = 'stream:kept'`);
  expect(await as('DELETE', '/api/v1/streams/kept', undefined, { 'if-match': '"7"' })).toMatchObject({ status: 412, body: { code: 'generation_conflict', details: { generation: 1 } } });
  expect(await events(`stream_id = 'stream:kept'`)).toBe(before);
  expect((await as('GET', '/api/v1/streams/kept')).body.deleting).toBe(false);
  expect(await as('DELETE', '/api/v1/streams/never-was')).toMatchObject({ status: 404, body: { code: 'stream_not_found' } });
});

test('K4 K2 a stream whose last stopping node is retired with force is removed', async () => {
  const a3 = await agent('edge-3');
  await as('PUT', '/api/v1/streams/orphan', desired(['edge-3']));
  await converge(a3, 'orphan');
  expect((await as('DELETE', '/api/v1/streams/orphan')).status).toBe(202);
  expect(await as('DELETE', '/api/v1/nodes/edge-3')).toMatchObject({ status: 409, body: { code: 'node_has_live_intents' } });
  expect((await as('DELETE', '/api/v1/nodes/edge-3?force=true')).status).toBe(200);
  await eventually(async () => ((await as('GET', '/api/v1/streams/orphan')).status === 404 ? true : undefined));
});

test('K4 C6 a deletion whose Hub stopped before its own pass stops the stream on its nodes through the backstop pass', async () => {
  const a = await agent('edge-4');
  await as('PUT', '/api/v1/streams/gone-backstop', desired(['edge-4']));
  await converge(a, 'gone-backstop');
  // The command alone, as a Hub that committed it and stopped before the route's pass would leave it.
  const operator: Actor = { principal: 'bob', role: 'operator', source: 'api', correlationId: 'delete-backstop' };
  const deleted = await suite.hub.context.pipeline.run(operator, deleteStream('gone-backstop', null));
  expect(deleted).toMatchObject({ ok: true, value: { result: { generation: 2, nodes: ['edge-4'] } } });
  const { rows: backstops } = await sql<{ state: string }>`SELECT state FROM pgboss.job WHERE name = ${BACKSTOP_QUEUE} AND singleton_key = 'edge-4' AND state < 'completed'`.execute(suite.t.db);
  expect(backstops).toHaveLength(1);
  expect((await takeAttempts(a, 'gone-backstop')).map((x) => [x.operation, x.generation])).toEqual([['job_stop', 2]]);
});

test('K5 a node\'s long poll names the removed streams it still reports, until it reports without them; one created again is not named', async () => {
  const [a1, a2] = [await agent('edge-1', 'boot-k5'), await agent('edge-2', 'boot-k5')];
  const removedOn = async (a: TestAgent) => {
    const poll = await a.call('GET', '/api/v1/agent/attempts?wait=0');
    expect(poll.status).toBe(200);
    return poll.body.removed_streams;
  };
  await as('PUT', '/api/v1/streams/leaving', desired(['edge-1', 'edge-2']));
  await converge(a1, 'leaving');
  await converge(a2, 'leaving');
  expect(await removedOn(a1)).toEqual([]);

  await as('DELETE', '/api/v1/streams/leaving');
  await converge(a1, 'leaving');
  // Deleting, not yet removed: edge-2 has not stopped it, and edge-1 must keep reporting it stopped.
  expect(await removedOn(a1)).toEqual([]);
  await converge(a2, 'leaving');
  await eventually(async () => ((await as('GET', '/api/v1/streams/leaving')).status === 404 ? true : undefined));
  expect(await removedOn(a1)).toEqual([{ stream_id: 'leaving', generation: 2 }]);
  expect(await removedOn(a2)).toEqual([{ stream_id: 'leaving', generation: 2 }]);

  // edge-1 forgets it: its next report leaves it out, and its polls name it no more. edge-2 still reports it.
  a1.streams.delete('leaving');
  await a1.report();
  expect(await removedOn(a1)).toEqual([]);
  expect(await removedOn(a2)).toEqual([{ stream_id: 'leaving', generation: 2 }]);

  // Created again (generation 3): no longer removed, so not named, though edge-2 reports generation 2 stopped.
  await as('PUT', '/api/v1/streams/leaving', desired(['edge-1']));
  expect(await removedOn(a2)).toEqual([]);
});

test('K5 A10 a configuration apply to a node converges once a stream removed from it is forgotten: a removed stream is on no node', async () => {
  const a5 = await agent('edge-5', 'boot-a10');
  await as('PUT', '/api/v1/streams/removed-first', desired(['edge-5']));
  await converge(a5, 'removed-first');
  await as('DELETE', '/api/v1/streams/removed-first');
  await converge(a5, 'removed-first');
  await eventually(async () => ((await as('GET', '/api/v1/streams/removed-first')).status === 404 ? true : undefined));
  a5.streams.delete('removed-first');
  await a5.report();

  const version = (await as('POST', '/api/v1/config-versions', { content: 'after-removal', format: 'text' })).body.config_version;
  const applied = await as('POST', '/api/v1/nodes/edge-5/configuration/apply', { config_version: version });
  expect(applied.status).toBe(201);
  // Taken once the node's pass has queued it.
  const [attempt] = await takeConfigAttempts(a5);
  a5.apply(attempt);
  expect((await a5.result(attempt.attempt_id, { outcome: 'succeeded', generation: attempt.generation })).status).toBe(200);
  await a5.report();
  await eventually(async () => ((await as('GET', `/api/v1/rollouts/${applied.body.rollout_id}`)).body.state === 'converged' ? true : undefined));
});
