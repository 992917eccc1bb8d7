import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { eventually } from './support/fleet.ts';
import { startTestHub, TOKENS, type TestHub } from './support/hub.ts';

// Every console page and `fleetplane events tail` holds an event stream (GET /events/stream). Two Hubs on one
// database (README, "Several Hubs"): the streams open on one Hub must not each take a PostgreSQL connection of
// their own, else a few dozen viewers' browser tabs use up the server's max_connections and every Hub's writes
// and agents' reports are answered 503. And a write on the other Hub still reaches every stream at once.
const STREAMS = 30;
let t: TestDatabase;
let hubs: TestHub[] = [];
const open: AbortController[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  hubs = [await startTestHub(t.url), await startTestHub(t.url)];
});
afterAll(async () => {
  for (const c of open) c.abort();
  await Promise.all(hubs.map((h) => h.stop()));
  await t.drop();
});

/** The server's connections to this database that listen for the log's appends. */
const eventListeners = async () =>
  Number(
    (
      await sql<{ n: string }>`SELECT count(*) AS n FROM pg_stat_activity
        WHERE datname = current_database() AND query = 'LISTEN fleetplane_events'`.execute(t.db)
    ).rows[0]!.n,
  );

/** Readers of several credentials: one credential holds at most 16 streams on a Hub (event-stream-limit.test.ts). */
const READERS = [TOKENS.viewer, TOKENS.operator, TOKENS.admin, TOKENS.admin2];

/** An event stream on `hub` as `token`: the event types it received so far, once it said where it follows from. */
async function stream(hub: TestHub, token: string): Promise<string[]> {
  const types: string[] = [];
  const controller = new AbortController();
  open.push(controller);
  const res = await fetch(`${hub.url}/api/v1/events/stream`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const following = new Promise<void>((resolve) => {
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          text += decoder.decode(value, { stream: true });
          if (text.includes(': following from')) resolve();
          for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
            const type = /^event: (\S+)$/m.exec(text.slice(0, end));
            if (type) types.push(type[1]!);
            text = text.slice(end + 2);
          }
        }
      } catch {
        // aborted at the end of the test
      }
    })();
  });
  await following;
  return types;
}

test(`J4 ${STREAMS} event streams open on one Hub hold no PostgreSQL connection each, and a write on another Hub reaches every one`, async () => {
  const streams: string[][] = [];
  for (let i = 0; i < STREAMS; i++) streams.push(await stream(hubs[0]!, READERS[i % READERS.length]!));
  // Each stream reads through the Hub's pool; what wakes them all is one LISTEN connection per Hub.
  expect(await eventListeners()).toBeLessThanOrEqual(hubs.length);

  const written = await hubs[1]!.call('PUT', '/api/v1/streams/seen-everywhere', {
    token: TOKENS.operator,
    body: { desired_state: 'running', spec: {}, placement: { nodes: ['edge-1'], split: false } },
  });
  expect(written.status).toBe(200);
  await eventually(async () => (streams.every((types) => types.includes('StreamDesired')) ? true : undefined), 10_000);
}, 60_000);
