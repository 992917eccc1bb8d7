import { request } from 'node:http';
import { parseExposition, sampleValue } from '../../../../../test/support/exposition.ts';
import { eventually, TestAgent } from '../../../../../test/support/fleet.ts';
import { agentToken, testConfig, TOKENS } from '../../../../../test/support/hub.ts';
import { hubSuite } from '../../../../../test/support/hub-suite.ts';

// A year of polls: a Hub keeps what wakes a node's long poll while the poll is held, and forgets it once
// the poll is answered, however it ends. It kept a count of announcements for every node ever announced to it
// (every Hub hears every node's), retired nodes included, for as long as it ran.

const suite = hubSuite({ config: testConfig(3) });

const held = async () => sampleValue(parseExposition((await suite.hub.call('GET', '/metrics', { token: null })).body), 'fleetplane_long_poll_nodes');
const heldIs = (n: number) => eventually(async () => ((await held()) === n ? true : undefined));
const desired = (node: string) => ({ desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: [node] } });

/** A long poll of `node` its agent gives up on once the Hub holds it. */
async function abandonedPoll(node: string): Promise<void> {
  const req = request(new URL('/api/v1/agent/attempts?wait=30', suite.hub.url), { headers: { authorization: `Bearer ${agentToken(node)}` } });
  req.on('error', () => {});
  req.end();
  await heldIs(1);
  req.destroy();
}

test('K3 a poll answered at its deadline, woken by an attempt, given up by its agent or refused leaves nothing held', async () => {
  const [edge1, , edge3] = await Promise.all(['edge-1', 'edge-2', 'edge-3'].map((id) => TestAgent.reporting(suite.hub, id)));
  expect(await held()).toBe(0);

  expect(await edge1!.attempts(1)).toEqual([]);
  expect(await held()).toBe(0);

  const woken = edge1!.attempts(20);
  await heldIs(1);
  expect((await suite.hub.call('PUT', '/api/v1/streams/woken', { token: TOKENS.operator, body: desired('edge-1') })).status).toBe(200);
  expect((await woken).map((a) => a.stream_id)).toEqual(['woken']);
  expect(await held()).toBe(0);

  await abandonedPoll('edge-2');
  await heldIs(0);

  // A stream on a node retired since: its attempts were announced, and its poll is refused.
  expect((await suite.hub.call('PUT', '/api/v1/streams/retiring', { token: TOKENS.operator, body: desired('edge-3') })).status).toBe(200);
  expect((await suite.hub.call('DELETE', '/api/v1/nodes/edge-3?force=true', { token: TOKENS.operator })).status).toBe(200);
  expect((await edge3!.call('GET', '/api/v1/agent/attempts?wait=5')).status).toBe(403);
  expect(await held()).toBe(0);
});
