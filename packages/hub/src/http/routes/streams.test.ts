import { sql } from 'kysely';
import { eventually, TestAgent } from '../../../../../test/support/fleet.ts';
import { testConfig, TOKENS } from '../../../../../test/support/hub.ts';
import { hubSuite } from '../../../../../test/support/hub-suite.ts';
import { RECONCILE_QUEUE } from '../../reconcile/queues.ts';

/** The Hub's clock runs with real time, shifted by `skew`: a test moves it forward to let a node go offline. */
let skew = 0;
const suite = hubSuite({ config: testConfig(4), clock: { now: () => new Date(Date.now() + skew) } });

const desired = (nodes: string[], state = 'running') => ({ desired_state: state, spec: { command: 'sleep', args: ['60'] }, placement: { nodes } });
const put = (id: string, body: unknown, headers: Record<string, string> = {}) =>
  suite.hub.call('PUT', `/api/v1/streams/${id}`, { token: TOKENS.operator, body, headers });
const count = async (table: 'events' | 'intents' | 'attempts' | 'pgboss.job', where: string) =>
  Number((await sql<{ n: string }>`SELECT count(*) n FROM ${sql.raw(table)} WHERE ${sql.raw(where)}`.execute(suite.t.db)).rows[0]!.n);

test('A1 a desired write to a registered but offline node is accepted and durable', async () => {
  await new TestAgent(suite.hub, 'edge-1').register();
  skew += 10 * 60_000; // not heard from for ten minutes
  expect((await suite.hub.call('GET', '/api/v1/nodes/edge-1')).body.liveness).toBe('offline');
  const r = await put('a1', desired(['edge-1']));
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ stream_id: 'a1', generation: 1, desired_state: 'running' });
  expect(r.body.intents).toEqual([expect.objectContaining({ node_id: 'edge-1', generation: 1 })]);
  expect((await suite.hub.call('GET', '/api/v1/streams/a1')).body.generation).toBe(1);
});

test('A1 a desired write naming a node that has not registered yet is accepted too', async () => {
  const r = await put('a1-unknown', desired(['edge-3']));
  expect(r.status).toBe(200);
  expect(r.body.intents[0]).toMatchObject({ node_id: 'edge-3', state: 'pending' });
});

test('A2 each desired write increments the generation and opens one intent per (stream, node, generation)', async () => {
  const first = await put('a2', desired(['edge-1', 'edge-2']));
  const second = await put('a2', desired(['edge-1', 'edge-2'], 'stopped'));
  expect([first.body.generation, second.body.generation]).toEqual([1, 2]);
  expect(first.headers.get('etag')).toBe('"1"');
  expect(second.headers.get('etag')).toBe('"2"');
  const { rows } = await sql<{ node_id: string; generation: number; n: string }>`
    SELECT node_id, generation, count(*) n FROM intents WHERE stream_id = 'a2' GROUP BY 1, 2 ORDER BY 1, 2`.execute(suite.t.db);
  expect(rows.map((r) => [r.node_id, Number(r.generation), Number(r.n)])).toEqual([
    ['edge-1', 1, 1], ['edge-1', 2, 1], ['edge-2', 1, 1], ['edge-2', 2, 1],
  ]);
});

test('A3 If-Match with a stale generation → 412 generation_conflict, nothing appended', async () => {
  await put('a3', desired(['edge-1']));
  await put('a3', desired(['edge-1']), { 'if-match': '"1"' });
  const before = await count('events', "stream_id = 'stream:a3'");
  const r = await put('a3', desired(['edge-1'], 'stopped'), { 'if-match': '"1"' });
  expect(r.status).toBe(412);
  expect(r.body).toMatchObject({ code: 'generation_conflict', details: { generation: 2 } });
  expect(await count('events', "stream_id = 'stream:a3'")).toBe(before);
  expect((await put('a3', desired(['edge-1'], 'stopped'), { 'if-match': '"2"' })).body.generation).toBe(3);
});

test('A4 the same Idempotency-Key and body replays the first answer; another body → 409 idempotency_key_reused', async () => {
  const first = await put('a4', desired(['edge-1']), { 'idempotency-key': 'k-1' });
  const again = await put('a4', desired(['edge-1']), { 'idempotency-key': 'k-1' });
  expect(again.status).toBe(200);
  expect(again.body).toEqual(first.body);
  expect(again.headers.get('etag')).toBe('"1"');
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(await count('events', "stream_id = 'stream:a4'")).toBe(1);
  const other = await put('a4', desired(['edge-2']), { 'idempotency-key': 'k-1' });
  expect(other.status).toBe(409);
  expect(other.body.code).toBe('idempotency_key_reused');
  expect(await count('events', "stream_id = 'stream:a4'")).toBe(1);
});

