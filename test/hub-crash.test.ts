import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { takeAttempts, TestAgent } from './support/fleet.ts';
import { caller, testConfig, TOKENS } from './support/hub.ts';
import { startConfiguredHub, type HubProcess } from './support/process.ts';

// SPEC C6 with a real crash: the Hub process is killed with SIGKILL after dispatching a restart and before
// its result, then started again on the same database.
let t: TestDatabase;
let dir: string;
let hub: HubProcess | null = null;
beforeAll(async () => {
  t = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-crash-'));
});
afterAll(async () => {
  await hub?.stop('SIGKILL');
  await rm(dir, { recursive: true, force: true });
  await t.drop();
});

const start = (): Promise<HubProcess> => startConfiguredHub({ databaseUrl: t.url, dir, config: testConfig(1, { lease_ms: 500 }).file });

const take = takeAttempts;

test('C6 kill -9 mid-flight: the restart attempt is ambiguous after restart, a fresh report resolves it, nothing is sent twice', async () => {
  hub = await start();
  let api = caller(hub.url);
  const agent = new TestAgent(api, 'edge-1');
  await agent.register();
  await api.call('PUT', '/api/v1/streams/crash', { token: TOKENS.operator, body: { desired_state: 'running', placement: { nodes: ['edge-1'] } } });
  agent.apply((await take(agent, 'crash'))[0]);
  await agent.report();
  await api.call('POST', '/api/v1/streams/crash/actions', { token: TOKENS.operator, body: { action: 'restart' } });
  const [restart] = await take(agent, 'crash');
  expect(restart.operation).toBe('job_restart');
  // The agent restarts the stream; the Hub dies before the result arrives.
  agent.apply(restart);
  expect(await hub.stop('SIGKILL')).toBeNull();
  // Come back only once the lease has run out, so that boot (not a sweeper) finds it.
  const leaseLeft = Date.parse(restart.lease_expires_at) - Date.now();
  if (leaseLeft > 0) await new Promise((r) => setTimeout(r, leaseLeft + 50));
  hub = await start();
  api = caller(hub.url);
  const moved = new TestAgent(api, 'edge-1', agent.bootId);
  moved.seq = agent.seq;
  moved.streams = agent.streams;
  const intent = async () => (await api.call('GET', `/api/v1/intents/${restart.intent_id}`)).body;
  expect(await intent()).toMatchObject({ state: 'ambiguous' });
  expect((await moved.attempts(1)).filter((a) => a.stream_id === 'crash')).toEqual([]);
  await moved.report();
  const resolved = await intent();
  expect(resolved.state).toBe('converged');
  expect(resolved.attempts.map((a: { operation: string; state: string }) => [a.operation, a.state])).toEqual([['job_restart', 'ambiguous']]);
  expect((await moved.attempts(0)).filter((a) => a.stream_id === 'crash')).toEqual([]);
}, 60_000);
