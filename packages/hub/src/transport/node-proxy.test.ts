import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { eventually, sweptOut, TestAgent } from '../../../../test/support/fleet.ts';
import { freePort } from '../../../../test/support/ports.ts';
import { startTestHub, testConfig, type TestHub, TOKENS } from '../../../../test/support/hub.ts';
import { routeTransports } from './router.ts';
import type { PullTransport } from './pull.ts';
import type { NodeProxyTransport } from './node-proxy.ts';
import { nodeCredential } from './node-credential.ts';

// The push channel (node_proxy) inside one Hub, against fake control endpoints; leases on an injected clock.
const TOKEN = 'hub-to-node-token-for-tests';
let t: TestDatabase;
let hub: TestHub;
let dir: string;
let now = new Date('2026-11-30T12:00:00.000Z');
const clock = { now: () => now };

interface Received {
  path: string;
  authorization: string | undefined;
  correlationId: string | undefined;
  body: any;
  /** The attempt's row when the push arrived. */
  row: { state: string; lease_expires_at: Date | null } | undefined;
}

/** A control endpoint that records what it is sent, and what the Hub's tables said at that moment. */
async function fakeControl(status = 202): Promise<{ address: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', async () => {
      const body = JSON.parse(text);
      const row = await t.db.selectFrom('attempts').select(['state', 'lease_expires_at']).where('attempt_id', '=', body.attempt_id).executeTakeFirst();
      received.push({
        path: req.url ?? '',
        authorization: req.headers.authorization,
        correlationId: req.headers['x-correlation-id'] as string | undefined,
        body,
        row,
      });
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const pushConfig = () => {
  const config = testConfig(7, { lease_ms: 30_000 });
  config.file.control_api.node_proxy_token_file = join(dir, 'node-proxy.token');
  return config;
};

beforeAll(async () => {
  t = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-push-'));
  const tokenFile = join(dir, 'node-proxy.token');
  await writeFile(tokenFile, TOKEN + '\n', { mode: 0o600 });
  hub = await startTestHub(t.url, { config: pushConfig(), clock });
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
  await rm(dir, { recursive: true, force: true });
});

const put = (id: string, nodes: string[]) =>
  hub.call('PUT', `/api/v1/streams/${id}`, { token: TOKENS.operator, body: { desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes } } });
const attemptsOf = async (stream: string) =>
  (await sql<{ attempt_id: string; state: string }>`SELECT attempt_id, state FROM attempts WHERE stream_id = ${stream} ORDER BY created_at`.execute(t.db)).rows;

test('a node with a control address is pushed to: each attempt is recorded dispatched, with its lease, before it is sent', async () => {
  const control = await fakeControl();
  const agent = new TestAgent(hub, 'edge-1');
  await agent.register({ control_address: control.address });
  expect(await hub.context.transport.scopeFor('edge-1')).toBe('node_proxy');
  await put('pushed', ['edge-1']);
  const [push] = await eventually(async () => (control.received.length ? control.received : undefined));
  // The node's own credential, never the hub-to-node token itself: another node's would not pass here.
  expect(push).toMatchObject({ path: '/v1/attempts', authorization: `Bearer ${nodeCredential(TOKEN, 'edge-1')}`, correlationId: expect.any(String) });
  expect(push!.authorization).not.toContain(TOKEN);
  expect(nodeCredential(TOKEN, 'edge-2')).not.toBe(nodeCredential(TOKEN, 'edge-1'));
  expect(push!.body).toMatchObject({ stream_id: 'pushed', operation: 'job_start', generation: 1, flags: {}, lease_expires_at: new Date(now.getTime() + 30_000).toISOString() });
  // Dispatched, with the lease it carries, before the control endpoint saw it.
  expect(push!.row).toEqual({ state: 'dispatched', lease_expires_at: new Date(now.getTime() + 30_000) });
  // Not handed out twice: the node's long poll finds nothing.
  expect(await agent.attempts(0)).toEqual([]);
  await agent.result(push!.body.attempt_id, { outcome: 'succeeded', generation: 1 });
  expect(await attemptsOf('pushed')).toEqual([{ attempt_id: push!.body.attempt_id, state: 'succeeded' }]);
  expect(control.received).toHaveLength(1);
  await control.close();
});

