import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../../test/support/database.ts';
import { startTestHub, TOKENS, type TestHub } from '../../../../../test/support/hub.ts';

let t: TestDatabase;
let hub: TestHub;
beforeAll(async () => {
  t = await createTestDatabase();
  hub = await startTestHub(t.url);
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
});

const register = (h: TestHub, nodeId: string, bootId: string, token: string = TOKENS.agent1) =>
  h.call('POST', '/api/v1/agent/register', {
    token,
    body: { node_id: nodeId, boot_id: bootId, agent_version: '0.1.0', capabilities: ['network_shuffle'], data_address: '10.0.0.5:7000' },
  });

const labelEvents = async (nodeId: string) =>
  (await sql<{ data: { before: object; after: object }; metadata: { actor: string; role: string } }>`
    SELECT data, metadata FROM event_history WHERE stream_id = ${'node:' + nodeId} AND type = 'NodeLabelsReplaced' ORDER BY position`.execute(t.db)).rows;

test('F1 PUT labels replaces the whole map', async () => {
  expect((await register(hub, 'edge-1', 'boot-a')).status).toBe(200);
  const first = await hub.call('PUT', '/api/v1/nodes/edge-1/labels', { token: TOKENS.operator, body: { labels: { env: 'prod', tier: 'edge' } } });
  expect(first.status).toBe(200);
  expect(first.body.labels).toEqual({ env: 'prod', tier: 'edge' });
  const second = await hub.call('PUT', '/api/v1/nodes/edge-1/labels', { token: TOKENS.operator, body: { labels: { zone: 'a' } } });
  expect(second.body.labels).toEqual({ zone: 'a' });
  expect((await hub.call('GET', '/api/v1/nodes/edge-1')).body.labels).toEqual({ zone: 'a' });
});

test.each([
  ['17 labels', Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']))],
  ['an empty key', { '': 'v' }],
  ['an empty value', { env: '' }],
  ['a 64-character key', { ['k'.repeat(64)]: 'v' }],
  ['a 64-character value', { env: 'v'.repeat(64) }],
  ['a non-string value', { env: 3 }],
  ['the key __proto__, which a JavaScript map would drop', { ['__proto__']: 'x', env: 'prod' }],
  ['a key with a space', { 'bad key': 'x' }],
  ['a value with a comma, which a selector could not spell', { x: 'a,b' }],
  ['a value with "="', { x: 'a=b' }],
  ['a key with an upper-case prefix', { 'Example.com/tier': 'edge' }],
])('F1 %s is refused with 400 invalid_labels and changes nothing', async (_name, labels) => {
  await register(hub, 'edge-1', 'boot-a');
  await hub.call('PUT', '/api/v1/nodes/edge-1/labels', { token: TOKENS.operator, body: { labels: { keep: 'me' } } });
  const before = (await labelEvents('edge-1')).length;
  const r = await hub.call('PUT', '/api/v1/nodes/edge-1/labels', { token: TOKENS.operator, body: { labels } });
  expect(r.status).toBe(400);
  expect(r.body.code).toBe('invalid_labels');
  expect(r.body.correlation_id).toBe(r.headers.get('x-correlation-id'));
  expect((await hub.call('GET', '/api/v1/nodes/edge-1')).body.labels).toEqual({ keep: 'me' });
  expect((await labelEvents('edge-1')).length).toBe(before);
});

test('F1 "__proto__" as a label value is refused by the label syntax like any other text, not by accident', async () => {
  await register(hub, 'edge-1', 'boot-a');
  const r = await hub.call('PUT', '/api/v1/nodes/edge-1/labels', { token: TOKENS.operator, body: { labels: { odd: '__proto__' } } });
  expect([r.status, r.body.code, r.body.message]).toEqual([400, 'invalid_labels', expect.stringContaining('label value "__proto__" takes letters, digits')]);
});

test('F1 the label syntax: a prefixed key, "-", "_" and "." inside names', async () => {
  await register(hub, 'edge-1', 'boot-a');
  const labels = { 'example.com/tier': 'edge', zone_a: 'eu-west.1' };
  const r = await hub.call('PUT', '/api/v1/nodes/edge-1/labels', { token: TOKENS.operator, body: { labels } });
  expect([r.status, r.body.labels]).toEqual([200, labels]);
});

test('F1 exactly 16 labels of 63 characters are accepted', async () => {
  await register(hub, 'edge-1', 'boot-a');
  const labels = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`${i}`.padStart(63, 'k'), 'v'.repeat(63)]));
  const r = await hub.call('PUT', '/api/v1/nodes/edge-1/labels', { token: TOKENS.operator, body: { labels } });
  expect(r.status).toBe(200);
  expect(Object.keys(r.body.labels)).toHaveLength(16);
});

