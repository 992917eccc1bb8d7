import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import winston from 'winston';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { eventually, takeAttempts, TestAgent } from '../../../../test/support/fleet.ts';
import { startTestHub, testConfig, TOKENS, type TestHub } from '../../../../test/support/hub.ts';
import { rawRequest, type RawAnswer } from '../../../../test/support/raw-http.ts';
import { allRoutes } from './routes/all.ts';
import type { RouteDef } from './route.ts';

// The issue's defects 3 and 4, as a hostile client found them: malformed input answered 500, and a
// "__proto__" key spelled with an escape accepted and silently dropped. Every refusal is a 4xx error
// envelope and writes nothing.

let t: TestDatabase;
let hub: TestHub;
let agent: TestAgent;
const logged: { level: string; message: string }[] = [];
beforeAll(async () => {
  t = await createTestDatabase();
  const sink = new Writable({
    write(chunk, _encoding, done) {
      const line = JSON.parse(String(chunk));
      logged.push({ level: line.level, message: line.message });
      done();
    },
  });
  const logger = winston.createLogger({ level: 'debug', format: winston.format.json(), transports: [new winston.transports.Stream({ stream: sink })] });
  hub = await startTestHub(t.url, { config: testConfig(2, { mode: 'lifecycle' }), logger });
  agent = new TestAgent(hub, 'edge-1');
  await agent.register();
  await agent.report();
  await hub.call('PUT', '/api/v1/nodes/edge-1/labels', { token: TOKENS.operator, body: { labels: { env: 'prod' } } });
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
});

const send = (method: string, path: string, options: { token?: string | null; body?: string | Buffer; headers?: Record<string, string>; chunked?: boolean } = {}) => {
  const { token = TOKENS.admin, body, headers = {}, chunked } = options;
  return rawRequest(hub.url, {
    method,
    path,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body } : {}),
    ...(chunked ? { chunked } : {}),
  });
};

/** Whatever answered: status and code, and the rest of the error envelope checked. */
const refusal = (r: RawAnswer) => {
  expect(r.json).toEqual({ code: expect.any(String), message: expect.any(String), correlation_id: expect.any(String), details: expect.any(Object) });
  return [r.status, r.json.code];
};

// Events written by requests: the refused ones must add none. The workers' own events (an earlier test's
// attempt queued, retried or expired meanwhile) come and go on their own schedule.
const eventCount = async () =>
  Number((await sql<{ n: string }>`SELECT count(*) AS n FROM event_history WHERE metadata->>'source' <> 'worker'`.execute(t.db)).rows[0]!.n);

/** A token that may call the route: its agent's for agent routes, an admin's for the others. */
const tokenFor = (def: RouteDef) => (def.access === 'agent' ? TOKENS.agent1 : TOKENS.admin);
const withId = (def: RouteDef, id: string) => def.path.replace(/:\w+/g, id);
const methodOf = (def: RouteDef) => def.method.toUpperCase();
const routesWithIds = allRoutes.filter((d) => d.path.includes(':'));
const routesWithBodies = allRoutes.filter((d) => d.body !== undefined);

test('defect 3: a path id with bad percent-encoding is refused 400 invalid_path on every route with an id', async () => {
  expect(routesWithIds.length).toBeGreaterThanOrEqual(19);
  const before = await eventCount();
  for (const def of routesWithIds) {
    for (const id of ['%ff', '%', '%E0%A4%A', '%ED%A0%BD']) {
      const r = await send(methodOf(def), withId(def, id), { token: tokenFor(def), ...(def.body ? { body: '{}' } : {}) });
      expect([methodOf(def), def.path, id, ...refusal(r)]).toEqual([methodOf(def), def.path, id, 400, 'invalid_path']);
    }
  }
  expect(await eventCount()).toBe(before);
});