test('a node without a control address takes its attempts by long poll', async () => {
  const agent = new TestAgent(hub, 'edge-2');
  await agent.register();
  expect(await hub.context.transport.scopeFor('edge-2')).toBe('pilot_tunnel');
  await put('pulled', ['edge-2']);
  const attempts = await agent.attempts(10);
  expect(attempts.map((a) => a.stream_id)).toEqual(['pulled']);
});

/**
 * A node whose control address nothing listens on, with a stream placed on it: its first push cannot connect,
 * and its intent is retrying. Answers the node's agent, the intent as that left it, and a read of the intent.
 */
async function unreachable(nodeId: string, stream: string) {
  const agent = new TestAgent(hub, nodeId);
  await agent.register({ control_address: `127.0.0.1:${await freePort()}` });
  await agent.report();
  await put(stream, [nodeId]);
  const intentOf = async () => (await hub.call('GET', `/api/v1/intents?stream_id=${stream}`)).body.items[0];
  const first = await eventually(async () => {
    const intent = await intentOf();
    return intent.state === 'retrying' ? intent : undefined;
  });
  expect(first).toMatchObject({ retry_count: 1, failure_class: 'temporary', failure_code: 'node_unreachable' });
  return { agent, first, intentOf };
}

test('C1 a push that cannot connect is a temporary failure: retried with backoff, pushed again when due', async () => {
  const nodeId = 'edge-3';
  const stream = 'unreachable';
  const { first, intentOf } = await unreachable(nodeId, stream);
  expect((await attemptsOf(stream)).map((a) => a.state)).toEqual(['failed']);
  // Due: the next pass queues and pushes a second attempt, which cannot connect either.
  now = new Date(Date.parse(first.next_retry_at));
  await hub.context.reconciler.reconcile(nodeId, 'test');
  await eventually(async () => ((await intentOf()).retry_count === 2 ? true : undefined));
  expect((await attemptsOf(stream)).map((a) => a.state)).toEqual(['failed', 'failed']);
});

test('C1 a push to a control address no URL can hold, registered before the Hub refused such, is a temporary failure, not ambiguous', async () => {
  const nodeId = 'edge-6';
  const stream = 'unparseable';
  const agent = new TestAgent(hub, nodeId);
  await agent.register({ control_address: '127.0.0.1:7100' });
  await agent.report();
  // As an older Hub took it: the pattern alone let a port over 65535 through. The row is put back after, so
  // that it matches the log again (the test database's log is verified when it is dropped).
  await sql`UPDATE nodes SET control_address = '127.0.0.1:99999' WHERE node_id = ${nodeId}`.execute(t.db);
  try {
    await put(stream, [nodeId]);
    const intent = await eventually(async () => {
      const i = (await hub.call('GET', `/api/v1/intents?stream_id=${stream}`)).body.items[0];
      return i.state === 'retrying' ? i : undefined;
    });
    expect(intent).toMatchObject({ failure_class: 'temporary', failure_code: 'node_unreachable' });
    expect((await attemptsOf(stream)).map((a) => a.state)).toEqual(['failed']);
  } finally {
    await sql`UPDATE nodes SET control_address = '127.0.0.1:7100' WHERE node_id = ${nodeId}`.execute(t.db);
  }
});

