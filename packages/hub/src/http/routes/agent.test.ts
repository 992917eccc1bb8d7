import { sql } from 'kysely';
import { startTestHub, testConfig, TOKENS } from '../../../../../test/support/hub.ts';
import { hubSuite } from '../../../../../test/support/hub-suite.ts';
import { TestAgent } from '../../../../../test/support/fleet.ts';

let now = new Date('2026-11-30T12:00:00.000Z');
// Agents of edge-1 … edge-4: the long-poll tests below take nodes of their own.
const suite = hubSuite({ clock: { now: () => now }, config: testConfig(4) });

const registration = { node_id: 'edge-1', boot_id: 'boot-1', agent_version: '0.1.0', capabilities: ['network_shuffle'], data_address: '10.0.0.5:7000' };
const nodeEvents = async () =>
  (await sql<{ type: string; metadata: { actor: string; role: string; source: string } }>`
    SELECT type, metadata FROM event_history WHERE stream_id = 'node:edge-1' ORDER BY position`.execute(suite.t.db)).rows;

test('an agent registers its node, which then reads back with its registration', async () => {
  const r = await suite.hub.call('POST', '/api/v1/agent/register', { token: TOKENS.agent1, body: registration });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({
    node_id: 'edge-1', boot_id: 'boot-1', capabilities: ['network_shuffle'], data_address: '10.0.0.5:7000',
    labels: {}, maintenance: 'active', liveness: 'online', mode: 'lifecycle', mode_override: null,
  });
  const [event] = await nodeEvents();
  expect(event).toEqual({ type: 'NodeRegistered', metadata: expect.objectContaining({ actor: 'edge-1-agent', role: 'agent', source: 'agent' }) });
});

test('repeating the same registration records nothing new', async () => {
  await suite.hub.call('POST', '/api/v1/agent/register', { token: TOKENS.agent1, body: registration });
  const before = (await nodeEvents()).length;
  expect((await suite.hub.call('POST', '/api/v1/agent/register', { token: TOKENS.agent1, body: registration })).status).toBe(200);
  expect((await nodeEvents()).length).toBe(before);
});

test('liveness follows the age of the last contact: online, stale, offline', async () => {
  await suite.hub.call('POST', '/api/v1/agent/register', { token: TOKENS.agent1, body: { ...registration, boot_id: 'boot-live' } });
  const at = (ms: number) => {
    now = new Date(now.getTime() + ms);
  };
  at(29_999);
  expect((await suite.hub.call('GET', '/api/v1/nodes/edge-1')).body.liveness).toBe('online');
  at(1);
  expect((await suite.hub.call('GET', '/api/v1/nodes/edge-1')).body.liveness).toBe('stale');
  at(90_000);
  expect((await suite.hub.call('GET', '/api/v1/nodes/edge-1')).body.liveness).toBe('offline');
});

test('liveness thresholds come from the configuration; a report is contact too', async () => {
  const tight = await startTestHub(suite.t.url, { clock: { now: () => now }, config: testConfig(2, { stale_after_ms: 5_000, offline_after_ms: 20_000 }) });
  try {
    const liveness = async () => (await tight.call('GET', '/api/v1/nodes/edge-1')).body.liveness;
    await tight.call('POST', '/api/v1/agent/register', { token: TOKENS.agent1, body: { ...registration, boot_id: 'boot-tight' } });
    now = new Date(now.getTime() + 4_999);
    expect(await liveness()).toBe('online');
    now = new Date(now.getTime() + 1);
    expect(await liveness()).toBe('stale');
    const report = { node_id: 'edge-1', boot_id: 'boot-tight', report_seq: 1, streams: [], configuration: { applied_version: null, recovery_points: [] } };
    expect((await tight.call('POST', '/api/v1/agent/reports', { token: TOKENS.agent1, body: report })).status).toBe(202);
    expect(await liveness()).toBe('online');
    now = new Date(now.getTime() + 20_000);
    expect(await liveness()).toBe('offline');
  } finally {
    await tight.stop();
  }
});

