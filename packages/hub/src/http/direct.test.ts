import { gzipSync } from 'node:zlib';
import express from 'express';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { TestAgent } from '../../../../test/support/fleet.ts';
import { startTestHub, TOKENS, type TestHub } from '../../../../test/support/hub.ts';

// An agent's reports and registration are served ahead of Express (direct.ts). Express answers any other
// spelling of their path, with a trailing slash for one; both must answer alike. Each test also checks which
// of the two answered: every answer of Express here goes through its response's `send` (json-answer.ts, the
// error handler), which direct.ts never calls.
let t: TestDatabase;
let hub: TestHub;
let agent: TestAgent;
beforeAll(async () => {
  t = await createTestDatabase();
  hub = await startTestHub(t.url);
  agent = new TestAgent(hub, 'edge-1');
  await agent.register();
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
});

const REPORTS = { direct: '/api/v1/agent/reports', express: '/api/v1/agent/reports/' } as const;
const lanes = Object.entries(REPORTS) as [keyof typeof REPORTS, string][];
const expressSend = jest.spyOn(express.response, 'send');
/** Calls the Hub as `hub.call` does, and tells whether Express answered. */
const call = async (...args: Parameters<TestHub['call']>) => {
  expressSend.mockClear();
  const answer = await hub.call(...args);
  return { ...answer, byExpress: expressSend.mock.calls.length > 0 };
};
const envelope = (body: { correlation_id: string }) => ({ ...body, correlation_id: expect.any(String) });

test('A8 a report is accepted once and then ignored as stale, served directly or by Express alike', async () => {
  const answers = [];
  for (const [lane, path] of lanes) {
    const report = agent.nextReport();
    const accepted = await call('POST', path, { token: TOKENS.agent1, body: report, headers: { 'x-correlation-id': `report-${lane}` } });
    const replayed = await call('POST', path, { token: TOKENS.agent1, body: report });
    expect(accepted.byExpress).toBe(lane === 'express');
    expect(accepted.headers.get('x-correlation-id')).toBe(`report-${lane}`);
    answers.push([accepted.status, accepted.body, accepted.headers.get('content-type'), replayed.status, replayed.body]);
  }
  expect(answers[0]).toEqual([202, { accepted: true }, 'application/json; charset=utf-8', 200, { accepted: false, reason: 'stale_report' }]);
  expect(answers[1]).toEqual(answers[0]);
  const { rows } = await sql<{ id: string }>`
    SELECT metadata->>'correlation_id' AS id FROM events WHERE type = 'NodeReported' AND metadata->>'correlation_id' LIKE 'report-%' ORDER BY position`.execute(t.db);
  expect(rows.map((r) => r.id)).toEqual(['report-direct', 'report-express']);
});

test('J1 refusals are the same error envelopes either way: no token, broken JSON, an invalid body, a "__proto__" key', async () => {
  const refusals = async (path: string) => [
    await call('POST', path, { token: null, body: agent.nextReport() }),
    await call('POST', path, { token: TOKENS.agent1, body: '{"node_id": ' }),
    await call('POST', path, { token: TOKENS.agent1, body: { node_id: 'edge-1' } }),
    await call('POST', path, { token: TOKENS.agent1, body: JSON.stringify(agent.nextReport()).replace('{', '{"__proto__": {}, ') }),
  ];
  const direct = await refusals(REPORTS.direct);
  const express = await refusals(REPORTS.express);
  expect(direct.map((r) => [r.status, r.body.code])).toEqual([
    [401, 'unauthenticated'],
    [400, 'invalid_json'],
    [400, 'invalid_request'],
    [400, 'invalid_request'],
  ]);
  expect(direct[3]!.body.message).toContain('"__proto__" cannot be a key');
  expect(direct[2]!.body.details.issues).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'boot_id' })]));
  expect(direct.map((r) => r.byExpress)).toEqual([false, false, false, false]);
  expect(express.map((r) => r.byExpress)).toEqual([true, true, true, true]);
  expect(express.map((r) => [r.status, envelope(r.body)])).toEqual(direct.map((r) => [r.status, envelope(r.body)]));
});

test('J1 a report for another node is refused 403 and audited, served directly or by Express', async () => {
  for (const [lane, path] of lanes) {
    const r = await call('POST', path, { token: TOKENS.agent2, body: agent.nextReport(), headers: { 'x-correlation-id': `mismatch-${lane}` } });
    expect([r.status, r.body.code]).toEqual([403, 'node_mismatch']);
  }
  const { rows } = await sql<{ id: string; reason: string }>`
    SELECT metadata->>'correlation_id' AS id, data->>'reason' AS reason FROM events
    WHERE stream_id = 'principal:edge-2-agent' AND type = 'AccessDenied' AND metadata->>'correlation_id' LIKE 'mismatch-%' ORDER BY position`.execute(t.db);
  expect(rows).toEqual([
    { id: 'mismatch-direct', reason: 'node_mismatch' },
    { id: 'mismatch-express', reason: 'node_mismatch' },
  ]);
});

test('a query string or a body that is not plain JSON goes on to Express, which answers it (an unknown query parameter: 400)', async () => {
  const query = await call('POST', `${REPORTS.direct}?via=script`, { token: TOKENS.agent1, body: agent.nextReport() });
  const gzipped = await call('POST', REPORTS.direct, {
    token: TOKENS.agent1,
    body: gzipSync(JSON.stringify(agent.nextReport())),
    headers: { 'content-encoding': 'gzip' },
  });
  // The report route takes no query parameter: Express refuses it as every route refuses one it does not take.
  expect([query.status, query.body.code, query.byExpress]).toEqual([400, 'invalid_query', true]);
  expect([gzipped.status, gzipped.body, gzipped.byExpress]).toEqual([202, { accepted: true }, true]);
});

test('a registration is served directly, and every agent request is counted and labelled by its route', async () => {
  const counted = async () => {
    const metrics = (await hub.call('GET', '/metrics', { token: null })).body as string;
    return (route: string, status: number) =>
      Number(new RegExp(`^fleetplane_http_requests_total\\{method="POST",route="${route}",status="${status}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
  };
  const before = await counted();
  expressSend.mockClear();
  const registered = await agent.register();
  expect([registered.status, registered.body.node_id, expressSend.mock.calls.length > 0]).toEqual([200, 'edge-1', false]);
  // Served either way, each of these is counted under the route's pattern: accepted, stale, refused twice.
  for (const path of Object.values(REPORTS)) {
    const report = agent.nextReport();
    expect((await hub.call('POST', path, { token: TOKENS.agent1, body: report })).status).toBe(202);
    expect((await hub.call('POST', path, { token: TOKENS.agent1, body: report })).status).toBe(200);
    expect((await hub.call('POST', path, { token: null, body: agent.nextReport() })).status).toBe(401);
    expect((await hub.call('POST', path, { token: TOKENS.agent2, body: agent.nextReport() })).status).toBe(403);
  }
  const after = await counted();
  const moved = (route: string, status: number) => [route, status, after(route, status) - before(route, status)];
  expect([
    moved('/api/v1/agent/register', 200),
    moved('/api/v1/agent/reports', 202),
    moved('/api/v1/agent/reports', 200),
    moved('/api/v1/agent/reports', 401),
    moved('/api/v1/agent/reports', 403),
  ]).toEqual([
    ['/api/v1/agent/register', 200, 1],
    ['/api/v1/agent/reports', 202, 2],
    ['/api/v1/agent/reports', 200, 2],
    ['/api/v1/agent/reports', 401, 2],
    ['/api/v1/agent/reports', 403, 2],
  ]);
});