test('defect 3: a NUL in a path id is refused 400 invalid_path, in any query value 400 invalid_query, on every route', async () => {
  const before = await eventCount();
  for (const def of routesWithIds) {
    const r = await send(methodOf(def), withId(def, 'edge%00-1'), { token: tokenFor(def), ...(def.body ? { body: '{}' } : {}) });
    expect([def.path, ...refusal(r)]).toEqual([def.path, 400, 'invalid_path']);
    expect(r.json.details).toEqual({ parameter: 'id' });
  }
  const queried = allRoutes.filter((d) => d.query !== undefined);
  expect(queried.length).toBeGreaterThan(5);
  for (const def of queried) {
    const fields = Object.keys((def.query as unknown as { shape: object }).shape);
    for (const field of fields) {
      const r = await send(methodOf(def), `${withId(def, 'edge-1')}?${field}=a%00b`, { token: tokenFor(def) });
      expect([def.path, field, ...refusal(r)]).toEqual([def.path, field, 400, 'invalid_query']);
      expect(r.json.details).toEqual({ parameter: field });
    }
  }
  // As the issue found them.
  for (const path of ['/api/v1/nodes/%00', '/api/v1/events?actor=%00', '/api/v1/nodes?cursor=%00', '/api/v1/intents?cursor=%00']) {
    expect([path, ...refusal(await send('GET', path))]).toEqual([path, 400, path.includes('?') ? 'invalid_query' : 'invalid_path']);
  }
  expect(await eventCount()).toBe(before);
});

test('defect 3: a list cursor whose time is not one the Hub writes (beyond PostgreSQL\'s range) is refused 400 on every newest-first list', async () => {
  for (const list of ['/api/v1/intents', '/api/v1/rollouts', '/api/v1/config-versions', '/api/v1/config-approvals']) {
    for (const cursor of ['-271821-04-20T00:00:00.000Z|x', '+275760-09-13T00:00:00.000Z|x', '2026-11-30|x', '1e12|x']) {
      const r = await send('GET', `${list}?cursor=${encodeURIComponent(cursor)}`);
      expect([list, cursor, ...refusal(r)]).toEqual([list, cursor, 400, 'invalid_request']);
    }
    const first = await send('GET', `${list}?cursor=${encodeURIComponent('2026-11-30T12:00:00.000Z|x')}`);
    expect([list, first.status]).toEqual([list, 200]);
  }
});

test('defect 3: a NUL or a lone surrogate in any JSON string or key is refused 400, naming where; nothing is written', async () => {
  const report = (error: string) => JSON.stringify({ ...agent.nextReport(), streams: [{ stream_id: 's', generation: 1, state: 'running', error }] });
  const cases: [string, string, string, string | Buffer, string, string][] = [
    ['PUT', '/api/v1/streams/hostile', TOKENS.operator, '{"desired_state":"running","spec":{"command":"a\\u0000b"},"placement":{"nodes":["edge-1"]}}', 'invalid_request', 'spec.command'],
    ['PUT', '/api/v1/streams/hostile', TOKENS.operator, '{"desired_state":"running","spec":{"deep":[{"x":"\\ud800"}]},"placement":{"nodes":["edge-1"]}}', 'invalid_request', 'spec.deep.0.x'],
    ['POST', '/api/v1/agent/register', TOKENS.agent1, '{"node_id":"edge-1","boot_id":"b\\u0000"}', 'invalid_request', 'boot_id'],
    ['POST', '/api/v1/config-versions', TOKENS.operator, '{"content":"x\\u0000y","format":"text"}', 'invalid_request', 'content'],
    ['POST', '/api/v1/config-versions', TOKENS.operator, '{"content":"\\udc00","format":"text"}', 'invalid_request', 'content'],
    ['PUT', '/api/v1/nodes/edge-1/labels', TOKENS.operator, '{"labels":{"env":"\\ud83d"}}', 'invalid_labels', 'labels.env'],
    ['PUT', '/api/v1/nodes/edge-1/labels', TOKENS.operator, '{"labels":{"\\ud83d":"x"}}', 'invalid_labels', 'labels'],
    ['POST', '/api/v1/agent/reports', TOKENS.agent1, report('\u0000'), 'invalid_request', 'streams.0.error'],
    ['POST', '/api/v1/agent/reports', TOKENS.agent1, report('\udfff'), 'invalid_request', 'streams.0.error'],
    // Another charset decodes to the same text: refused the same way.
    ['PUT', '/api/v1/nodes/edge-1/labels', TOKENS.operator, Buffer.from('{"labels":{"env":"\ud83d"}}', 'utf16le'), 'invalid_labels', 'labels.env'],
  ];
  const before = await eventCount();
  for (const [method, path, token, body, code, where] of cases) {
    const headers: Record<string, string> = typeof body === 'string' ? {} : { 'content-type': 'application/json; charset=utf-16le' };
    const r = await send(method, path, { token, body, headers });
    expect([path, where, ...refusal(r)]).toEqual([path, where, 400, code]);
    expect(r.json.details.issues).toEqual([{ path: where, message: expect.stringMatching(/NUL|surrogate/) }]);
  }
  expect(await eventCount()).toBe(before);
  expect((await hub.call('GET', '/api/v1/nodes/edge-1')).body.labels).toEqual({ env: 'prod' });
});