test('an agent cannot register another node: 403 node_mismatch, audited, nothing registered', async () => {
  const r = await suite.hub.call('POST', '/api/v1/agent/register', { token: TOKENS.agent1, body: { ...registration, node_id: 'edge-9' } });
  expect(r.status).toBe(403);
  expect(r.body.code).toBe('node_mismatch');
  expect((await suite.hub.call('GET', '/api/v1/nodes/edge-9')).status).toBe(404);
  const { rows } = await sql<{ data: { reason: string } }>`
    SELECT data FROM events WHERE stream_id = 'principal:edge-1-agent' AND type = 'AccessDenied'`.execute(suite.t.db);
  expect(rows.map((e) => e.data.reason)).toContain('node_mismatch');
});

test('an operator token cannot register a node', async () => {
  const r = await suite.hub.call('POST', '/api/v1/agent/register', { token: TOKENS.admin, body: registration });
  expect(r.status).toBe(403);
  expect(r.body.code).toBe('forbidden');
});

test('an agent token cannot use operator routes', async () => {
  await suite.hub.call('POST', '/api/v1/agent/register', { token: TOKENS.agent1, body: registration });
  const r = await suite.hub.call('PUT', '/api/v1/nodes/edge-1/labels', { token: TOKENS.agent1, body: { labels: { a: 'b' } } });
  expect(r.status).toBe(403);
  expect((await suite.hub.call('GET', '/api/v1/nodes', { token: TOKENS.agent1 })).status).toBe(403);
});

test('J1 an agent answering another node\'s attempt gets 404 as for an unknown one, and the refusal is audited', async () => {
  const edge2 = { ...registration, node_id: 'edge-2', boot_id: 'boot-2' };
  expect((await suite.hub.call('POST', '/api/v1/agent/register', { token: TOKENS.agent2, body: edge2 })).status).toBe(200);
  const body = { desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: ['edge-2'] } };
  expect((await suite.hub.call('PUT', '/api/v1/streams/j1-foreign', { token: TOKENS.operator, body })).status).toBe(200);
  const [attempt] = (await suite.hub.call('GET', '/api/v1/agent/attempts?wait=1', { token: TOKENS.agent2 })).body.attempts;
  const denials = async () =>
    (await sql<{ data: { reason: string; route: string } }>`
      SELECT data FROM events WHERE stream_id = 'principal:edge-1-agent' AND type = 'AccessDenied' AND data->>'reason' = 'attempt_not_found'`.execute(suite.t.db)).rows;
  const before = (await denials()).length;
  const result = { outcome: 'succeeded', generation: 1 };
  const foreign = await suite.hub.call('POST', `/api/v1/agent/attempts/${attempt.attempt_id}/result`, { token: TOKENS.agent1, body: result });
  const unknown = await suite.hub.call('POST', '/api/v1/agent/attempts/at_nope/result', { token: TOKENS.agent1, body: result });
  expect([foreign.status, foreign.body.code, unknown.status, unknown.body.code]).toEqual([404, 'attempt_not_found', 404, 'attempt_not_found']);
  // Only the reach for another node's attempt is a denial; the attempt itself is untouched.
  expect((await denials()).length).toBe(before + 1);
  expect((await suite.hub.call('GET', `/api/v1/attempts/${attempt.attempt_id}`, { token: TOKENS.viewer })).body).toMatchObject({ state: 'dispatched' });
});

