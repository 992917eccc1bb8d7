import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { eventually, TestAgent } from '../../../../test/support/fleet.ts';
import { CONFIG_CONTENT_MAX_BYTES } from '@fleetplane/core';
import { startTestHub, testConfig, TOKENS, type TestHub } from '../../../../test/support/hub.ts';
import { rawRequest } from '../../../../test/support/raw-http.ts';
import { allRoutes } from './routes/all.ts';
import { MAX_ISSUES, MAX_KEYS_NAMED } from './bounded-issues.ts';
import { opsRoutes } from './routes/ops.ts';
import { BODY_LIMIT } from './json-body.ts';
import { MAX_IN_FLIGHT } from './server-limits.ts';

// Clients that are slow, broken or hostile at the connection level, against the Hub's server limits
// (server-limits.ts), set small here: each is cut or refused within its limit, and agents' long polls are not.
// And bodies that would be read otherwise than they were meant, or answered larger than they were sent.

const HEADERS_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 2_000;
const MAX_CONNECTIONS = 40;
// Longer than the long polls' waits here, as the default is longer than the longest (60 s).
const IDLE_TIMEOUT_MS = 5_000;

let t: TestDatabase;
let hub: TestHub;
let port: number;
beforeAll(async () => {
  t = await createTestDatabase();
  const config = testConfig(2, {}, { headers_timeout_ms: HEADERS_TIMEOUT_MS, request_timeout_ms: REQUEST_TIMEOUT_MS, max_connections: MAX_CONNECTIONS });
  hub = await startTestHub(t.url, { config, idleTimeoutMs: IDLE_TIMEOUT_MS });
  port = Number(new URL(hub.url).port);
  await new TestAgent(hub, 'edge-1').register();
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
});

interface Held {
  socket: Socket;
  /** Everything the Hub sent, once it closed the connection, and how long after opening. */
  closed: Promise<{ text: string; afterMs: number }>;
}

