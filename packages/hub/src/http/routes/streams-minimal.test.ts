import { sql } from 'kysely';
import { eventually, TestAgent } from '../../../../../test/support/fleet.ts';
import { testConfig, TOKENS } from '../../../../../test/support/hub.ts';
import { hubSuite } from '../../../../../test/support/hub-suite.ts';
import { BACKSTOP_AFTER_MS, BACKSTOP_QUEUE } from '../../reconcile/queues.ts';

// PUT /streams/{id} with Prefer: return=minimal: answered at the commit, its nodes passed by their jobs.

const suite = hubSuite({ config: testConfig(4) });

const desired = (nodes: string[], state = 'running') => ({ desired_state: state, spec: { command: 'sleep', args: ['60'] }, placement: { nodes } });
const put = (id: string, body: unknown, headers: Record<string, string> = {}) =>
  suite.hub.call('PUT', `/api/v1/streams/${id}`, { token: TOKENS.operator, body, headers });
const queued = async (streamId: string) =>
  Number((await sql<{ n: string }>`SELECT count(*) n FROM attempts WHERE stream_id = ${streamId} AND state = 'queued'`.execute(suite.t.db)).rows[0]!.n);
/** The node's passes of the backstop queue asked for since `since`, each by how long after its asking it was due. */
const passesDueAfterMs = async (nodeId: string, since: Date) =>
  (
    await sql<{ ms: string }>`SELECT extract(epoch FROM start_after - created_on) * 1000 AS ms FROM pgboss.job
      WHERE name = ${BACKSTOP_QUEUE} AND data->>'node_id' = ${nodeId} AND created_on >= ${since}`.execute(suite.t.db)
  ).rows.map((r) => Number(r.ms));
const dbNow = async () => (await sql<{ at: Date }>`SELECT clock_timestamp() AS at`.execute(suite.t.db)).rows[0]!.at;

test('A1 Prefer: return=minimal answers 204 with the ETag once the write commits; its node is passed by a job due at once, and the attempt queued', async () => {
  await new TestAgent(suite.hub, 'edge-1').register();
  const since = await dbNow();
  const r = await put('minimal', desired(['edge-1']), { prefer: 'return=minimal' });
  expect([r.status, r.body, r.headers.get('etag'), r.headers.get('preference-applied')]).toEqual([204, '', '"1"', 'return=minimal']);
  // Due at its commit, not BACKSTOP_AFTER_MS later as the backstop of a write whose route passes the node.
  const due = await passesDueAfterMs('edge-1', since);
  expect(due).toHaveLength(1);
  expect(due[0]).toBeLessThan(BACKSTOP_AFTER_MS / 2);
  await eventually(async () => ((await queued('minimal')) === 1 ? true : undefined));
  const view = await suite.hub.call('GET', '/api/v1/streams/minimal');
  expect(view.body).toMatchObject({ stream_id: 'minimal', generation: 1, intents: [expect.objectContaining({ node_id: 'edge-1', generation: 1 })] });
  // The same key and body replay the first answer, minimal as it was, whatever the retry prefers.
  const keyed = await put('minimal', desired(['edge-1'], 'stopped'), { prefer: 'return=minimal', 'idempotency-key': 'minimal-1' });
  const replayed = await put('minimal', desired(['edge-1'], 'stopped'), { 'idempotency-key': 'minimal-1' });
  expect([keyed.status, replayed.status, replayed.headers.get('etag'), replayed.headers.get('idempotent-replayed')]).toEqual([204, 204, '"2"', 'true']);
});

test('A1 a minimal write just after a full one to the same node is passed when the full one\'s backstop comes due at the latest', async () => {
  await new TestAgent(suite.hub, 'edge-2').register();
  expect((await put('full-first', desired(['edge-2']))).status).toBe(200);
  expect((await put('minimal-after', desired(['edge-2']), { prefer: 'return=minimal' })).status).toBe(204);
  // The node's one queued pass is the full write's backstop: the minimal write's is folded into it. Generous
  // bound for the worker to pick it up on a busy machine.
  await eventually(async () => ((await queued('minimal-after')) === 1 ? true : undefined), BACKSTOP_AFTER_MS + 10_000);
});

test('A1 a minimal answer does not wait for its node\'s pass: with no backstop worker, the write queues no attempt by itself', async () => {
  await new TestAgent(suite.hub, 'edge-3').register();
  await suite.hub.context.boss.offWork(BACKSTOP_QUEUE);
  const r = await put('minimal-alone', desired(['edge-3']), { prefer: 'return=minimal' });
  expect(r.status).toBe(204);
  expect(Number((await sql<{ n: string }>`SELECT count(*) n FROM intents WHERE stream_id = 'minimal-alone'`.execute(suite.t.db)).rows[0]!.n)).toBe(1);
  expect(await queued('minimal-alone')).toBe(0);
});
