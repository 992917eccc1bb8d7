import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { eventually, TestAgent, takeAttempts } from './support/fleet.ts';
import { caller, testConfig, TOKENS } from './support/hub.ts';
import { skewedClockEnv, startConfiguredHub, type HubProcess } from './support/process.ts';

// Hubs on one database decide on times another Hub or the database reads back: a lease one Hub hands out,
// every Hub sweeps; a node's last contact one Hub records, every Hub ages into online or offline; a soak one
// Hub starts, another ends. Each Hub read its host's clock, so hosts minutes apart disagreed: a Hub ahead
// swept every lease another Hub had just handed out, a Hub behind handed out leases already run out, and a Hub
// ahead by more than `stale_after_ms` saw every node stale (a health gate counts that against its batch). Each
// Hub now keeps its clock on the database's, and says how far its host's is off.
const SKEW_MS = 5 * 60_000;

let t: TestDatabase;
let dir: string;
const hubs: HubProcess[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-clock-skew-'));
});
afterAll(async () => {
  for (const hub of hubs) await hub.stop('SIGTERM');
  await rm(dir, { recursive: true, force: true });
  await t.drop();
});

const startHub = async (name: string, skewMs: number) => {
  await mkdir(join(dir, name));
  const hub = await startConfiguredHub({ databaseUrl: t.url, dir: join(dir, name), config: testConfig().file, env: skewedClockEnv(skewMs) });
  hubs.push(hub);
  return hub;
};

const attemptState = async (attemptId: string) =>
  (await t.db.selectFrom('attempts').select('state').where('attempt_id', '=', attemptId).executeTakeFirstOrThrow()).state;

test('C4 Hubs whose host clocks are minutes apart agree on leases and liveness, and the one off says so', async () => {
  const exact = await startHub('exact', 0);
  const ahead = await startHub('ahead', SKEW_MS);
  const behind = await startHub('behind', -SKEW_MS);

  // A lease handed out by the Hub behind, and one by the exact Hub, each outlive a few of every Hub's sweeps.
  for (const [hub, stream] of [[behind, 'leased-behind'], [exact, 'leased-exact']] as const) {
    const agent = new TestAgent(caller(hub.url), stream === 'leased-behind' ? 'edge-1' : 'edge-2');
    expect((await agent.register()).status).toBe(200);
    expect((await agent.report()).status).toBe(202);
    const put = await caller(hub.url).call('PUT', `/api/v1/streams/${stream}`, {
      token: TOKENS.operator,
      body: { desired_state: 'running', spec: {}, placement: { nodes: [agent.nodeId], split: false } },
    });
    expect(put.status).toBe(200);
    const [attempt] = await takeAttempts(agent, stream);
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await attemptState(attempt.attempt_id)).toBe('dispatched');
    agent.apply(attempt);
    expect((await agent.result(attempt.attempt_id, { outcome: 'succeeded', generation: attempt.generation })).status).toBe(200);
    expect(await attemptState(attempt.attempt_id)).toBe('succeeded');
  }

  // Every Hub sees the nodes that just reported online.
  for (const hub of hubs) {
    const nodes = (await caller(hub.url).call('GET', '/api/v1/nodes', { token: TOKENS.viewer })).body.items as Array<{ node_id: string; liveness: string }>;
    expect(nodes.map((n) => [n.node_id, n.liveness])).toEqual([['edge-1', 'online'], ['edge-2', 'online']]);
  }

  // The Hubs off say so: a warning at start, and the offset as a metric.
  const offset = async (hub: HubProcess) => {
    const text = (await caller(hub.url).call('GET', '/metrics', { token: TOKENS.viewer })).body as string;
    return Number(/^fleetplane_clock_offset_seconds (\S+)$/m.exec(text)?.[1]);
  };
  expect(Math.abs((await offset(ahead)) - SKEW_MS / 1000)).toBeLessThan(1);
  expect(Math.abs((await offset(behind)) + SKEW_MS / 1000)).toBeLessThan(1);
  expect(Math.abs(await offset(exact))).toBeLessThan(1);
  await eventually(async () => (/"level":"warn".*clock/.test(ahead.output()) && /"level":"warn".*clock/.test(behind.output()) ? true : undefined));
  expect(exact.output()).not.toMatch(/clock/);
}, 120_000);
