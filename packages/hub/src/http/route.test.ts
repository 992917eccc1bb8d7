import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { startTestHub, TOKENS, type TestHub } from '../../../../test/support/hub.ts';

let t: TestDatabase;
let hub: TestHub;
beforeAll(async () => {
  t = await createTestDatabase();
  hub = await startTestHub(t.url);
  await hub.call('POST', '/api/v1/agent/register', { token: TOKENS.agent1, body: { node_id: 'edge-1', boot_id: 'b1' } });
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
});

const denials = async (principal: string) =>
  (await sql<{ data: Record<string, string>; metadata: Record<string, string>; recorded_at: Date }>`
    SELECT data, metadata, recorded_at FROM events WHERE stream_id = ${'principal:' + principal} AND type = 'AccessDenied'
    ORDER BY position`.execute(t.db)).rows;

test('J1 a missing or unknown token → 401 unauthenticated in the error envelope', async () => {
  for (const token of [null, 'not-a-known-token']) {
    const r = await hub.call('GET', '/api/v1/nodes', { token });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ code: 'unauthenticated', message: expect.any(String), correlation_id: expect.any(String), details: {} });
  }
  const malformed = await hub.call('GET', '/api/v1/nodes', { token: null, headers: { authorization: 'Basic abc' } });
  expect(malformed.status).toBe(401);
});

test('J1 a wrong role → 403 forbidden and an audited denial event with actor, role, correlation id and time', async () => {
  const labels = (await hub.call('GET', '/api/v1/nodes/edge-1')).body.labels;
  const r = await hub.call('PUT', '/api/v1/nodes/edge-1/labels', {
    token: TOKENS.viewer,
    body: { labels: { a: 'b' } },
    headers: { 'x-correlation-id': 'denied-req-1' },
  });
  expect(r.status).toBe(403);
  expect(r.body.code).toBe('forbidden');
  const [denial] = await denials('audit');
  expect(denial!.data).toEqual({ principal: 'audit', role: 'viewer', method: 'PUT', route: '/api/v1/nodes/:id/labels', reason: 'forbidden' });
  expect(denial!.metadata).toMatchObject({ actor: 'audit', role: 'viewer', correlation_id: 'denied-req-1' });
  expect(denial!.recorded_at).toBeInstanceOf(Date);
  expect((await hub.call('GET', '/api/v1/nodes/edge-1')).body.labels).toEqual(labels);
});

test('X-Correlation-Id is taken from the request, echoed, and recorded on the events it causes', async () => {
  const r = await hub.call('PUT', '/api/v1/nodes/edge-1/labels', {
    token: TOKENS.operator,
    body: { labels: { env: 'prod' } },
    headers: { 'x-correlation-id': 'ticket-4711' },
  });
  expect(r.headers.get('x-correlation-id')).toBe('ticket-4711');
  const { rows } = await sql<{ n: string }>`
    SELECT count(*) n FROM events WHERE metadata->>'correlation_id' = 'ticket-4711' AND type = 'NodeLabelsReplaced'`.execute(t.db);
  expect(Number(rows[0]!.n)).toBe(1);
});

test('a malformed X-Correlation-Id is replaced by a generated one', async () => {
  const r = await hub.call('GET', '/healthz', { headers: { 'x-correlation-id': 'has spaces and <tags>' } });
  expect(r.headers.get('x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
});

test('bad input gets a stable code: invalid JSON, unknown fields, unknown routes', async () => {
  const json = await hub.call('PUT', '/api/v1/nodes/edge-1/labels', { token: TOKENS.operator, body: '{"labels": ' });
  expect([json.status, json.body.code]).toEqual([400, 'invalid_json']);
  const extra = await hub.call('PUT', '/api/v1/nodes/edge-1/labels', { token: TOKENS.operator, body: { labels: {}, colour: 'red' } });
  expect([extra.status, extra.body.code]).toEqual([400, 'invalid_labels']);
  expect(extra.body.details.issues).toEqual(expect.arrayContaining([expect.objectContaining({ message: expect.any(String) })]));
  const missing = await hub.call('GET', '/api/v1/nowhere');
  expect([missing.status, missing.body.code]).toEqual([404, 'not_found']);
});

test('a body that matches no member of a union is refused with what is wrong in it: the values its discriminator takes, the field missing', async () => {
  const refused = async (body: unknown) => {
    const r = await hub.call('POST', '/api/v1/rollouts/ro_none/actions', { token: TOKENS.operator, body });
    expect([r.status, r.body.code]).toEqual([400, 'invalid_request']);
    return { message: r.body.message, issues: r.body.details.issues };
  };
  const actions = 'Invalid option: expected one of "pause"|"resume"|"cancel"|"rollback"';
  for (const body of [{}, { action: 'bogus' }, { action: 5 }]) {
    expect(await refused(body)).toEqual({ message: `invalid body: ✖ ${actions}\n  → at action`, issues: [{ path: 'action', message: actions }] });
  }
  // A restore of one target without the target: the member the body aims at says what it lacks.
  expect((await refused({ action: 'rollback', scope: 'target' })).issues).toEqual([{ path: 'node_id', message: 'Invalid input: expected string, received undefined' }]);
  expect((await refused({ action: 'rollback', config_version: 7 })).issues).toEqual([{ path: 'config_version', message: 'Invalid input: expected string, received number' }]);
  // A rollback with neither a version nor a scope: either will do, and each is named.
  expect((await refused({ action: 'rollback' })).issues).toEqual([
    { path: '', message: 'either config_version: Invalid input: expected string, received undefined; or scope: Invalid option: expected one of "target"|"failed"|"all_changed"' },
  ]);
  // A scope no restore takes: the values a scope takes, not that a rollback to a version takes no scope.
  expect((await refused({ action: 'rollback', scope: 'nope' })).issues).toEqual([{ path: 'scope', message: 'Invalid option: expected one of "target"|"failed"|"all_changed"' }]);
  expect((await refused([])).issues).toEqual([{ path: '', message: 'Invalid input: expected object, received array' }]);
});
