import { sql } from 'kysely';
import { takeAttempts, TestAgent, eventually } from '../../../../test/support/fleet.ts';
import { testConfig, TOKENS } from '../../../../test/support/hub.ts';
import { hubSuite } from '../../../../test/support/hub-suite.ts';
import type { Clock } from '../clock.ts';
import { allProjections } from '../projections/all.ts';
import { verifyProjections } from '../projections/verify.ts';

// The tables keep what the hot log keeps: lifecycle intents done and behind their stream leave them, with their
// attempts, once older than log.hot_retention (7 days here); their events stay.

const DAY = 86_400_000;
let ahead = 0;
const clock: Clock = { now: () => new Date(Date.now() + ahead) };
const suite = hubSuite({ config: testConfig(1), clock, pruneIntentsEveryMs: 200 });

const as = (method: string, path: string, body?: unknown) => suite.hub.call(method, path, { token: TOKENS.operator, ...(body !== undefined ? { body } : {}) });
const write = (stream: string, arg: string) => as('PUT', `/api/v1/streams/${stream}`, { desired_state: 'running', spec: { command: 'sleep', args: [arg] }, placement: { nodes: ['edge-1'] } });
const intents = async (stream: string) =>
  (await sql<{ intent_id: string; generation: number; state: string }>`SELECT intent_id, generation, state FROM intents WHERE stream_id = ${stream} ORDER BY generation`.execute(suite.t.db)).rows;
const count = async (query: ReturnType<typeof sql<{ n: number }>>) => (await query.execute(suite.t.db)).rows[0]!.n;

test('J3 intents of past generations leave the tables with their attempts once older than the hot log; their events stay and a rebuild derives the same tables', async () => {
  const agent = new TestAgent(suite.hub, 'edge-1');
  await agent.register();
  await agent.report();
  // ingest: generation 1 converged, 2 superseded with its attempt withdrawn, 3 live. kept: generation 1 converged.
  for (const [stream, arg] of [['ingest', '1'], ['kept', '1']] as const) {
    expect((await write(stream, arg)).status).toBe(200);
    for (const attempt of await takeAttempts(agent, stream)) {
      agent.apply(attempt);
      await agent.result(attempt.attempt_id, { outcome: 'succeeded', generation: attempt.generation });
    }
  }
  await agent.report();
  expect((await write('ingest', '2')).status).toBe(200);
  expect((await write('ingest', '3')).status).toBe(200);
  const before = await intents('ingest');
  expect(before.map((i) => [i.generation, i.state])).toEqual([[1, 'converged'], [2, 'superseded'], [3, 'converging']]);
  const [gone1, gone2] = [before[0]!.intent_id, before[1]!.intent_id];
  const attemptsOf = (ids: string[]) => count(sql<{ n: number }>`SELECT count(*)::int AS n FROM attempts WHERE intent_id = any(${ids})`);
  expect(await attemptsOf([gone1, gone2])).toBe(2);

  // Nothing is older than the hot log yet: the Hub's runs record nothing.
  await new Promise((r) => setTimeout(r, 600));
  expect(await count(sql<{ n: number }>`SELECT count(*)::int AS n FROM events WHERE type = 'IntentHistoryPruned'`)).toBe(0);

  ahead = 8 * DAY;
  await eventually(async () => ((await intents('ingest')).length === 1 ? true : undefined));
  expect((await intents('ingest')).map((i) => i.generation)).toEqual([3]);
  expect((await intents('kept')).map((i) => [i.generation, i.state])).toEqual([[1, 'converged']]);
  expect(await attemptsOf([gone1, gone2])).toBe(0);
  expect((await as('GET', `/api/v1/intents/${gone1}`)).status).toBe(404);
  expect((await as('GET', '/api/v1/streams/ingest')).body.intents.map((i: { generation: number }) => i.generation)).toEqual([3]);
  // The history holds every event of the pruned intents, and the pruning with their ids.
  expect(await count(sql<{ n: number }>`SELECT count(*)::int AS n FROM events WHERE stream_id = any(${[`intent:${gone1}`, `intent:${gone2}`]}) AND type = 'IntentOpened'`)).toBe(2);
  const pruned = (await sql<{ data: { intent_ids: string[] } }>`SELECT data FROM events WHERE type = 'IntentHistoryPruned'`.execute(suite.t.db)).rows;
  expect(pruned.map((e) => e.data.intent_ids)).toEqual([[gone1, gone2].sort()]);

  // Later runs find nothing more and record nothing.
  await new Promise((r) => setTimeout(r, 600));
  expect(await count(sql<{ n: number }>`SELECT count(*)::int AS n FROM events WHERE type = 'IntentHistoryPruned'`)).toBe(1);
  expect(await verifyProjections(suite.t.db, allProjections)).toEqual([]);
});