test("defect 3: an agent's result whose message PostgreSQL cannot store is refused 400, and its attempt can still be answered", async () => {
  expect((await hub.call('PUT', '/api/v1/streams/answered', { token: TOKENS.operator, body: { desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: ['edge-1'] } } })).status).toBe(200);
  const [attempt] = await takeAttempts(agent, 'answered');
  const path = `/api/v1/agent/attempts/${attempt.attempt_id}/result`;
  const failed = (message: string) => JSON.stringify({ outcome: 'failed', generation: attempt.generation, failure_class: 'temporary', code: 'exit', message });
  for (const message of ['stderr: \u0000\u0001', 'half an emoji \ud83d']) {
    const r = await send('POST', path, { token: TOKENS.agent1, body: failed(message) });
    expect(refusal(r)).toEqual([400, 'invalid_request']);
    expect(r.json.details.issues).toEqual([{ path: 'message', message: expect.any(String) }]);
  }
  expect((await hub.call('GET', `/api/v1/attempts/${attempt.attempt_id}`)).body.state).toBe('dispatched');
  const answered = await send('POST', path, { token: TOKENS.agent1, body: failed('stderr: \ufffd') });
  expect([answered.status, answered.json.state]).toEqual([200, 'failed']);
});

test('defect 3: a body declared gzip, deflate or br that is not compressed is refused 400 invalid_content_encoding on every body route', async () => {
  const before = await eventCount();
  for (const def of routesWithBodies) {
    for (const coding of ['gzip', 'deflate', 'br']) {
      const r = await send(methodOf(def), withId(def, 'edge-1'), { token: tokenFor(def), body: '{"node_id":"edge-1"}', headers: { 'content-encoding': coding } });
      expect([def.path, coding, ...refusal(r)]).toEqual([def.path, coding, 400, 'invalid_content_encoding']);
    }
  }
  expect(await eventCount()).toBe(before);
});

test('defect 3: a body nested deeper than 64 levels is refused 400 before any check recurses: "__proto__" inside, a stream spec, an Idempotency-Key', async () => {
  const nested = (depth: number, inner: string) => '['.repeat(depth) + inner + ']'.repeat(depth);
  const stream = (depth: number) => `{"desired_state":"running","spec":{"x":${nested(depth, '1')}},"placement":{"nodes":["edge-1"]}}`;
  const cases: [string, string, string, Record<string, string>][] = [
    ['PUT', '/api/v1/nodes/edge-1/labels', `{"labels":${nested(10_000, '{"__proto__":{}}')}}`, {}],
    ['PUT', '/api/v1/streams/deep', stream(5_000), {}],
    ['PUT', '/api/v1/streams/deep', stream(100_000), {}],
    ['PUT', '/api/v1/streams/deep', stream(100_000), { 'idempotency-key': 'deep-1' }],
    ['POST', '/api/v1/agent/reports', nested(10_000, '{}'), {}],
    ['PUT', '/api/v1/streams/deep', stream(63), {}],
  ];
  const before = await eventCount();
  for (const [method, path, body, headers] of cases) {
    const r = await send(method, path, { token: path.includes('agent') ? TOKENS.agent1 : TOKENS.operator, body, headers });
    expect([path, ...refusal(r)]).toEqual([path, 400, path.includes('labels') ? 'invalid_labels' : 'invalid_request']);
    expect(r.json.message).toMatch(/nested deeper than 64 levels/);
  }
  expect(await eventCount()).toBe(before);
  // 64 levels, counting the body itself, are taken.
  expect((await send('PUT', '/api/v1/streams/deep', { token: TOKENS.operator, body: stream(62) })).status).toBe(200);
});

