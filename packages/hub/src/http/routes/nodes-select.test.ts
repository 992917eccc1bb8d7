import { createTestDatabase, type TestDatabase } from '../../../../../test/support/database.ts';
import { fleetplane } from '../../../../../test/support/cli.ts';
import { agentToken, startTestHub, testConfig, TOKENS, type TestHub } from '../../../../../test/support/hub.ts';
import { EXIT } from '../../cli/exit.ts';

// Selecting nodes by labels, liveness and maintenance, as kubectl's `get nodes -l` does; and a query
// parameter a route does not take is refused instead of ignored.
let t: TestDatabase;
let hub: TestHub;
let now = Date.parse('2026-11-30T12:00:00.000Z');
beforeAll(async () => {
  t = await createTestDatabase();
  hub = await startTestHub(t.url, { config: testConfig(4), clock: { now: () => new Date(now) } });
  const labels: Record<string, Record<string, string>> = {
    'edge-1': { env: 'prod', tier: 'edge' },
    'edge-2': { env: 'prod', tier: 'cache' },
    'edge-3': { env: 'dev', tier: 'edge' },
    'edge-4': { env: 'prod', tier: 'edge', 'example.com/zone': 'eu-1' },
  };
  for (const [node, map] of Object.entries(labels)) {
    // edge-1 last heard 3 minutes ago (offline), edge-2 one minute ago (stale), edge-3 and edge-4 now (online).
    now = Date.parse('2026-11-30T12:00:00.000Z') + { 'edge-1': 0, 'edge-2': 120_000, 'edge-3': 180_000, 'edge-4': 180_000 }[node]!;
    expect((await hub.call('POST', '/api/v1/agent/register', { token: agentToken(node), body: { node_id: node, boot_id: 'b1' } })).status).toBe(200);
    expect((await hub.call('PUT', `/api/v1/nodes/${node}/labels`, { token: TOKENS.operator, body: { labels: map } })).status).toBe(200);
  }
  expect((await hub.call('POST', '/api/v1/nodes/edge-4/drain', { token: TOKENS.operator })).status).toBe(200);
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
});

const ids = async (query: string) => {
  const r = await hub.call('GET', `/api/v1/nodes?${query}`, { token: TOKENS.viewer });
  expect(r.status).toBe(200);
  return r.body.items.map((n: { node_id: string }) => n.node_id);
};

test('F3 GET /nodes?selector=k=v,… lists the nodes carrying every pair', async () => {
  expect(await ids('selector=env=prod')).toEqual(['edge-1', 'edge-2', 'edge-4']);
  expect(await ids(`selector=${encodeURIComponent('env=prod,tier=edge')}`)).toEqual(['edge-1', 'edge-4']);
  expect(await ids(`selector=${encodeURIComponent('example.com/zone=eu-1')}`)).toEqual(['edge-4']);
  expect(await ids('selector=env=staging')).toEqual([]);
  expect(await ids('selector=env=prod&limit=1')).toEqual(['edge-1']);
});

test('GET /nodes filters by liveness and maintenance, at the same thresholds as each node\'s liveness', async () => {
  const all = (await hub.call('GET', '/api/v1/nodes', { token: TOKENS.viewer })).body.items;
  expect(Object.fromEntries(all.map((n: { node_id: string; liveness: string }) => [n.node_id, n.liveness]))).toEqual({
    'edge-1': 'offline',
    'edge-2': 'stale',
    'edge-3': 'online',
    'edge-4': 'online',
  });
  expect(await ids('liveness=online')).toEqual(['edge-3', 'edge-4']);
  expect(await ids('liveness=stale')).toEqual(['edge-2']);
  expect(await ids('liveness=offline')).toEqual(['edge-1']);
  expect(await ids('maintenance=draining')).toEqual(['edge-4']);
  expect(await ids('maintenance=active&liveness=online&selector=tier=edge')).toEqual(['edge-3']);
});

test('GET /nodes?search= lists the nodes whose id contains the text, with the other filters; an empty one is no filter', async () => {
  expect(await ids('search=dge-')).toEqual(['edge-1', 'edge-2', 'edge-3', 'edge-4']);
  expect(await ids('search=3')).toEqual(['edge-3']);
  expect(await ids('search=edge&selector=env=prod&limit=2')).toEqual(['edge-1', 'edge-2']);
  expect(await ids(`search=${encodeURIComponent('%')}`)).toEqual([]);
  expect(await ids('search=')).toEqual(['edge-1', 'edge-2', 'edge-3', 'edge-4']);
});

