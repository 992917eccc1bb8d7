import { sql } from 'kysely';
import { takeAttempts, TestAgent, eventually } from '../../../../test/support/fleet.ts';
import { testConfig, TOKENS } from '../../../../test/support/hub.ts';
import { hubSuite } from '../../../../test/support/hub-suite.ts';
import type { Clock } from '../clock.ts';
import { allProjections } from '../projections/all.ts';
import { verifyProjections } from '../projections/verify.ts';
import { pruneIntentsBefore } from './prune-intents.ts';

// The tables keep what the hot log keeps: lifecycle intents done and behind their stream leave them, with their
// attempts, once older than log.hot_retention (7 days here); their events stay.

const DAY = 86_400_000;
let ahead = 0;
const clock: Clock = { now: () => new Date(Date.now() + ahead) };
const suite = hubSuite({ config: testConfig(1, { retry_base_ms: 1_000, retry_max_ms: 1_000 }), clock, pruneIntentsEveryMs: 200 });

const as = (method: string, path: string, body?: unknown) => suite.hub.call(method, path, { token: TOKENS.operator, ...(body !== undefined ? { body } : {}) });
const write = (stream: string, arg: string) => as('PUT', `/api/v1/streams/${stream}`, { desired_state: 'running', spec: { command: 'sleep', args: [arg] }, placement: { nodes: ['edge-1'] } });
const intents = async (stream: string) =>
  (await sql<{ intent_id: string; generation: number; state: string }>`SELECT intent_id, generation, state FROM intents WHERE stream_id = ${stream} ORDER BY generation`.execute(suite.t.db)).rows;
const count = async (query: ReturnType<typeof sql<{ n: number }>>) => (await query.execute(suite.t.db)).rows[0]!.n;

test('J3 intents of past generations leave the tables with their attempts, and an intent retried after failures its older attempts, once older than the hot log; their events stay and a rebuild derives the same tables', async () => {
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
  // flaky: generation 1 retried after a temporary failure, three times: three attempts failed, a fourth queued.
  expect((await write('flaky', '1')).status).toBe(200);
  for (let i = 0; i < 3; i++) {
    const [attempt] = await takeAttempts(agent, 'flaky');
    await agent.result(attempt!.attempt_id, { outcome: 'failed', generation: 1, failure_class: 'temporary', code: 'unreachable' });
    ahead += 1_000;
    await suite.hub.context.reconciler.reconcile('edge-1', 'test');
  }
  const flaky = await sql<{ attempt_id: string; state: string }>`SELECT attempt_id, state FROM attempts WHERE stream_id = 'flaky' ORDER BY created_at, attempt_id`.execute(suite.t.db);
  expect(flaky.rows.map((a) => a.state)).toEqual(['failed', 'failed', 'failed', 'queued']);
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
  expect((await intents('flaky')).map((i) => [i.generation, i.state])).toEqual([[1, 'converging']]);
  const failed = flaky.rows.slice(0, 3).map((a) => a.attempt_id);
  expect((await sql<{ attempt_id: string }>`SELECT attempt_id FROM attempts WHERE stream_id = 'flaky'`.execute(suite.t.db)).rows).toEqual([{ attempt_id: flaky.rows[3]!.attempt_id }]);
  expect(await attemptsOf([gone1, gone2])).toBe(0);
  expect((await as('GET', `/api/v1/intents/${gone1}`)).status).toBe(404);
  expect((await as('GET', '/api/v1/streams/ingest')).body.intents.map((i: { generation: number }) => i.generation)).toEqual([3]);
  // The history holds every event of the pruned intents, and the pruning with their ids.
  expect(await count(sql<{ n: number }>`SELECT count(*)::int AS n FROM events WHERE stream_id = any(${[`intent:${gone1}`, `intent:${gone2}`]}) AND type = 'IntentOpened'`)).toBe(2);
  // Each id named once, whichever run took it (two runs overlapping on a slow machine share the rows).
  const pruned = (await sql<{ data: { intent_ids: string[]; attempt_ids: string[] } }>`SELECT data FROM events WHERE type = 'IntentHistoryPruned'`.execute(suite.t.db)).rows;
  expect(pruned.flatMap((e) => e.data.intent_ids).sort()).toEqual([gone1, gone2].sort());
  expect(pruned.flatMap((e) => e.data.attempt_ids).sort()).toEqual([...failed].sort());

  // Later runs find nothing more and record nothing.
  await new Promise((r) => setTimeout(r, 600));
  expect(await count(sql<{ n: number }>`SELECT count(*)::int AS n FROM events WHERE type = 'IntentHistoryPruned'`)).toBe(pruned.length);
  expect(await verifyProjections(suite.t.db, allProjections)).toEqual([]);
});

test('J3 a run removes at most a batch of each, and the Hub runs again until a run takes less', async () => {
  for (const arg of ['1', '2', '3']) expect((await write('twice', arg)).status).toBe(200);
  const events = () => count(sql<{ n: number }>`SELECT count(*)::int AS n FROM events WHERE type = 'IntentHistoryPruned'`);
  const recorded = await events();
  // A horizon ahead of the Hub's own (now less the hot log's 7 days): only this test's call takes these.
  const pruned = await pruneIntentsBefore(suite.hub.context.pipeline, new Date(clock.now().getTime() + DAY), 1);
  expect(pruned).toEqual({ intents: 2, attempts: 0 });
  expect(await events()).toBe(recorded + 2);
  expect((await intents('twice')).map((i) => i.generation)).toEqual([3]);
  expect(await verifyProjections(suite.t.db, allProjections)).toEqual([]);
});