test('a control address is a host and a port, nothing more: the Hub builds the URL it pushes to from it', async () => {
  const register = (control_address: string) =>
    suite.hub.call('POST', '/api/v1/agent/register', { token: TOKENS.agent1, body: { ...registration, boot_id: `boot-ca-${control_address}`, control_address } });
  for (const ok of ['10.0.0.5:7100', 'edge-1.example.net:7100', '[fd00::5]:7100', 'https://edge-1.example.net:65535']) expect((await register(ok)).status).toBe(200);
  for (const bad of ['10.0.0.5', 'evil.example/steal?x=1:80', 'user@10.0.0.5:7100', 'http://10.0.0.5:7100']) {
    expect(await register(bad)).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
  }
  // Addresses no URL can hold (a port out of range, an IPv4 address with a part over 255, a bracketed
  // IPv4 address): taken, every push to them failed before any connection and left its attempt dispatched,
  // then ambiguous, with nothing wrong said at registration. A port of 0 is no endpoint either.
  const before = (await suite.hub.call('GET', '/api/v1/nodes/edge-1')).body.control_address;
  for (const bad of ['10.0.0.5:99999', '10.0.0.256:7100', '[10.0.0.5]:7100', '[:::::]:7100', 'https://edge-1.example.net:65536', '10.0.0.5:0']) {
    expect([bad, await register(bad)]).toEqual([bad, expect.objectContaining({ status: 400, body: expect.objectContaining({ code: 'invalid_request' }) })]);
  }
  expect((await suite.hub.call('GET', '/api/v1/nodes/edge-1')).body.control_address).toBe(before);
});

// The long poll's loop (SPEC C1): its first look reads the node's retirement and queued attempts together; an
// offer wakes it to lease at once; at its deadline it answers empty, and the agent polls again.
test('C1 a long poll held when its node\'s attempt is queued answers with it at once, leased to the node', async () => {
  const agent = await TestAgent.reporting(suite.hub, 'edge-3');
  const held = agent.attempts(30);
  // Queued once the poll has had time to take its first look and wait; answered well before the 30 s wait.
  await new Promise((r) => setTimeout(r, 300));
  const body = { desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: ['edge-3'] } };
  expect((await suite.hub.call('PUT', '/api/v1/streams/c1-woken', { token: TOKENS.operator, body })).status).toBe(200);
  const started = Date.now();
  const [attempt, ...more] = await held;
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(more).toEqual([]);
  expect(attempt).toMatchObject({ stream_id: 'c1-woken', operation: 'job_start', generation: 1 });
  expect((await suite.hub.call('GET', `/api/v1/attempts/${attempt.attempt_id}`, { token: TOKENS.viewer })).body).toMatchObject({ state: 'dispatched', node_id: 'edge-3' });
});

test('C1 a long poll woken by an offer with nothing queued for its node waits on, and answers empty at its deadline', async () => {
  const agent = await TestAgent.reporting(suite.hub, 'edge-4');
  const started = Date.now();
  const held = agent.attempts(2);
  await new Promise((r) => setTimeout(r, 300));
  // Another Hub's poll may have taken what was offered: the lease finds nothing and the poll waits again.
  await suite.hub.context.transport.offer(['edge-4']);
  expect(await held).toEqual([]);
  expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
});

test('a registration answers with its node\'s view as GET /nodes/{id} shows it (report rates aside), under the mode an operator set (read with its commit)', async () => {
  const operator = { token: TOKENS.operator };
  expect((await suite.hub.call('PUT', '/api/v1/settings/reconciliation', { ...operator, body: { mode: 'observe' } })).status).toBe(200);
  try {
    const r = await suite.hub.call('POST', '/api/v1/agent/register', { token: TOKENS.agent1, body: { ...registration, boot_id: 'boot-view', agent_version: '0.2.0' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ node_id: 'edge-1', boot_id: 'boot-view', agent_version: '0.2.0', mode: 'observe' });
    // The same view an operator reads, but for the report rates, which only GET /nodes/{id} counts.
    const { reports, ...view } = (await suite.hub.call('GET', '/api/v1/nodes/edge-1', operator)).body;
    expect(reports).toBeDefined();
    expect(r.body).toEqual(view);
  } finally {
    await suite.hub.call('PUT', '/api/v1/settings/reconciliation', { ...operator, body: { mode: 'lifecycle' } });
  }
});