test('GET /node-counts counts what the same filters of GET /nodes select, by liveness and maintenance', async () => {
  const counts = async (query: string) => {
    const r = await hub.call('GET', `/api/v1/node-counts${query}`, { token: TOKENS.viewer });
    expect(r.status).toBe(200);
    return r.body;
  };
  expect(await counts('')).toEqual({ total: 4, liveness: { online: 2, stale: 1, offline: 1 }, maintenance: { active: 3, draining: 1 } });
  expect(await counts('?selector=tier=edge&search=edge')).toEqual({ total: 3, liveness: { online: 2, stale: 0, offline: 1 }, maintenance: { active: 2, draining: 1 } });
  expect(await counts('?liveness=online&maintenance=active')).toEqual({ total: 1, liveness: { online: 1, stale: 0, offline: 0 }, maintenance: { active: 1, draining: 0 } });
  const bad = await hub.call('GET', '/api/v1/node-counts?limit=1', { token: TOKENS.viewer });
  expect([bad.status, bad.body.code]).toEqual([400, 'invalid_query']);
});

test('a bad selector or filter is 400 with the envelope, naming the problem', async () => {
  for (const [query, message] of [
    ['selector=env', /selector takes key=value pairs, got "env"/],
    [`selector=${encodeURIComponent('env=a b')}`, /selector value "a b" of env takes letters/],
    ['selector=env=a,env=b', /selector asks env to be both a and b/],
    ['liveness=asleep', /liveness/],
  ] as const) {
    const r = await hub.call('GET', `/api/v1/nodes?${query}`, { token: TOKENS.viewer });
    expect([query, r.status, r.body.code]).toEqual([query, 400, 'invalid_request']);
    expect(r.body.message).toMatch(message);
  }
});

test('an unknown query parameter is 400 invalid_query on every route, not ignored', async () => {
  const rollouts = await hub.call('GET', '/api/v1/rollouts?selector=env=prod', { token: TOKENS.viewer });
  expect([rollouts.status, rollouts.body.code, rollouts.body.message]).toEqual([400, 'invalid_query', 'unknown query parameter selector: it takes limit, cursor, state']);
  expect(rollouts.body.details).toEqual({ unknown: ['selector'], accepted: ['limit', 'cursor', 'state'] });
  const node = await hub.call('GET', '/api/v1/nodes/edge-1?verbose=1', { token: TOKENS.viewer });
  expect([node.status, node.body.code, node.body.message]).toEqual([400, 'invalid_query', 'unknown query parameter verbose: it takes none']);
  expect((await hub.call('GET', '/api/v1/nodes?limit=2', { token: TOKENS.viewer })).status).toBe(200);
});

test('fleetplane nodes -l, --liveness and --maintenance select as the API does; a bad selector is a usage error', async () => {
  const cli = (...args: string[]) => fleetplane(args, { FLEETPLANE_HUB: hub.url, FLEETPLANE_TOKEN: TOKENS.viewer });
  const listed = await cli('--json', 'nodes', '-l', 'env=prod, tier=edge');
  expect(listed.code).toBe(EXIT.ok);
  expect(listed.json().map((n: { node_id: string }) => n.node_id)).toEqual(['edge-1', 'edge-4']);
  expect((await cli('--json', 'nodes', '--selector', 'env=prod', '--liveness', 'offline')).json().map((n: { node_id: string }) => n.node_id)).toEqual(['edge-1']);
  expect((await cli('--json', 'nodes', '--maintenance', 'draining')).json().map((n: { node_id: string }) => n.node_id)).toEqual(['edge-4']);
  const bad = await cli('nodes', '-l', 'env');
  expect(bad.code).toBe(EXIT.usage);
  expect(bad.err).toMatch(/^-l: takes key=value pairs, got "env"\n/);
  const help = await cli('nodes', '--help');
  expect(help.out).toMatch(/-l, --selector k=v,…\s+only nodes carrying every label pair/);
});
