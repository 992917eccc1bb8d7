import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { eventually, takeAttempts, TestAgent } from '../../../../test/support/fleet.ts';
import { startTestHub, testConfig, TOKENS, type TestHub } from '../../../../test/support/hub.ts';
import type { Clock } from '../clock.ts';

// README, "Log retention and archive": a Hub prunes what an intent's history no longer needs at start as well
// as every hour, so Hubs restarted more often than hourly (deploys, a supervisor's restarts) still keep the
// tables to the hot log's window.
const DAY = 86_400_000;
let ahead = 0;
const clock: Clock = { now: () => new Date(Date.now() + ahead) };
let t: TestDatabase;
let hub: TestHub | undefined;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await hub?.stop();
  await t.drop();
});

test('J3 a Hub prunes intents older than the hot log at its start, not first an hour later', async () => {
  hub = await startTestHub(t.url, { clock, config: testConfig(1) });
  const agent = new TestAgent(hub, 'edge-1');
  await agent.register();
  await agent.report();
  const write = (arg: string) =>
    hub!.call('PUT', '/api/v1/streams/ingest', { token: TOKENS.operator, body: { desired_state: 'running', spec: { command: 'sleep', args: [arg] }, placement: { nodes: ['edge-1'] } } });
  expect((await write('1')).status).toBe(200);
  for (const attempt of await takeAttempts(agent, 'ingest')) {
    agent.apply(attempt);
    await agent.result(attempt.attempt_id, { outcome: 'succeeded', generation: attempt.generation });
  }
  await agent.report();
  expect((await write('2')).status).toBe(200);
  const generations = async () => (await sql<{ generation: number }>`SELECT generation FROM intents WHERE stream_id = 'ingest' ORDER BY generation`.execute(t.db)).rows.map((r) => r.generation);
  expect(await generations()).toEqual([1, 2]);
  await hub.stop();

  // Eight days later (the hot log keeps seven), a Hub starts with the default hourly pruning.
  ahead = 8 * DAY;
  hub = await startTestHub(t.url, { clock, config: testConfig(1) });
  await eventually(async () => ((await generations()).length === 1 ? true : undefined), 15_000);
  expect(await generations()).toEqual([2]);
}, 60_000);
