import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { eventually, TestAgent, takeAttempts } from './support/fleet.ts';
import { agentToken, caller, testConfig, TOKENS } from './support/hub.ts';
import { skewedClockEnv, startAgentProcess, startConfiguredHub, type AgentProcess, type HubProcess } from './support/process.ts';

// Hubs on one database decide on times another Hub or the database reads back: a lease one Hub hands out,
// every Hub sweeps; a node's last contact one Hub records, every Hub ages into online or offline; a soak one
// Hub starts, another ends. Each Hub read its host's clock, so hosts minutes apart disagreed: a Hub ahead
// swept every lease another Hub had just handed out, a Hub behind handed out leases already run out, and a Hub
// ahead by more than `stale_after_ms` saw every node stale (a health gate counts that against its batch). Each
// Hub now keeps its clock on the database's, and says how far its host's is off. Agents' clocks play no part.
const SKEW_MS = 5 * 60_000;
const AGENT_SKEW_MS = 3 * 3_600_000;

let t: TestDatabase;
let dir: string;
let exact: HubProcess;
let ahead: HubProcess;
let behind: HubProcess;
const hubs: HubProcess[] = [];
const agents: AgentProcess[] = [];

const startHub = async (name: string, skewMs: number) => {
  await mkdir(join(dir, name));
  const hub = await startConfiguredHub({ databaseUrl: t.url, dir: join(dir, name), config: testConfig(4).file, env: skewedClockEnv(skewMs) });
  hubs.push(hub);
  return hub;
};

beforeAll(async () => {
  t = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-clock-skew-'));
  exact = await startHub('exact', 0);
  ahead = await startHub('ahead', SKEW_MS);
  behind = await startHub('behind', -SKEW_MS);
}, 120_000);
afterAll(async () => {
  for (const agent of agents) await agent.stop('SIGTERM');
  for (const hub of hubs) await hub.stop('SIGTERM');
  await rm(dir, { recursive: true, force: true });
  await t.drop();
});

const attemptStates = async (stream: string) =>
  (await t.db.selectFrom('attempts').select('state').where('stream_id', '=', stream).orderBy('created_at').execute()).map((a) => a.state);

const liveness = async (hub: HubProcess) =>
  ((await caller(hub.url).call('GET', '/api/v1/nodes', { token: TOKENS.viewer })).body.items as Array<{ node_id: string; liveness: string }>).map((n) => [n.node_id, n.liveness]);

const put = (hub: HubProcess, stream: string, nodes: string[]) =>
  caller(hub.url).call('PUT', `/api/v1/streams/${stream}`, { token: TOKENS.operator, body: { desired_state: 'running', spec: {}, placement: { nodes, split: false } } });

test('C4 Hubs whose host clocks are minutes apart agree on leases and liveness, and the ones off say so', async () => {
  // A lease handed out by the Hub behind, and one by the exact Hub, each outlive a few of every Hub's sweeps.
  for (const [hub, nodeId] of [[behind, 'edge-1'], [exact, 'edge-2']] as const) {
    const agent = await TestAgent.reporting(caller(hub.url), nodeId);
    const stream = `leased-${nodeId}`;
    expect((await put(hub, stream, [nodeId])).status).toBe(200);
    const [attempt] = await takeAttempts(agent, stream);
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await attemptStates(stream)).toEqual(['dispatched']);
    agent.apply(attempt);
    expect((await agent.result(attempt.attempt_id, { outcome: 'succeeded', generation: attempt.generation })).status).toBe(200);
    expect(await attemptStates(stream)).toEqual(['succeeded']);
  }

  // Every Hub sees the nodes that just reported online.
  for (const hub of hubs) expect(await liveness(hub)).toEqual([['edge-1', 'online'], ['edge-2', 'online']]);

  // The Hubs off say so: a warning, and the offset as a metric.
  const offset = async (hub: HubProcess) => {
    const text = (await caller(hub.url).call('GET', '/metrics', { token: null })).body as string;
    return Number(/^fleetplane_clock_offset_seconds (\S+)$/m.exec(text)?.[1]);
  };
  expect(Math.abs((await offset(ahead)) - SKEW_MS / 1000)).toBeLessThan(1);
  expect(Math.abs((await offset(behind)) + SKEW_MS / 1000)).toBeLessThan(1);
  expect(Math.abs(await offset(exact))).toBeLessThan(1);
  for (const hub of [ahead, behind]) expect(hub.output()).toMatch(/"level":"warn".*this host's clock is off the database server's/);
  expect(exact.output()).not.toMatch(/clock/);
}, 60_000);

test('A8 agents whose clocks are hours ahead of or behind the Hubs\' register, report, run their attempts within the lease and stay online', async () => {
  for (const [nodeId, skewMs] of [['edge-3', AGENT_SKEW_MS], ['edge-4', -AGENT_SKEW_MS]] as const) {
    const agent = await startAgentProcess(
      {
        hub: exact.url,
        'node-id': nodeId,
        token: agentToken(nodeId),
        'state-dir': join(dir, nodeId),
        executor: 'sim',
        'report-every-ms': '500',
        'poll-seconds': '2',
      },
      skewedClockEnv(skewMs),
    );
    agents.push(agent);
  }
  expect((await put(exact, 'skewed-agents', ['edge-3', 'edge-4'])).status).toBe(200);
  await eventually(async () => {
    const intents = (await caller(exact.url).call('GET', '/api/v1/intents?stream_id=skewed-agents', { token: TOKENS.viewer })).body.items as Array<{ state: string }>;
    return intents.length === 2 && intents.every((i) => i.state === 'converged') ? true : undefined;
  }, 30_000);
  // Each attempt's result came within its lease: no attempt ambiguous, none late.
  expect(await attemptStates('skewed-agents')).toEqual(['succeeded', 'succeeded']);
  expect((await liveness(exact)).filter(([id]) => id === 'edge-3' || id === 'edge-4')).toEqual([['edge-3', 'online'], ['edge-4', 'online']]);
}, 90_000);