test('a push answered with an error leaves the attempt dispatched, then ambiguous at lease expiry; it is never resent', async () => {
  const nodeId = 'edge-4';
  const stream = `lost-${nodeId}`;
  const control = await fakeControl(403);
  const agent = new TestAgent(hub, nodeId);
  await agent.register({ control_address: control.address });
  await agent.report();
  const failedPushes = async () => Number(/fleetplane_attempt_pushes_total\{outcome="failed"\} (\d+)/.exec((await hub.call('GET', '/metrics')).body)?.[1] ?? 0);
  const failedBefore = await failedPushes();
  await put(stream, [nodeId]);
  const [attempt] = await eventually(async () => {
    const rows = await attemptsOf(stream);
    return rows.length && rows[0]!.state === 'dispatched' ? rows : undefined;
  });
  await eventually(async () => ((await failedPushes()) > failedBefore ? true : undefined));
  expect(control.received).toHaveLength(1);
  // Still dispatched while its lease runs, whatever happens meanwhile.
  await hub.context.reconciler.reconcile(nodeId, 'test');
  expect(await attemptsOf(stream)).toEqual([{ attempt_id: attempt!.attempt_id, state: 'dispatched' }]);
  expect(await agent.attempts(0)).toEqual([]);

  now = new Date(now.getTime() + 30_001);
  await sweptOut(hub, stream);
  expect(await attemptsOf(stream)).toEqual([{ attempt_id: attempt!.attempt_id, state: 'ambiguous' }]);
  const intent = (await hub.call('GET', `/api/v1/intents?stream_id=${stream}`)).body.items[0];
  expect(intent.state).toBe('ambiguous');
  // Reconciling again sends nothing: no new attempt, nothing more pushed, nothing to poll.
  await hub.context.reconciler.reconcile(nodeId, 'test');
  expect(await attemptsOf(stream)).toEqual([{ attempt_id: attempt!.attempt_id, state: 'ambiguous' }]);
  expect(control.received.length).toBeLessThanOrEqual(1);
  expect(await agent.attempts(0)).toEqual([]);
  await control.close();
});

test('C6 an attempt queued for a pushed node while no Hub could push it is pushed by the next Hub at start', async () => {
  // A Hub without the hub-to-node token queues the attempt; the node polls no one, so it stays queued.
  await hub.stop();
  const plain = await startTestHub(t.url, { config: testConfig(5, { lease_ms: 30_000 }), clock });
  const control = await fakeControl();
  try {
    await pushedAfterRestart(plain, control);
  } finally {
    await control.close();
  }
});

async function pushedAfterRestart(plain: TestHub, control: { address: string; received: Received[] }): Promise<void> {
  await new TestAgent(plain, 'edge-5').register({ control_address: control.address });
  await plain.call('PUT', '/api/v1/streams/queued-for-push', { token: TOKENS.operator, body: { desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: ['edge-5'] } } });
  await eventually(async () => {
    const jobs = await sql<{ n: string }>`SELECT count(*) n FROM pgboss.job WHERE name = 'reconcile' AND state IN ('created', 'retry', 'active')`.execute(t.db);
    const queued = await attemptsOf('queued-for-push');
    return Number(jobs.rows[0]!.n) === 0 && queued.length === 1 && queued[0]!.state === 'queued' ? true : undefined;
  });
  await plain.stop();
  // A Hub with the token starts: its boot pass finds the queued attempt and pushes it.
  hub = await startTestHub(t.url, { config: pushConfig(), clock });
  const [push] = await eventually(async () => (control.received.length ? control.received : undefined));
  expect(push!.body).toMatchObject({ stream_id: 'queued-for-push', operation: 'job_start' });
  expect((await attemptsOf('queued-for-push')).map((a) => a.state)).toEqual(['dispatched']);
}

test('a Hub without a hub-to-node token pulls for every node, control address or not', async () => {
  const woken: string[] = [];
  const pull: PullTransport = { scope: 'pilot_tunnel', offer: async (n: readonly string[]) => void woken.push(...n), watch: () => ({ wait: async () => false, close: () => {} }), watched: () => 0, stop: async () => {} };
  const router = routeTransports(hub.context.database.db, pull, null, () => new Date(0));
  expect(await router.scopeFor('edge-1')).toBe('pilot_tunnel');
  await router.offer(['edge-1']);
  expect(woken).toEqual(['edge-1']);
});

test('C1 a batch offered at once is split by channel: nodes with a control address are pushed to, the others\' polls woken', async () => {
  // By now edge-1 has registered a control address (above), edge-2 none.
  const woken: string[] = [];
  const pushed: Array<[string, string]> = [];
  const pull: PullTransport = { scope: 'pilot_tunnel', offer: async (n: readonly string[]) => void woken.push(...n), watch: () => ({ wait: async () => false, close: () => {} }), watched: () => 0, stop: async () => {} };
  const push: NodeProxyTransport = { scope: 'node_proxy', deliver: async (n: string, address: string) => void pushed.push([n, address]), stop: async () => {} };
  const router = routeTransports(hub.context.database.db, pull, push, () => new Date(0));
  await router.offer(['edge-1', 'edge-2', 'never-registered']);
  expect(pushed).toEqual([['edge-1', expect.stringMatching(/^127\.0\.0\.1:\d+$/)]]);
  expect(woken).toEqual(['edge-2', 'never-registered']);
});

