import { DesiredStream } from '@fleetplane/core';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { startTestHub, type TestHub, TOKENS } from '../../../../test/support/hub.ts';
import { writeDesired } from '../reconcile/write-desired.ts';
import { ANSWER_WINDOW_MS, claiming, idempotencyClaim } from './idempotency.ts';

let now = new Date('2026-11-30T12:00:00.000Z');
const clock = { now: () => now };

let t: TestDatabase;
let hub: TestHub;
beforeAll(async () => {
  t = await createTestDatabase();
  hub = await startTestHub(t.url, { clock });
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
});

const body = { desired_state: 'running', spec: { command: 'sleep', args: ['60'] }, placement: { nodes: ['edge-1'] } };
const put = (id: string, key: string) =>
  hub.call('PUT', `/api/v1/streams/${id}`, { token: TOKENS.operator, body, headers: { 'idempotency-key': key } });
const events = async (streamId: string) =>
  Number((await sql<{ n: string }>`SELECT count(*) n FROM events WHERE stream_id = ${streamId}`.execute(t.db)).rows[0]!.n);

test('A4 a write that committed but whose answer was never stored is answered from its result on retry, not written again', async () => {
  // The first request's transaction commits the write and claims the key; its Hub stops before storing the answer.
  const claim = idempotencyClaim('k-lost', 'bob', 'PUT', '/api/v1/streams/a4-lost', body);
  const write = writeDesired({ streamId: 'a4-lost', desired: DesiredStream.parse(body), actionId: null, ifMatch: null });
  const first = await hub.context.pipeline.run({ principal: 'bob', role: 'operator', source: 'api', correlationId: 'first' }, claiming(claim, write));
  expect(first.ok).toBe(true);
  expect(await events('stream:a4-lost')).toBe(1);

  // Past the window in which the first request would have stored its answer, a retry rebuilds it.
  now = new Date(now.getTime() + ANSWER_WINDOW_MS);
  const retry = await put('a4-lost', 'k-lost');
  expect(retry.status).toBe(200);
  expect(retry.body).toMatchObject({ stream_id: 'a4-lost', generation: 1, desired_state: 'running' });
  expect(retry.headers.get('etag')).toBe('"1"');
  expect(retry.headers.get('idempotent-replayed')).toBe('true');
  expect(await events('stream:a4-lost')).toBe(1);

  // The rebuilt answer is now the key's answer: replayed as stored.
  const again = await put('a4-lost', 'k-lost');
  expect(again.status).toBe(200);
  expect(again.body).toEqual(retry.body);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(await events('stream:a4-lost')).toBe(1);
});