test('A4 concurrent requests with one Idempotency-Key write once and answer alike', async () => {
  const replies = await Promise.all(Array.from({ length: 5 }, () => put('a4-race', desired(['edge-1']), { 'idempotency-key': 'k-race' })));
  expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  expect(new Set(replies.map((r) => r.body.generation))).toEqual(new Set([1]));
  expect(await count('events', "stream_id = 'stream:a4-race'")).toBe(1);
});

test('A4 an Idempotency-Key is scoped to its principal', async () => {
  await put('a4-scope', desired(['edge-1']), { 'idempotency-key': 'shared' });
  const admin = await suite.hub.call('PUT', '/api/v1/streams/a4-scope', { token: TOKENS.admin, body: desired(['edge-1']), headers: { 'idempotency-key': 'shared' } });
  expect(admin.body.generation).toBe(2);
});

test('A5 a new generation supersedes older live intents and withdraws their queued attempts', async () => {
  const agent = new TestAgent(suite.hub, 'edge-2');
  await agent.register();
  const g1 = await put('a5', desired(['edge-2']));
  const oldIntent = g1.body.intents[0].intent_id;
  // The reconcile worker queues an attempt for generation 1; the node does not take it yet.
  await eventually(async () => ((await count('intents', `intent_id = '${oldIntent}' AND state = 'converging'`)) ? true : undefined));
  const g2 = await put('a5', desired(['edge-2'], 'stopped'));
  const newIntent = g2.body.intents.find((i: { generation: number }) => i.generation === 2).intent_id;
  const old = (await suite.hub.call('GET', `/api/v1/intents/${oldIntent}`)).body;
  expect(old).toMatchObject({ state: 'superseded', superseded_by: newIntent });
  expect(old.attempts.map((a: { state: string }) => a.state)).toEqual(['superseded']);
  // Only generation 2 is ever delivered.
  const delivered = await eventually(async () => {
    const a = (await agent.attempts(1)).filter((x) => x.stream_id === 'a5');
    return a.length ? a : undefined;
  });
  expect(delivered.map((a: { generation: number; operation: string }) => [a.generation, a.operation])).toEqual([[2, 'job_stop']]);
});

test('A5 a node dropped from the placement keeps its stop through later generations until it converges', async () => {
  // edge-4 registered and never takes attempts here: its stop stays live while two more generations follow.
  await new TestAgent(suite.hub, 'edge-4').register();
  await put('a5-drop', desired(['edge-3', 'edge-4']));
  const g2 = await put('a5-drop', desired(['edge-3']));
  const stop2 = g2.body.intents.find((i: { node_id: string; generation: number }) => i.node_id === 'edge-4' && i.generation === 2);
  expect(stop2).toMatchObject({ desired_state: 'stopped' });
  const g3 = await put('a5-drop', { ...desired(['edge-3']), spec: { command: 'sleep', args: ['61'] } });
  const stop3 = g3.body.intents.find((i: { node_id: string; generation: number }) => i.node_id === 'edge-4' && i.generation === 3);
  expect(stop3).toMatchObject({ desired_state: 'stopped' });
  expect((await suite.hub.call('GET', `/api/v1/intents/${stop2.intent_id}`)).body).toMatchObject({ state: 'superseded', superseded_by: stop3.intent_id });
  const live = (await suite.hub.call('GET', '/api/v1/intents?stream_id=a5-drop&node_id=edge-4')).body.items.filter((i: { state: string }) => i.state !== 'superseded');
  expect(live.map((i: { generation: number; desired_state: string }) => [i.generation, i.desired_state])).toEqual([[3, 'stopped']]);
});

test('A5 a node that never registered (a mistyped name) and is dropped from the placement gets no stop intent', async () => {
  await new TestAgent(suite.hub, 'edge-1').register();
  await put('a5-typo', desired(['edge-1', 'edeg-1']));
  const fixed = await put('a5-typo', desired(['edge-1']));
  expect(fixed.body.intents.map((i: { node_id: string; generation: number }) => [i.node_id, i.generation])).toEqual([['edge-1', 2]]);
  const typo = (await suite.hub.call('GET', '/api/v1/intents?stream_id=a5-typo&node_id=edeg-1')).body.items;
  expect(typo.map((i: { generation: number; state: string; superseded_by: string | null }) => [i.generation, i.state, i.superseded_by])).toEqual([[1, 'superseded', null]]);
});