/** A connection to the Hub that writes only what the test writes, and reads everything. */
function hold(): Promise<Held> {
  return new Promise((resolve, reject) => {
    const opened = Date.now();
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
    socket.on('error', () => {});
    const closed = new Promise<{ text: string; afterMs: number }>((done) => socket.on('close', () => done({ text, afterMs: Date.now() - opened })));
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

/** Writes `bytes` one every 200 ms until the connection closes. */
function trickle(socket: Socket, bytes: string): void {
  let i = 0;
  const next = setInterval(() => (socket.destroyed || i >= bytes.length ? clearInterval(next) : socket.write(bytes[i++]!)), 200);
}

const statusLine = (text: string) => text.split('\r\n')[0];
const envelope = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
const poll = (wait: number) =>
  rawRequest(hub.url, { method: 'GET', path: `/api/v1/agent/attempts?wait=${wait}`, headers: { authorization: `Bearer ${TOKENS.agent1}` } });
/** A series of /metrics, read on a connection of its own that closes after it (a pooled one would hold a slot). */
const metric = async (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec((await rawRequest(hub.url, { method: 'GET', path: '/metrics' })).text)?.[1]);

test('slowloris: connections sending their headers a byte at a time, or nothing, are answered 408 request_timeout at headers_timeout_ms; a long poll waiting longer is answered', async () => {
  const timedOut = await metric('fleetplane_http_request_timeouts_total');
  const polling = poll(3);
  const slow = await Promise.all(Array.from({ length: 10 }, () => hold()));
  for (const { socket } of slow.slice(1)) trickle(socket, `GET /api/v1/nodes HTTP/1.1\r\nHost: hub\r\nAuthorization: Bearer ${TOKENS.admin}\r\n\r\n`);
  for (const { closed } of slow) {
    const { text, afterMs } = await closed;
    expect(statusLine(text)).toBe('HTTP/1.1 408 Request Timeout');
    expect(envelope(text)).toEqual({ code: 'request_timeout', message: expect.any(String), correlation_id: expect.any(String), details: {} });
    // Node looks for requests past their time every second.
    expect(afterMs).toBeLessThan(HEADERS_TIMEOUT_MS + 1_500);
  }
  const answered = await polling;
  expect([answered.status, answered.json]).toEqual([200, { attempts: [], removed_streams: [] }]);
  expect(await metric('fleetplane_http_request_timeouts_total')).toBe(timedOut + slow.length);
});

test('a body trickling, or announced and never sent, is answered 408 request_timeout at request_timeout_ms', async () => {
  const head = (length: number) =>
    `PUT /api/v1/nodes/edge-1/labels HTTP/1.1\r\nHost: hub\r\nAuthorization: Bearer ${TOKENS.operator}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
  const trickling = await hold();
  trickling.socket.write(head(1000) + '{');
  trickle(trickling.socket, ' '.repeat(1000));
  const unsent = await hold();
  unsent.socket.write(head(1000));
  for (const { closed } of [trickling, unsent]) {
    const { text, afterMs } = await closed;
    expect([statusLine(text), envelope(text).code]).toEqual(['HTTP/1.1 408 Request Timeout', 'request_timeout']);
    expect(afterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 1_500);
  }
});

test('a body announced larger than the limit is refused 413 body_too_large at once, whatever follows, and its connection closed', async () => {
  for (const length of [2 * 1024 * 1024, 1e12]) {
    const held = await hold();
    held.socket.write(
      `PUT /api/v1/nodes/edge-1/labels HTTP/1.1\r\nHost: hub\r\nAuthorization: Bearer ${TOKENS.operator}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{`,
    );
    const { text, afterMs } = await held.closed;
    expect([length, statusLine(text), envelope(text).code]).toEqual([length, 'HTTP/1.1 413 Payload Too Large', 'body_too_large']);
    expect(text).toMatch(/\r\nConnection: close\r\n/i);
    // Not at the request timeout, which would answer 408.
    expect(afterMs).toBeLessThan(REQUEST_TIMEOUT_MS);
  }
});

test('a chunked body passing the limit is refused 413 body_too_large as it passes it, its client still sending, and its connection closed: plain, compressed or in another charset', async () => {
  const bodies: [string, Buffer][] = [
    ['application/json', Buffer.from(`{"labels":{"a":"${'x'.repeat(BODY_LIMIT)}"}}`)],
    ['application/json\r\nContent-Encoding: gzip', gzipSync(randomBytes(BODY_LIMIT + 4096))],
    ['application/json; charset=utf-16le', Buffer.from(`{"labels":{"a":"${'x'.repeat(BODY_LIMIT / 2)}"}}`, 'utf16le')],
  ];
  for (const [type, body] of bodies) {
    const held = await hold();
    // One chunk announcing the whole body; the limit's worth of it, then a little more, and never its end. What
    // was sent is all read by the Hub before it answers, so its close sends no reset that could drop the answer.
    held.socket.write(
      `PUT /api/v1/nodes/edge-1/labels HTTP/1.1\r\nHost: hub\r\nAuthorization: Bearer ${TOKENS.operator}\r\nContent-Type: ${type}\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n`,
    );
    held.socket.write(body.subarray(0, BODY_LIMIT));
    await new Promise((r) => setTimeout(r, 200));
    held.socket.write(body.subarray(BODY_LIMIT, BODY_LIMIT + 100));
    const { text, afterMs } = await held.closed;
    expect([type, statusLine(text), envelope(text).code]).toEqual([type, 'HTTP/1.1 413 Payload Too Large', 'body_too_large']);
    expect(text).toMatch(/\r\nConnection: close\r\n/i);
    // Not at the request timeout, which would answer 408.
    expect(afterMs).toBeLessThan(REQUEST_TIMEOUT_MS);
  }
  expect((await hub.call('GET', '/api/v1/nodes/edge-1', { token: TOKENS.viewer })).body.labels).toEqual({});
});

test('a body that is not valid UTF-8 is refused 400 invalid_json, not stored with its bytes replaced, sent with a length or chunked', async () => {
  const spec = (command: Buffer) =>
    Buffer.concat([Buffer.from('{"desired_state":"running","spec":{"command":"run'), command, Buffer.from('"},"placement":{"nodes":["edge-1"]}}')]);
  for (const bad of [Buffer.from([0xff]), Buffer.from([0xc3, 0x28]), Buffer.from([0xed, 0xa0, 0x80])]) {
    for (const chunked of [false, true]) {
      const r = await rawRequest(hub.url, {
        method: 'PUT',
        path: '/api/v1/streams/utf8',
        headers: { authorization: `Bearer ${TOKENS.operator}`, 'content-type': 'application/json' },
        body: spec(bad),
        chunked,
      });
      expect([bad, chunked, r.status, r.json.code]).toEqual([bad, chunked, 400, 'invalid_json']);
    }
  }
  expect((await hub.call('GET', '/api/v1/streams/utf8', { token: TOKENS.viewer })).status).toBe(404);
});

test('max_connections: the connection past the limit is closed unanswered and counted; those held are served, a long poll answered; a freed slot is taken again', async () => {
  expect(await metric('fleetplane_http_connections_limit')).toBe(MAX_CONNECTIONS);
  const refused = await metric('fleetplane_http_connections_refused_total');
  const polling = poll(3);
  // Held open as agents' keep-alive connections are, between two reports, until one is refused.
  const held: Held[] = [];
  let over: Held | null = null;
  while (over === null && held.length <= MAX_CONNECTIONS) {
    const next = await hold();
    next.socket.write('GET /healthz HTTP/1.1\r\nHost: hub\r\n\r\n');
    const served = new Promise((answered) => next.socket.once('data', answered));
    if ((await Promise.race([served, next.closed.then(() => 'closed')])) === 'closed') over = next;
    else held.push(next);
  }
  expect(over).not.toBeNull();
  expect((await over!.closed).text).toBe('');
  // The poll holds one slot; connections other tests left in a client's pool may hold a few.
  expect(held.length).toBeGreaterThan(MAX_CONNECTIONS - 6);
  expect(held.length).toBeLessThan(MAX_CONNECTIONS);
  const freed = held.pop()!;
  freed.socket.destroy();
  await freed.closed;
  expect(await metric('fleetplane_http_connections_refused_total')).toBe(refused + 1);
  expect((await polling).status).toBe(200);
  for (const { socket } of held) socket.destroy();
});

test(`a client that pipelines requests and never reads its answers is closed past ${MAX_IN_FLIGHT} in flight, not served by the thousand`, async () => {
  const served = () => metric('fleetplane_http_requests_total\\{method="GET",route="/healthz",status="200"\\}').then((n) => (Number.isNaN(n) ? 0 : n));
  const before = await served();
  const held = await hold();
  held.socket.pause();
  const pipelined = 2_000;
  held.socket.write(`GET /healthz HTTP/1.1\r\nHost: hub\r\n\r\n`.repeat(pipelined));
  await new Promise((r) => setTimeout(r, 1_000));
  held.socket.resume();
  const { text } = await held.closed;
  expect(text.split('HTTP/1.1 200 OK').length - 1).toBeLessThanOrEqual(MAX_IN_FLIGHT);
  expect((await served()) - before).toBeLessThanOrEqual(MAX_IN_FLIGHT);
});

test('the API description, which anyone may ask for, is built once, not at every request', async () => {
  const ops = opsRoutes(() => allRoutes, 'test').find((r) => r.path === '/api/v1/openapi.json')!;
  const first = await ops.handle({} as never);
  expect((await ops.handle({} as never)).body).toBe(first.body);
});

test('a body naming a key twice in one object is refused 400 invalid_json naming it, however spelled or sent; the same key in two objects is taken', async () => {
  const put = (path: string, body: string | Buffer, options: { chunked?: boolean; charset?: string } = {}) =>
    rawRequest(hub.url, {
      method: 'PUT',
      path,
      headers: { authorization: `Bearer ${TOKENS.operator}`, 'content-type': `application/json${options.charset ? `; charset=${options.charset}` : ''}` },
      body,
      ...(options.chunked ? { chunked: true } : {}),
    });
  const cases: [string, string][] = [
    ['{"labels":{"env":"prod","env":"dev"}}', 'env'],
    ['{"labels":{"env":"prod","\\u0065nv":"dev"}}', 'env'],
    ['{"labels":{"env":"prod"},"labels":{}}', 'labels'],
  ];
  for (const [body, key] of cases) {
    for (const sent of [{}, { chunked: true }, { charset: 'utf-16le' }]) {
      const r = await put('/api/v1/nodes/edge-1/labels', sent.charset ? Buffer.from(body, 'utf16le') : body, sent);
      expect([body, sent, r.status, r.json.code, r.json.message]).toEqual([body, sent, 400, 'invalid_json', `the request body names the key "${key}" twice in one object`]);
    }
  }
  const twoObjects = '{"desired_state":"running","spec":{"a":{"k":1},"b":{"k":[{"k":2},{"k":3}]}},"placement":{"nodes":["edge-1"]}}';
  expect((await put('/api/v1/streams/keys', twoObjects)).status).toBe(200);
});

test(`a body of a great many unknown keys or invalid items is answered with at most ${MAX_ISSUES} issues, ${MAX_KEYS_NAMED} keys named, the rest counted`, async () => {
  const keys = Array.from({ length: 50_000 }, (_, i) => `"k${i}":1`).join(',');
  const cases = [
    [`{"desired_state":"running","spec":{},"placement":{"nodes":["edge-1"]},${keys}}`, /Unrecognized keys: "k0", .*"k9" and 49990 more/],
    [`{"desired_state":"running","spec":{},"placement":{"nodes":[${Array.from({ length: 256 }, () => '1').join(',')}]}}`, /… and 236 more issues$/],
  ] as const;
  for (const [body, says] of cases) {
    const r = await rawRequest(hub.url, { method: 'PUT', path: '/api/v1/streams/many', headers: { authorization: `Bearer ${TOKENS.operator}`, 'content-type': 'application/json' }, body });
    expect([r.status, r.json.code]).toEqual([400, 'invalid_request']);
    expect(r.json.message).toMatch(says);
    expect(r.json.details.issues.length).toBeLessThanOrEqual(MAX_ISSUES);
    expect(r.text.length).toBeLessThan(10_000);
  }
});

test('an event stream whose client stops reading is closed once nothing moves for the idle timeout, and its follower of the log let go', async () => {
  const stream = await hold();
  stream.socket.write(`GET /api/v1/events/stream HTTP/1.1\r\nHost: hub\r\nAuthorization: Bearer ${TOKENS.viewer}\r\nAccept: text/event-stream\r\n\r\n`);
  await eventually(async () => (hub.context.streams.followers.size === 1 ? true : undefined));
  stream.socket.pause();
  // Events larger than the buffers between the Hub and the client: the Hub's writes wait on a reader that never reads.
  for (let i = 0; i < 32; i++) {
    const created = await hub.call('POST', '/api/v1/config-versions', { token: TOKENS.operator, body: { content: `${i % 10}`.repeat(CONFIG_CONTENT_MAX_BYTES - 2) + i, format: 'text' } });
    expect(created.status).toBe(201);
  }
  await eventually(async () => (hub.context.streams.followers.size === 0 ? true : undefined), IDLE_TIMEOUT_MS + 10_000);
  stream.socket.destroy();
}, 60_000);

test("the kernel holds as many connections for the Hub as it may hold at once (its listen backlog is max_connections, Linux's somaxconn at most), not Node's 511", () => {
  // ss prints a listening socket's backlog in its Send-Q column.
  const listening = execFileSync('ss', ['-Hltn', `sport = :${port}`], { encoding: 'utf8' }).trim().split(/\s+/);
  const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
  expect(Number(listening[2])).toBe(Math.min(MAX_CONNECTIONS, somaxconn));
});
