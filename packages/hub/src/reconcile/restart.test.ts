import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { eventually, takeAttempts, TestAgent } from '../../../../test/support/fleet.ts';
import { startTestHub, testConfig, type TestHub, TOKENS } from '../../../../test/support/hub.ts';

// Hub restarts and several Hubs on one database: SPEC C6, and no attempt delivered twice.
let t: TestDatabase;
let now = new Date('2026-11-30T12:00:00.000Z');
const clock = { now: () => now };
const config = testConfig(3, { lease_ms: 30_000 });
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());

const take = takeAttempts;

test('C6 after a restart mid-flight the expired attempt is ambiguous until a fresh report; the restart is never sent twice', async () => {
  let hub: TestHub = await startTestHub(t.url, { config, clock });
  const agent = new TestAgent(hub, 'edge-1');
  await agent.register();
  await hub.call('PUT', '/api/v1/streams/c6', { token: TOKENS.operator, body: { desired_state: 'running', placement: { nodes: ['edge-1'] } } });
  agent.apply((await take(agent, 'c6'))[0]);
  await agent.report();
  const restart = await hub.call('POST', '/api/v1/streams/c6/actions', { token: TOKENS.operator, body: { action: 'restart' } });
  const [attempt] = await take(agent, 'c6');
  expect(attempt.operation).toBe('job_restart');
  // The Hub goes down with the restart dispatched and its result not in; it comes back after the lease.
  await hub.stop();
  now = new Date(now.getTime() + 60_000);
  hub = await startTestHub(t.url, { config, clock });
  const restarted = new TestAgent(hub, 'edge-1', agent.bootId);
  restarted.seq = agent.seq;
  restarted.streams = agent.streams;
  const intent = async () => (await hub.call('GET', `/api/v1/intents?stream_id=c6&state=ambiguous`)).body.items;
  expect(await intent()).toEqual([expect.objectContaining({ generation: 2, action_id: restart.body.action_id })]);
  // Nothing is sent again, however often the node is reconciled or re-registers.
  await hub.context.reconciler.reconcile('edge-1', 'test');
  await restarted.register({ boot_id: agent.bootId });
  expect((await restarted.attempts(1)).filter((a) => a.stream_id === 'c6')).toEqual([]);
  // The agent did restart before the Hub went down; its next report proves it.
  restarted.apply(attempt);
  await restarted.report();
  const converged = (await hub.call('GET', `/api/v1/intents/${attempt.intent_id}`)).body;
  expect(converged.state).toBe('converged');
  expect(converged.attempts.map((a: { operation: string; state: string }) => [a.operation, a.state])).toEqual([['job_restart', 'ambiguous']]);
  await hub.stop();
});

test('C6 queued work survives a restart: an attempt queued before the stop is delivered after it', async () => {
  let hub: TestHub = await startTestHub(t.url, { config, clock });
  const agent = new TestAgent(hub, 'edge-2');
  await agent.register();
  await hub.call('PUT', '/api/v1/streams/c6-queued', { token: TOKENS.operator, body: { desired_state: 'running', placement: { nodes: ['edge-2'] } } });
  await eventually(async () =>
    Number((await sql<{ n: string }>`SELECT count(*) n FROM attempts WHERE stream_id = 'c6-queued' AND state = 'queued'`.execute(t.db)).rows[0]!.n) ? true : undefined,
  );
  await hub.stop();
  hub = await startTestHub(t.url, { config, clock });
  const [attempt] = await take(new TestAgent(hub, 'edge-2'), 'c6-queued');
  expect(attempt.operation).toBe('job_start');
  await hub.stop();
});

test('two Hubs on one database never deliver an attempt twice', async () => {
  const hubs = [await startTestHub(t.url, { config, clock }), await startTestHub(t.url, { config, clock })];
  const agents = hubs.map((h) => new TestAgent(h, 'edge-3'));
  await agents[0]!.register();
  const streams = Array.from({ length: 20 }, (_, i) => `twin-${i}`);
  await Promise.all(
    streams.map((s, i) =>
      hubs[i % 2]!.call('PUT', `/api/v1/streams/${s}`, { token: TOKENS.operator, body: { desired_state: 'running', placement: { nodes: ['edge-3'] } } }),
    ),
  );
  // The node polls both Hubs at once, repeatedly, until every stream's attempt has come.
  const seen: string[] = [];
  await eventually(async () => {
    const batches = await Promise.all(agents.map((a) => a.attempts(1)));
    seen.push(...batches.flat().map((a) => a.attempt_id));
    return new Set(seen).size >= streams.length ? true : undefined;
  }, 20_000);
  expect(seen.length).toBe(new Set(seen).size);
  const { rows } = await sql<{ n: string }>`SELECT count(*) n FROM attempts WHERE stream_id LIKE 'twin-%'`.execute(t.db);
  expect(Number(rows[0]!.n)).toBe(streams.length);
  await Promise.all(hubs.map((h) => h.stop()));
});