test('GET /intents filters by node and stream under their short names too', async () => {
  await put('filters', desired(['edge-1', 'edge-2']));
  const pairs = async (query: string) =>
    ((await suite.hub.call('GET', `/api/v1/intents?${query}`)).body.items as Array<{ stream_id: string; node_id: string }>).map((i) => [i.stream_id, i.node_id]);
  expect(await pairs('stream=filters&node=edge-2')).toEqual([['filters', 'edge-2']]);
  expect(await pairs('stream_id=filters&node_id=edge-2')).toEqual([['filters', 'edge-2']]);
  expect(await pairs('stream=filters&node_id=edge-1')).toEqual([['filters', 'edge-1']]);
  // Two names that disagree match nothing, as two different values of one filter would.
  expect(await pairs('node=edge-1&node_id=edge-2')).toEqual([]);
  // A filter sent empty is no filter (the README writes them `?state=&node_id=&stream_id=`).
  expect(await pairs('state=&node_id=edge-2&stream_id=filters&kind=')).toEqual([['filters', 'edge-2']]);
});

test('A6 desired write, intent, job and events commit atomically: a fault leaves none of them', async () => {
  await sql`CREATE FUNCTION fail_a6() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN IF NEW.stream_id = 'a6' THEN RAISE EXCEPTION 'injected fault'; END IF; RETURN NULL; END $$`.execute(suite.t.db);
  await sql`CREATE CONSTRAINT TRIGGER fail_a6 AFTER INSERT ON intents DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION fail_a6()`.execute(suite.t.db);
  const r = await put('a6', desired(['edge-1']));
  expect(r.status).toBe(500);
  expect(await count('events', "stream_id = 'stream:a6' OR data->>'stream_id' = 'a6'")).toBe(0);
  expect(await count('intents', "stream_id = 'a6'")).toBe(0);
  expect((await suite.hub.call('GET', '/api/v1/streams/a6')).status).toBe(404);
  expect(await count('pgboss.job', "data->>'correlation_id' = " + `'${r.body.correlation_id}'`)).toBe(0);
});

test('invalid desired writes are refused with 400 and change nothing', async () => {
  for (const body of [
    { desired_state: 'paused', placement: { nodes: ['edge-1'] } },
    { desired_state: 'running', placement: { nodes: [] } },
    { desired_state: 'running', placement: { nodes: ['edge-1', 'edge-1'] } },
    { desired_state: 'running', placement: { nodes: ['edge-1'], split: true } },
    { desired_state: 'running', placement: { nodes: ['edge-1'] }, colour: 'red' },
  ]) {
    const r = await put('bad', body);
    expect([r.status, r.body.code]).toEqual([400, 'invalid_request']);
  }
  expect((await suite.hub.call('GET', '/api/v1/streams/bad')).status).toBe(404);
});

test('a restart action is a new generation carrying an action id; restarting a stopped stream is refused', async () => {
  await put('restartable', desired(['edge-1']));
  const r = await suite.hub.call('POST', '/api/v1/streams/restartable/actions', { token: TOKENS.operator, body: { action: 'restart' } });
  expect(r.status).toBe(200);
  expect(r.body.generation).toBe(2);
  expect(r.body.action_id).toMatch(/^ac_/);
  await put('stopped-one', desired(['edge-1'], 'stopped'));
  const refused = await suite.hub.call('POST', '/api/v1/streams/stopped-one/actions', { token: TOKENS.operator, body: { action: 'restart' } });
  expect([refused.status, refused.body.code]).toEqual([409, 'stream_not_running']);
  const missing = await suite.hub.call('POST', '/api/v1/streams/nope/actions', { token: TOKENS.operator, body: { action: 'restart' } });
  expect([missing.status, missing.body.code]).toEqual([404, 'stream_not_found']);
});

test('a desired write reconciles its nodes before it answers: the attempt is queued without the job worker', async () => {
  await new TestAgent(suite.hub, 'edge-2').register();
  // No reconcile worker on this Hub any more: only the write's own pass can queue the attempt.
  await suite.hub.context.boss.offWork(RECONCILE_QUEUE);
  const r = await put('now', desired(['edge-2']));
  expect(r.status).toBe(200);
  expect(await count('attempts', `stream_id = 'now' AND node_id = 'edge-2' AND state = 'queued'`)).toBe(1);
});