test('F1 labels of an unknown node → 404 node_not_found', async () => {
  const r = await hub.call('PUT', '/api/v1/nodes/nowhere/labels', { token: TOKENS.operator, body: { labels: { a: 'b' } } });
  expect(r.status).toBe(404);
  expect(r.body.code).toBe('node_not_found');
});

test('F2 every replacement is an audited event with before, after, actor and role', async () => {
  await register(hub, 'edge-2', 'boot-a', TOKENS.agent2);
  // Whatever the node carries now (another test of this file may have labelled it) is the first `before`.
  const carried = (await hub.call('GET', '/api/v1/nodes/edge-2')).body.labels;
  const earlier = (await labelEvents('edge-2')).length;
  await hub.call('PUT', '/api/v1/nodes/edge-2/labels', { token: TOKENS.operator, body: { labels: { env: 'staging' } } });
  await hub.call('PUT', '/api/v1/nodes/edge-2/labels', { token: TOKENS.admin, body: { labels: { env: 'prod' } } });
  const events = (await labelEvents('edge-2')).slice(earlier);
  expect(events.map((e) => e.data)).toEqual([
    { node_id: 'edge-2', before: carried, after: { env: 'staging' } },
    { node_id: 'edge-2', before: { env: 'staging' }, after: { env: 'prod' } },
  ]);
  expect(events.map((e) => [e.metadata.actor, e.metadata.role])).toEqual([['bob', 'operator'], ['alice', 'admin']]);
});

test('F2 agent re-registration (a new boot, new capabilities) never changes labels', async () => {
  await register(hub, 'edge-1', 'boot-a');
  await hub.call('PUT', '/api/v1/nodes/edge-1/labels', { token: TOKENS.operator, body: { labels: { env: 'prod' } } });
  const again = await hub.call('POST', '/api/v1/agent/register', {
    token: TOKENS.agent1,
    body: { node_id: 'edge-1', boot_id: 'boot-b', capabilities: [], data_address: null },
  });
  expect(again.status).toBe(200);
  expect(again.body.boot_id).toBe('boot-b');
  expect(again.body.capabilities).toEqual([]);
  expect(again.body.labels).toEqual({ env: 'prod' });
});

test('F2 a Hub restart never changes labels', async () => {
  await register(hub, 'edge-2', 'boot-c', TOKENS.agent2);
  await hub.call('PUT', '/api/v1/nodes/edge-2/labels', { token: TOKENS.operator, body: { labels: { tier: 'edge' } } });
  await hub.stop();
  hub = await startTestHub(t.url);
  expect((await hub.call('GET', '/api/v1/nodes/edge-2')).body.labels).toEqual({ tier: 'edge' });
  await register(hub, 'edge-2', 'boot-d', TOKENS.agent2);
  expect((await hub.call('GET', '/api/v1/nodes/edge-2')).body.labels).toEqual({ tier: 'edge' });
});

test('GET /nodes pages by node id with next_cursor', async () => {
  await register(hub, 'edge-1', 'boot-a');
  await register(hub, 'edge-2', 'boot-a', TOKENS.agent2);
  const first = await hub.call('GET', '/api/v1/nodes?limit=1', { token: TOKENS.viewer });
  expect(first.body.items.map((n: { node_id: string }) => n.node_id)).toEqual(['edge-1']);
  expect(first.body.next_cursor).toBe('edge-1');
  const second = await hub.call('GET', `/api/v1/nodes?limit=1&cursor=${first.body.next_cursor}`, { token: TOKENS.viewer });
  expect(second.body.items.map((n: { node_id: string }) => n.node_id)).toEqual(['edge-2']);
  expect(second.body.next_cursor).toBeNull();
  expect((await hub.call('GET', '/api/v1/nodes?limit=101')).body.code).toBe('invalid_request');
});

test('B3 GET /settings/reconciliation answers the global mode: the configuration file\'s until an operator sets one', async () => {
  const read = () => hub.call('GET', '/api/v1/settings/reconciliation', { token: TOKENS.viewer });
  expect((await read()).body).toEqual({ mode: 'lifecycle', source: 'file' });
  const set = await hub.call('PUT', '/api/v1/settings/reconciliation', { token: TOKENS.operator, body: { mode: 'observe' } });
  expect(set.status).toBe(200);
  expect(set.body).toEqual({ mode: 'observe', source: 'operator' });
  expect((await read()).body).toEqual({ mode: 'observe', source: 'operator' });
  // The setting is the Hub's, shared by every Hub on the database: a Hub started later reads the same.
  const other = await startTestHub(t.url);
  try {
    expect((await other.call('GET', '/api/v1/settings/reconciliation', { token: TOKENS.viewer })).body).toEqual({ mode: 'observe', source: 'operator' });
  } finally {
    await other.stop();
  }
  expect((await hub.call('GET', '/api/v1/settings/reconciliation', { token: TOKENS.agent1 })).status).toBe(403);
});
