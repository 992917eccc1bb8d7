import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fleetplane } from './support/cli.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { eventually, TestAgent } from './support/fleet.ts';
import { agentToken, caller, testConfig, TOKENS } from './support/hub.ts';
import { startAgentProcess, startConfiguredHub, type AgentProcess, type HubProcess } from './support/process.ts';

// The push channel (node_proxy) end to end: the Hub and an agent as separate OS processes on loopback. The
// agent serves its control endpoint and polls only once a minute, so attempts reach it by push or not at all.
const HUB_TO_NODE_TOKEN = 'e2e-hub-to-node-token-0123456789';
const LEASE_MS = 3000;
let t: TestDatabase;
let dir: string;
let hub: HubProcess;
let agent: AgentProcess;

beforeAll(async () => {
  t = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-push-e2e-'));
  await writeFile(join(dir, 'node-proxy.token'), HUB_TO_NODE_TOKEN + '\n', { mode: 0o600 });
  const file = testConfig(2, { lease_ms: LEASE_MS }).file;
  // A relative path: read from the config file's directory.
  file.control_api.node_proxy_token_file = 'node-proxy.token';
  hub = await startConfiguredHub({ databaseUrl: t.url, dir, config: file });
  // The agent holds the SHA-256 of its node's own credential, as `fleetplane node-credential` prints it.
  const credential = await fleetplane(['node-credential', 'edge-1', '--token-file', join(dir, 'node-proxy.token')], {});
  expect(credential.code).toBe(0);
  agent = await startAgentProcess({
    hub: hub.url,
    'node-id': 'edge-1',
    token: agentToken('edge-1'),
    'state-dir': join(dir, 'edge-1'),
    'report-every-ms': '500',
    'poll-seconds': '60',
    'control-port': '0',
    'hub-credential-sha256': credential.out.trim(),
  });
}, 60_000);

afterAll(async () => {
  await agent?.stop('SIGKILL');
  await hub?.stop('SIGKILL');
  try {
    const { pid } = JSON.parse(await readFile(join(dir, 'edge-1', 'streams', 'pushed', 'state.json'), 'utf8')) as { pid?: number };
    if (pid) process.kill(pid, 'SIGKILL');
  } catch {
    // never started, or already gone
  }
  await rm(dir, { recursive: true, force: true });
  await t.drop();
});

const api = () => caller(hub.url);
const worker = { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] };
const put = (id: string, nodeId: string, desired_state = 'running') =>
  api().call('PUT', `/api/v1/streams/${id}`, { token: TOKENS.operator, body: { desired_state, spec: worker, placement: { nodes: [nodeId] } } });
/** The agent's JSON log lines with this message. */
const logged = (message: string) =>
  agent
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((l) => l.message === message);
const attemptsOf = async (streamId: string) => {
  const intents = (await api().call('GET', `/api/v1/intents?stream_id=${streamId}`)).body.items as Array<{ intent_id: string }>;
  const details = await Promise.all(intents.map(async (i) => (await api().call('GET', `/api/v1/intents/${i.intent_id}`)).body));
  return details.flatMap((d) => d.attempts as Array<{ attempt_id: string; state: string; generation: number }>);
};

test('an agent with a control endpoint converges a stream with attempts pushed over node_proxy, none taken by poll', async () => {
  const started = logged('agent started')[0]!;
  expect(started.control_address).toMatch(/^127\.0\.0\.1:\d+$/);
  expect((await api().call('GET', '/api/v1/nodes/edge-1')).body.control_address).toBe(started.control_address);

  for (const [generation, desired] of [[1, 'running'], [2, 'stopped']] as const) {
    expect((await put('pushed', 'edge-1', desired)).status).toBe(200);
    await eventually(async () => {
      const s = (await api().call('GET', '/api/v1/streams/pushed')).body;
      const intent = s.intents?.find((i: { generation: number }) => i.generation === generation);
      return s.observed?.['edge-1']?.generation === generation && s.observed['edge-1'].state === desired && intent?.state === 'converged' ? s : undefined;
    }, 20_000);
  }

  // The report that converges an intent may come before its attempt's result: wait for both results.
  const attempts = await eventually(async () => {
    const all = await attemptsOf('pushed');
    return all.length === 2 && all.every((a) => a.state !== 'dispatched') ? all : undefined;
  });
  expect(attempts.map((a) => [a.generation, a.state]).sort()).toEqual([
    [1, 'succeeded'],
    [2, 'succeeded'],
  ]);
  const received = logged('attempt received');
  for (const a of attempts) {
    // Delivered once, by push, through the control endpoint's gate; never by the long poll.
    expect(received.filter((l) => l.attempt_id === a.attempt_id)).toEqual([expect.objectContaining({ channel: 'node_proxy', path: '/v1/attempts' })]);
  }
  expect(received.filter((l) => l.channel === 'pilot_tunnel')).toEqual([]);
}, 40_000);

test('a push the control endpoint answers with an error leaves the attempt dispatched, then ambiguous at lease expiry, never resent', async () => {
  // edge-2's control endpoint takes the request and answers 503: the node may have acted on it.
  const failing = createServer((req, res) => req.resume().on('end', () => res.writeHead(503).end()));
  await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
  const node = new TestAgent(api(), 'edge-2');
  expect((await node.register({ control_address: `127.0.0.1:${(failing.address() as AddressInfo).port}` })).status).toBe(200);
  expect((await node.report()).status).toBe(202);
  await put('unreachable', 'edge-2');

  const [dispatched] = await eventually(async () => {
    const a = await attemptsOf('unreachable');
    return a.length === 1 && a[0]!.state === 'dispatched' ? a : undefined;
  });
  // Still leased to the node, not queued for another try: its poll finds nothing.
  expect(await node.attempts(0)).toEqual([]);
  await eventually(async () => (hub.output().includes('attempt push failed') ? true : undefined));

  const [ambiguous] = await eventually(async () => {
    const a = await attemptsOf('unreachable');
    return a.length === 1 && a[0]!.state === 'ambiguous' ? a : undefined;
  }, LEASE_MS + 10_000);
  expect(ambiguous!.attempt_id).toBe(dispatched!.attempt_id);
  const intent = (await api().call('GET', '/api/v1/intents?stream_id=unreachable')).body.items[0];
  expect(intent.state).toBe('ambiguous');

  // Time passes (several sweeps, a lease's worth): still the one attempt, nothing sent again.
  await new Promise((r) => setTimeout(r, LEASE_MS));
  expect(await attemptsOf('unreachable')).toEqual([expect.objectContaining({ attempt_id: dispatched!.attempt_id, state: 'ambiguous' })]);
  expect(await node.attempts(0)).toEqual([]);
  expect(hub.output().match(/attempt push failed/g)).toHaveLength(1);
  failing.close();
}, 40_000);
