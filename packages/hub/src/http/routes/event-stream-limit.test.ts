import { request } from 'node:http';
import { createTestDatabase, type TestDatabase } from '../../../../../test/support/database.ts';
import { eventually } from '../../../../../test/support/fleet.ts';
import { startTestHub, testConfig, TOKENS, type TestHub } from '../../../../../test/support/hub.ts';
import { MAX_STREAMS_PER_PRINCIPAL } from './events.ts';

// J4 event streams from a hostile or careless client: each holds a connection to the Hub and a follower of the
// log, so one viewer's token opening streams without end held them all. A credential holds
// MAX_STREAMS_PER_PRINCIPAL at once; the next is refused 429 too_many_streams until one closes.

let t: TestDatabase;
let hub: TestHub;
beforeAll(async () => {
  t = await createTestDatabase();
  hub = await startTestHub(t.url, { config: testConfig(2) });
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
});

interface Opened {
  status: number;
  body: Promise<string>;
  close(): void;
}

/** Opens GET /events/stream; resolves once its head came, with the body read until it ends (a refusal's at once). */
function open(token: string): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const req = request(new URL('/api/v1/events/stream', hub.url), { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } }, (res) => {
      let text = '';
      const body = new Promise<string>((done) => {
        res.on('data', (c) => (text += c));
        res.on('end', () => done(text));
        res.on('close', () => done(text));
        res.on('error', () => done(text));
      });
      resolve({ status: res.statusCode!, body, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

test('J4 one credential opening event streams without end holds a bounded number; the rest are refused 429 too_many_streams', async () => {
  // Opened together, as a hostile client would: the check and the taking of a place cannot interleave.
  const opened = await Promise.all(Array.from({ length: MAX_STREAMS_PER_PRINCIPAL + 24 }, () => open(TOKENS.viewer)));
  const held = opened.filter((o) => o.status === 200);
  const refused = opened.filter((o) => o.status !== 200);
  expect(held).toHaveLength(MAX_STREAMS_PER_PRINCIPAL);
  expect(new Set(refused.map((o) => o.status))).toEqual(new Set([429]));
  const envelope = JSON.parse(await refused[0]!.body);
  expect(envelope).toEqual({
    code: 'too_many_streams',
    message: expect.stringMatching(/^audit has 16 event streams open on this Hub/),
    correlation_id: expect.any(String),
    details: { open: MAX_STREAMS_PER_PRINCIPAL, limit: MAX_STREAMS_PER_PRINCIPAL },
  });
  expect(hub.context.streams.followers.size).toBe(MAX_STREAMS_PER_PRINCIPAL);

  // Another credential is not held back by this one's streams.
  const other = await open(TOKENS.operator);
  expect(other.status).toBe(200);
  // A stream closed gives its place back.
  held.pop()!.close();
  await eventually(async () => ((await open(TOKENS.viewer).then((o) => (o.status === 200 ? (held.push(o), true) : (o.close(), undefined))))));
  for (const o of [...held, other]) o.close();
  await eventually(async () => (hub.context.streams.followers.size === 0 ? true : undefined));
});
