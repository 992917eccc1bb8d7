import { DesiredStream } from '@fleetplane/core';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { eventually } from '../../../../test/support/fleet.ts';
import { startTestHub, testConfig, type TestHub, TOKENS } from '../../../../test/support/hub.ts';
import { writeDesired } from '../reconcile/write-desired.ts';
import { ANSWER_WINDOW_MS, claiming, forgetKeys, idempotencyClaim } from './idempotency.ts';

let now = new Date('2026-11-30T12:00:00.000Z');
const clock = { now: () => now };

const KEY_TTL_MS = 3_600_000;

let t: TestDatabase;
let hub: TestHub;
beforeAll(async () => {
  t = await createTestDatabase();
  // Keys are remembered an hour here; this Hub looks for expired ones every 50 ms.
  hub = await startTestHub(t.url, { clock, config: testConfig(2, {}, { idempotency_ttl_ms: KEY_TTL_MS }), forgetKeysEveryMs: 50 });
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

test('A4 one key and body answer once however the resource\'s path is spelled (case, a trailing slash)', async () => {
  const headers = { 'idempotency-key': 'k-spelled' };
  const first = await hub.call('PUT', '/api/v1/streams/a4-spelled', { token: TOKENS.operator, body, headers });
  expect(first.status).toBe(200);
  for (const path of ['/api/v1/streams/a4-spelled/', '/API/V1/Streams/a4-spelled']) {
    const again = await hub.call('PUT', path, { token: TOKENS.operator, body, headers });
    expect([again.status, again.body.generation, again.headers.get('idempotent-replayed')]).toEqual([200, first.body.generation, 'true']);
  }
  expect(await events('stream:a4-spelled')).toBe(1);
});

test('A4 a write that committed but whose answer was never stored is answered from its result on retry, not written again', async () => {
  // The first request's transaction commits the write and claims the key; its Hub stops before storing the answer.
  const claim = idempotencyClaim('k-lost', 'bob', 'PUT', '/api/v1/streams/a4-lost', body);
  const write = writeDesired({ streamId: 'a4-lost', desired: DesiredStream.parse(body), actionId: null, ifMatch: null, overrideHold: false });
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

test('A4 a key is remembered for control_api.idempotency_ttl_ms after its first request, then forgotten: a retry writes anew', async () => {
  const first = await put('a4-ttl', 'k-ttl');
  expect(first.body.generation).toBe(1);
  const keys = async () => Number((await sql<{ n: string }>`SELECT count(*) n FROM idempotency_keys WHERE key = 'k-ttl'`.execute(t.db)).rows[0]!.n);

  // Just inside the window the key is kept (the cutoff the Hub forgets by), and replays the first answer.
  now = new Date(now.getTime() + KEY_TTL_MS - 1000);
  await forgetKeys(t.db, new Date(now.getTime() - KEY_TTL_MS));
  expect(await keys()).toBe(1);
  const within = await put('a4-ttl', 'k-ttl');
  expect(within.body.generation).toBe(1);
  expect(within.headers.get('idempotent-replayed')).toBe('true');

  // Past it the Hub forgets the key, and the same request is a new write.
  now = new Date(now.getTime() + 2000);
  await eventually(async () => ((await keys()) === 0 ? true : undefined));
  const after = await put('a4-ttl', 'k-ttl');
  expect(after.body.generation).toBe(2);
  expect(after.headers.get('idempotent-replayed')).toBeNull();
  expect(await events('stream:a4-ttl')).toBe(2);
});