test('defect 3: a body the client aborts is not an error of the Hub: nothing is logged at error level', async () => {
  const body = JSON.stringify({ labels: { env: 'x'.repeat(50) } });
  const report = JSON.stringify(agent.nextReport());
  for (const [path, token, text, headers] of [
    ['/api/v1/nodes/edge-1/labels', TOKENS.operator, body, {}],
    ['/api/v1/agent/reports', TOKENS.agent1, report, {}],
    ['/api/v1/nodes/edge-1/labels', TOKENS.operator, body, { 'content-type': 'application/json; charset=utf-16le' }],
  ] as const) {
    const method = path.includes('labels') ? 'PUT' : 'POST';
    await rawRequest(hub.url, {
      method,
      path,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      body: text,
      abortAfterBytes: 10,
    });
  }
  const aborted = () => logged.filter((l) => l.message === 'request body aborted by the client');
  await eventually(async () => (aborted().length === 3 ? true : undefined));
  expect(aborted().map((l) => l.level)).toEqual(['info', 'info', 'info']);
  expect(logged.filter((l) => l.level === 'error')).toEqual([]);
});

test('defect 4: a "__proto__" key spelled with escapes is refused like the plain one, in labels and in selectors, sent whole or chunked', async () => {
  await hub.call('POST', '/api/v1/config-versions', { token: TOKENS.operator, body: { content: 'proto', format: 'text' } });
  const version = (await hub.call('GET', '/api/v1/config-versions')).body.items[0].config_version;
  const before = await eventCount();
  for (const key of ['__proto__', '\\u005f_proto__', '__pr\\u006fto__', '\\u005F\\u005Fproto\\u005F\\u005F']) {
    for (const chunked of [false, true]) {
      const labels = await send('PUT', '/api/v1/nodes/edge-1/labels', { token: TOKENS.operator, body: `{"labels":{"env":"dev","${key}":"x"}}`, chunked });
      expect([key, chunked, ...refusal(labels)]).toEqual([key, chunked, 400, 'invalid_labels']);
      expect(labels.json.details.issues).toEqual([{ path: 'labels', message: expect.stringContaining('"__proto__"') }]);
      const selector = `{"config_version":"${version}","targets":{"selector":{"env":"prod","${key}":{}}},"batch_size":1}`;
      const rollout = await send('POST', '/api/v1/rollouts', { token: TOKENS.operator, body: selector, chunked });
      expect([key, chunked, ...refusal(rollout)]).toEqual([key, chunked, 400, 'invalid_request']);
    }
  }
  expect(await eventCount()).toBe(before);
  expect((await hub.call('GET', '/api/v1/nodes/edge-1')).body.labels).toEqual({ env: 'prod' });
});

/** Writes bytes to the Hub's port as they are and reads what comes back until the Hub closes the connection. */
const rawBytes = (base: string, bytes: string) =>
  new Promise<string>((resolve, reject) => {
    const url = new URL(base);
    const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes));
    let answer = '';
    socket.on('data', (c: Buffer) => (answer += c.toString()));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });

test('a request Node\'s HTTP parser refuses (a malformed request line, headers over the limit) is answered with the error envelope', async () => {
  for (const [bytes, status, code] of [
    ['GET /api/v1/nodes HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n', 400, 'malformed_request'],
    ['GARBAGE\r\n\r\n', 400, 'malformed_request'],
    [`GET /api/v1/nodes HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'headers_too_large'],
  ] as const) {
    const answer = await rawBytes(hub.url, bytes);
    const [head, body] = answer.split('\r\n\r\n');
    expect(head!.split('\r\n')[0]).toBe(`HTTP/1.1 ${status} ${status === 400 ? 'Bad Request' : 'Request Header Fields Too Large'}`);
    expect(JSON.parse(body!)).toEqual({ code, message: expect.any(String), correlation_id: expect.any(String), details: {} });
  }
});