test('the hub-to-node token is read from its file; a missing file stops the Hub at start', async () => {
  const { readNodeProxyToken } = await import('../config.ts');
  const config = testConfig(1);
  expect(readNodeProxyToken(config.file, () => {})).toBeNull();
  config.file.control_api.node_proxy_token_file = join(dir, 'node-proxy.token');
  expect(readNodeProxyToken(config.file, () => {})).toBe(TOKEN);
  config.file.control_api.node_proxy_token_file = join(dir, 'missing.token');
  expect(() => readNodeProxyToken(config.file, () => {})).toThrow(/cannot be read/);
});

test('C1 a node gone offline is not pushed to: its attempt waits queued for its poll, and its retries add nothing meanwhile', async () => {
  const nodeId = 'edge-5';
  const stream = 'offline-push';
  // Online, it is pushed to: the push cannot connect, a temporary failure retried with backoff.
  const { agent, first, intentOf } = await unreachable(nodeId, stream);

  // Then offline (unseen for offline_after_ms): the retry queues an attempt that no push tries.
  const { offline_after_ms, retry_max_ms } = hub.context.config.file.reconciliation;
  now = new Date(Math.max(Date.parse(first.next_retry_at), now.getTime() + offline_after_ms + 1000));
  expect(await hub.context.transport.scopeFor(nodeId)).toBe('pilot_tunnel');
  for (let i = 0; i < 3; i++) {
    await hub.context.reconciler.reconcile(nodeId, 'test');
    now = new Date(now.getTime() + retry_max_ms);
  }
  expect((await attemptsOf(stream)).map((a) => a.state)).toEqual(['failed', 'queued']);
  expect(await intentOf()).toMatchObject({ retry_count: 1 });

  // Back, its agent's poll takes the attempt that waited.
  const [attempt] = await agent.attempts(0);
  expect(attempt).toMatchObject({ stream_id: stream, attempt_id: (await attemptsOf(stream))[1]!.attempt_id });
});

test('C4 C5 an attempt whose lease ran more than half out before its push could leave (the Hub held: stopped, stalled) is not pushed', async () => {
  const nodeId = 'edge-7';
  const stream = 'held-push';
  const control = await fakeControl();
  const agent = new TestAgent(hub, nodeId);
  await agent.register({ control_address: control.address });
  await agent.report();
  // Offline, the node's attempt waits queued: its intent is known before anything leases it.
  const { offline_after_ms, lease_ms } = hub.context.config.file.reconciliation;
  now = new Date(now.getTime() + offline_after_ms + 1000);
  await put(stream, [nodeId]);
  const [queued] = await eventually(async () => {
    const rows = await sql<{ attempt_id: string; intent_id: string; state: string }>`SELECT attempt_id, intent_id, state FROM attempts WHERE stream_id = ${stream}`.execute(t.db);
    return rows.rows[0]?.state === 'queued' ? rows.rows : undefined;
  });
  await agent.report();

  // Back online, a pass pushes it: the lease's append waits on the intent's stream, held here, while the
  // Hub's clock runs past half the lease.
  const holder = await t.db.startTransaction().execute();
  await sql`SELECT 1 FROM stream_heads WHERE stream_id = ${`intent:${queued!.intent_id}`} FOR UPDATE`.execute(holder);
  const pass = hub.context.reconciler.reconcile(nodeId, 'test');
  await eventually(async () => {
    const { rows } = await sql`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%append%'`.execute(t.db);
    return rows.length > 0 ? true : undefined;
  });
  now = new Date(now.getTime() + lease_ms / 2 + 1);
  await holder.commit().execute();
  await pass;
  await eventually(async () => ((await attemptsOf(stream))[0]!.state === 'dispatched' ? true : undefined));
  await new Promise((r) => setTimeout(r, 500));
  expect(control.received).toEqual([]);
  await control.close();
});
