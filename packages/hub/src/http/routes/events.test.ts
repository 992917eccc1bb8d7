import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../../test/support/database.ts';
import { event } from '../../../../../test/support/events.ts';
import { eventually, TestAgent } from '../../../../../test/support/fleet.ts';
import { startTestHub, testConfig, TOKENS, type TestHub } from '../../../../../test/support/hub.ts';
import { appendToStream, type EventToAppend } from '../../event-store/append.ts';
import type { Tables } from '../../database/tables.ts';
import type { Kysely } from 'kysely';

// The history API (SPEC J4): GET /events with its filters and cursor, and GET /events/stream (SSE).

let t: TestDatabase;
let hub: TestHub;
const streams: { close(): void }[] = [];
beforeAll(async () => {
  t = await createTestDatabase();
  hub = await startTestHub(t.url, { config: testConfig(4) });
});
afterAll(async () => {
  for (const s of streams) s.close();
  await hub.stop();
  await t.drop();
});

const append = async (db: Kysely<Tables>, streamId: string, events: EventToAppend[]): Promise<number[]> => {
  const r = await appendToStream(db, streamId, 'any', events);
  if (!r.ok) throw new Error(`append to ${streamId} failed: ${JSON.stringify(r.error)}`);
  return r.events.map((e) => e.position);
};

const withMeta = (e: EventToAppend, meta: Partial<EventToAppend['metadata']>, recordedAt?: string): EventToAppend => ({
  ...e,
  metadata: { ...e.metadata, ...meta },
  ...(recordedAt ? { recordedAt: new Date(recordedAt) } : {}),
});

const list = (query: string, token: string = TOKENS.viewer) => hub.call('GET', `/api/v1/events?${query}`, { token });

/** Lists until `count` items match (the log is read below the horizon other test files' transactions hold back). */
const listed = (query: string, count: number) =>
  eventually(async () => {
    const r = await list(query);
    expect(r.status).toBe(200);
    return r.body.items.length === count ? r.body : undefined;
  });

/** Every page of a query, following next_cursor. */
async function allPages(query: string): Promise<{ pages: any[][]; items: any[] }> {
  const pages: any[][] = [];
  let after: string | null = null;
  do {
    const r = await list(`${query}${after ? `&after=${after}` : ''}`);
    expect(r.status).toBe(200);
    pages.push(r.body.items);
    after = r.body.next_cursor;
  } while (after !== null);
  return { pages, items: pages.flat() };
}

/**
 * The cursor at the end of the readable log now: waits until every event of this database is below the
 * horizon. An empty log ends at its start, `0-0`.
 */
const endCursor = () =>
  eventually(async () => {
    const { rows } = await sql<{ below: boolean; cursor: string }>`
      SELECT coalesce((SELECT tx_id FROM events ORDER BY tx_id DESC LIMIT 1) < pg_snapshot_xmin(pg_current_snapshot()), true) AS below,
             coalesce((SELECT tx_id::text || '-' || position FROM events ORDER BY tx_id DESC, position DESC LIMIT 1), '0-0') AS cursor`.execute(t.db);
    return rows[0]!.below ? rows[0]!.cursor : undefined;
  });

interface Message {
  id: string | undefined;
  event: string | undefined;
  data: any;
}

/** An SSE client over fetch: collects messages (comments apart) until closed. */
async function openStream(query = '', headers: Record<string, string> = {}, token: string = TOKENS.viewer) {
  const abort = new AbortController();
  const res = await fetch(`${hub.url}/api/v1/events/stream${query}`, { headers: { authorization: `Bearer ${token}`, ...headers }, signal: abort.signal });
  const messages: Message[] = [];
  const comments: string[] = [];
  let ended = false;
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body!) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = new Map<string, string>();
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else fields.set(line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trimStart());
          }
          if (fields.has('data')) messages.push({ id: fields.get('id'), event: fields.get('event'), data: JSON.parse(fields.get('data')!) });
        }
      }
    } catch {
      // aborted by close()
    }
    ended = true;
  })();
  const s = {
    res,
    messages,
    comments,
    get ended() {
      return ended;
    },
    /** Resolves with the messages once at least `n` have arrived. */
    until: (n: number) => eventually(async () => (messages.length >= n ? messages.slice() : undefined)),
    close() {
      abort.abort();
    },
    done: reading,
  };
  streams.push(s);
  return s;
}

test('J4 GET /events filters by stream, type, correlation id, actor and time range, all combined', async () => {
  const s = 'j4-filters';
  await append(t.db, s, [
    withMeta(event('Planted'), { correlation_id: 'corr-a', actor: 'alice' }, '2031-01-01T00:00:00Z'),
    withMeta(event('Watered'), { correlation_id: 'corr-a', actor: 'bob' }, '2031-01-01T01:00:00Z'),
    withMeta(event('Pruned'), { correlation_id: 'corr-b', actor: 'bob' }, '2031-01-01T02:00:00Z'),
    withMeta(event('Watered'), { correlation_id: 'corr-b', actor: 'alice' }, '2031-01-01T03:00:00Z'),
  ]);
  await append(t.db, 'j4-elsewhere', [withMeta(event('Watered'), { correlation_id: 'corr-a', actor: 'bob' }, '2031-01-01T01:00:00Z')]);

  const all = await listed(`stream_id=${s}`, 4);
  expect(all.items.map((e: any) => e.type)).toEqual(['Planted', 'Watered', 'Pruned', 'Watered']);
  expect(all.items[0]).toEqual({
    position: expect.any(Number),
    stream_id: s,
    stream_version: 1,
    event_id: expect.any(String),
    type: 'Planted',
    schema_version: 1,
    data: {},
    metadata: { actor: 'alice', role: 'operator', correlation_id: 'corr-a', causation_id: null, source: 'api' },
    recorded_at: '2031-01-01T00:00:00.000Z',
    cursor: expect.stringMatching(/^\d+-\d+$/),
  });
  expect(all.next_cursor).toBeNull();

  const types = (body: any) => body.items.map((e: any) => `${e.stream_id}/${e.type}/${e.stream_version}`);
  expect(types(await listed(`stream_id=${s}&type=Watered`, 2))).toEqual([`${s}/Watered/2`, `${s}/Watered/4`]);
  expect(types(await listed(`stream_id=${s}&type=Planted,Pruned`, 2))).toEqual([`${s}/Planted/1`, `${s}/Pruned/3`]);
  expect(types(await listed(`stream_id=${s}&type=Planted&type=Pruned`, 2))).toEqual([`${s}/Planted/1`, `${s}/Pruned/3`]);
  expect(types(await listed('correlation_id=corr-a', 3))).toEqual([`${s}/Planted/1`, `${s}/Watered/2`, 'j4-elsewhere/Watered/1']);
  expect(types(await listed('correlation_id=corr-a&actor=bob', 2))).toEqual([`${s}/Watered/2`, 'j4-elsewhere/Watered/1']);
  expect(types(await listed(`stream_id=${s}&actor=bob&type=Pruned`, 1))).toEqual([`${s}/Pruned/3`]);
  // since inclusive, until exclusive
  expect(types(await listed(`stream_id=${s}&since=2031-01-01T01:00:00Z&until=2031-01-01T03:00:00Z`, 2))).toEqual([`${s}/Watered/2`, `${s}/Pruned/3`]);
  expect(types(await listed('since=2031-01-01T00:30:00%2B00:00&until=2031-01-01T01:30:00Z', 2))).toEqual([`${s}/Watered/2`, 'j4-elsewhere/Watered/1']);
  // A bound finer than the log's milliseconds still means exactly that time: Watered/2 is at 01:00:00.000.
  expect(types(await listed(`stream_id=${s}&since=2031-01-01T01:00:00.0005Z&until=2031-01-01T03:00:00Z`, 1))).toEqual([`${s}/Pruned/3`]);
  expect(types(await listed(`stream_id=${s}&since=2031-01-01T00:30:00Z&until=2031-01-01T01:00:00.0005Z`, 1))).toEqual([`${s}/Watered/2`]);
  expect((await list(`stream_id=${s}&type=Nothing`)).body).toEqual({ items: [], next_cursor: null });
});

test('J4 GET /events by correlation id finds what one request recorded through the API', async () => {
  const r = await hub.call('POST', '/api/v1/agent/register', {
    token: TOKENS.agent1,
    body: { node_id: 'edge-1', boot_id: 'b1' },
    headers: { 'x-correlation-id': 'j4-register' },
  });
  expect(r.status).toBe(200);
  const put = await hub.call('PUT', '/api/v1/nodes/edge-1/labels', { token: TOKENS.operator, body: { labels: { env: 'prod' } }, headers: { 'x-correlation-id': 'j4-labels' } });
  expect(put.status).toBe(200);
  const found = await listed('correlation_id=j4-labels', 1);
  expect(found.items[0]).toMatchObject({ stream_id: 'node:edge-1', type: 'NodeLabelsReplaced', metadata: { actor: 'bob', role: 'operator', correlation_id: 'j4-labels' } });
  expect((await listed('actor=bob&stream_id=node:edge-1', 1)).items[0].event_id).toBe(found.items[0].event_id);
});

test('J4 cursor paging returns every event once, in log order, whatever the page size', async () => {
  const s = 'j4-paging';
  for (let i = 0; i < 7; i++) await append(t.db, s, [event('Paged', { i })]);
  await listed(`stream_id=${s}&limit=1000`, 7);
  const { rows } = await sql<{ position: number }>`SELECT position FROM events WHERE stream_id = ${s} ORDER BY tx_id, position`.execute(t.db);
  for (const limit of [1, 2, 3, 7, 100]) {
    const { pages, items } = await allPages(`stream_id=${s}&limit=${limit}`);
    expect(items.map((e) => e.position)).toEqual(rows.map((r) => r.position));
    expect(pages.every((p) => p.length <= limit)).toBe(true);
    expect(pages).toHaveLength(Math.ceil(7 / limit)); // no empty page at the end
  }
  // `after` is an item's cursor too: resuming after the third event gives the fourth onwards.
  const third = (await list(`stream_id=${s}`)).body.items[2];
  expect((await list(`stream_id=${s}&after=${third.cursor}`)).body.items.map((e: any) => e.data.i)).toEqual([3, 4, 5, 6]);
});

test('issue 22 GET /events?order=desc reads the same events newest first, paging back with before = next_cursor', async () => {
  const start = await endCursor();
  const s = 'i22-newest';
  for (let i = 0; i < 7; i++) await append(t.db, s, [event('PagedBack', { i })]);
  await listed(`stream_id=${s}`, 7);
  const oldestFirst = (await list(`stream_id=${s}`)).body.items.map((e: any) => e.position);
  // By stream (its matches sorted), and the whole log after a cursor (walked in index order, backwards).
  for (const filter of [`stream_id=${s}`, `after=${start}&type=PagedBack,NodeReported`]) {
    for (const limit of [1, 3, 7, 100]) {
      const pages: any[][] = [];
      let before: string | null = null;
      do {
        const r = await list(`${filter}&order=desc&limit=${limit}${before ? `&before=${before}` : ''}`);
        expect(r.status).toBe(200);
        pages.push(r.body.items);
        before = r.body.next_cursor;
      } while (before !== null);
      expect([filter, limit, pages.flat().map((e) => e.position)]).toEqual([filter, limit, [...oldestFirst].reverse()]);
      expect(pages).toHaveLength(Math.ceil(7 / limit));
    }
  }
  // A reader that shows the newest page follows what comes later from its first item's cursor.
  const newest = (await list(`stream_id=${s}&order=desc&limit=2`)).body.items;
  await append(t.db, s, [event('PagedBack', { i: 7 })]);
  const later = await listed(`stream_id=${s}&after=${newest[0].cursor}`, 1);
  expect(later.items.map((e: any) => e.data.i)).toEqual([7]);
  // before bounds an oldest-first read too (newest holds 6 and 5).
  expect((await list(`stream_id=${s}&before=${newest[1].cursor}`)).body.items.map((e: any) => e.data.i)).toEqual([0, 1, 2, 3, 4]);
});

test.each([
  ['limit=0'],
  ['limit=1001'],
  ['limit=ten'],
  ['after=garbage'],
  ['after=12'],
  ['before=garbage'],
  ['order=newest'],
  ['since=yesterday'],
  ['until=2031-13-01T00:00:00Z'],
  ['since=2031-01-02T00:00:00Z&until=2031-01-01T00:00:00Z'],
  ['since=2031-01-01T00:00:00Z&until=2031-01-01T00:00:00Z'],
])('J4 GET /events?%s → 400 invalid_request', async (query) => {
  const r = await list(query);
  expect(r.status).toBe(400);
  expect(r.body).toMatchObject({ code: 'invalid_request', correlation_id: expect.any(String) });
});

test('J4 history needs a viewer token: 401 without one, 403 (audited) for an agent', async () => {
  for (const path of ['/api/v1/events', '/api/v1/events/stream']) {
    expect((await hub.call('GET', path, { token: null })).status).toBe(401);
    const denied = await hub.call('GET', path, { token: TOKENS.agent2 });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('forbidden');
  }
  const denials = await listed('stream_id=principal:edge-2-agent&type=AccessDenied', 2);
  expect(denials.items.map((e: any) => e.data.route)).toEqual(['/api/v1/events', '/api/v1/events/stream']);
  expect((await hub.call('GET', '/api/v1/events/stream', { headers: { 'last-event-id': 'nope' } })).body.code).toBe('invalid_request');
});

test('J4 SSE follows the log live, filtered, with the cursor as id and the type as event', async () => {
  const s = await openStream('?stream_id=j4-live&type=Ping,Pong');
  expect(s.res.status).toBe(200);
  expect(s.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  await eventually(async () => (s.comments.length > 0 ? true : undefined)); // subscribed
  await append(t.db, 'j4-live', [event('Ping', { n: 1 }), event('Ignored'), event('Pong', { n: 2 })]);
  await append(t.db, 'j4-not-this', [event('Ping', { n: 0 })]);
  await append(t.db, 'j4-live', [event('Ping', { n: 3 })]);
  const got = await s.until(3);
  expect(got.map((m) => [m.event, m.data.data.n])).toEqual([['Ping', 1], ['Pong', 2], ['Ping', 3]]);
  expect(got.every((m) => m.id === m.data.cursor)).toBe(true);
  expect(got[0]!.data).toMatchObject({ stream_id: 'j4-live', stream_version: 1, type: 'Ping', metadata: { actor: 'alice' } });
  s.close();
  await s.done;
});

test('J4 SSE resumes from Last-Event-ID (or ?after=) without loss or repeat', async () => {
  const before = await endCursor();
  await append(t.db, 'j4-resume', [event('Step', { n: 1 }), event('Step', { n: 2 }), event('Step', { n: 3 })]);
  const first = await openStream(`?stream_id=j4-resume&after=${before}`);
  const seen = await first.until(2);
  first.close();
  await first.done;
  await append(t.db, 'j4-resume', [event('Step', { n: 4 })]);
  // The header wins over ?after=, as a browser's EventSource reconnects with its original URL.
  const second = await openStream(`?stream_id=j4-resume&after=${before}`, { 'last-event-id': seen[1]!.id! });
  expect((await second.until(2)).map((m) => m.data.data.n)).toEqual([3, 4]);
  second.close();
  const third = await openStream(`?stream_id=j4-resume&after=${seen[0]!.id}`);
  expect((await third.until(3)).map((m) => m.data.data.n)).toEqual([2, 3, 4]);
  third.close();
  // With neither, the stream starts at the end of the log: only what commits from now on.
  const live = await openStream('?stream_id=j4-resume');
  await eventually(async () => (live.comments.length > 0 ? true : undefined));
  await append(t.db, 'j4-resume', [event('Step', { n: 5 })]);
  expect((await live.until(1)).map((m) => m.data.data.n)).toEqual([5]);
  live.close();
});

test('J4 an event committed later with a smaller position is still delivered, by the list and the SSE stream', async () => {
  const start = await endCursor();
  const s = await openStream(`?after=${start}&type=EarlyCommit,LateCommit`);
  // `early` takes its transaction id first and its position last, and commits first; `late` the other way round.
  const early = await t.db.startTransaction().execute();
  const late = await t.db.startTransaction().execute();
  let small: number, big: number;
  try {
    await sql`SELECT pg_current_xact_id()`.execute(early);
    small = (await append(late, 'j4-order-late', [event('LateCommit')]))[0]!;
    big = (await append(early, 'j4-order-early', [event('EarlyCommit')]))[0]!;
    expect(small).toBeLessThan(big);
    await early.commit().execute();
    expect((await s.until(1)).map((m) => m.data.position)).toEqual([big]);
    const during = await listed(`after=${start}&type=EarlyCommit,LateCommit`, 1);
    expect(during.items.map((e: any) => e.position)).toEqual([big]);
    await late.commit().execute();
  } finally {
    for (const trx of [early, late]) if (!trx.isCommitted && !trx.isRolledBack) await trx.rollback().execute();
  }
  expect((await s.until(2)).map((m) => m.data.position)).toEqual([big, small]);
  const resumed = await listed(`after=${s.messages[0]!.id}&type=EarlyCommit,LateCommit`, 1);
  expect(resumed.items.map((e: any) => e.position)).toEqual([small]);
  expect((await listed(`after=${start}&type=EarlyCommit,LateCommit`, 2)).items.map((e: any) => e.position)).toEqual([big, small]);
  s.close();
});

/**
 * A node that registers and reports six times: reports 1 and 4 change what it runs, the others repeat it.
 * Answers the cursor before its first event.
 */
async function reportingNode(nodeId: string): Promise<string> {
  const start = await endCursor();
  const agent = new TestAgent(hub, nodeId);
  expect((await agent.register()).status).toBe(200);
  for (let i = 1; i <= 6; i++) {
    if (i === 4) agent.streams.set('ingest', { stream_id: 'ingest', generation: 1, state: 'running' });
    expect((await agent.report()).body.accepted).toBe(true);
  }
  return start;
}

/** A node's events as `NodeRegistered` and `report <seq>`. */
const nodeEvents = (items: any[], nodeId: string) =>
  items.filter((e) => e.stream_id === `node:${nodeId}`).map((e) => (e.type === 'NodeReported' ? `report ${e.data.seq}` : e.type));

test('Issue 19 GET /events leaves repeated reports out unless asked: reports=changed (the default), all, none', async () => {
  const start = await reportingNode('edge-3');
  const changed = ['NodeRegistered', 'report 1', 'report 4'];
  const every = ['NodeRegistered', 'report 1', 'report 2', 'report 3', 'report 4', 'report 5', 'report 6'];
  expect(nodeEvents((await listed(`after=${start}`, 3)).items, 'edge-3')).toEqual(changed);
  expect(nodeEvents((await listed(`after=${start}&reports=changed`, 3)).items, 'edge-3')).toEqual(changed);
  expect(nodeEvents((await listed(`after=${start}&reports=all`, 7)).items, 'edge-3')).toEqual(every);
  expect(nodeEvents((await listed(`after=${start}&reports=none`, 1)).items, 'edge-3')).toEqual(['NodeRegistered']);
  // Paging leaves them out too: one event a page, each page after the last one's cursor.
  expect(nodeEvents((await allPages('limit=1')).items, 'edge-3')).toEqual(changed);
});

test("Issue 19 naming a node's stream or the report type asks for every report, unless reports= says otherwise", async () => {
  const start = await reportingNode('edge-4');
  const reports = ['report 1', 'report 2', 'report 3', 'report 4', 'report 5', 'report 6'];
  expect(nodeEvents((await listed(`after=${start}&stream_id=node:edge-4`, 7)).items, 'edge-4')).toEqual(['NodeRegistered', ...reports]);
  expect(nodeEvents((await listed(`after=${start}&type=NodeReported`, 6)).items, 'edge-4')).toEqual(reports);
  expect(nodeEvents((await listed(`after=${start}&type=NodeRegistered,NodeReported`, 7)).items, 'edge-4')).toEqual(['NodeRegistered', ...reports]);
  expect(nodeEvents((await listed(`after=${start}&stream_id=node:edge-4&reports=changed`, 3)).items, 'edge-4')).toEqual(['NodeRegistered', 'report 1', 'report 4']);
  expect(nodeEvents((await listed(`after=${start}&type=NodeReported&reports=changed`, 2)).items, 'edge-4')).toEqual(['report 1', 'report 4']);
  expect(nodeEvents((await listed(`after=${start}&stream_id=node:edge-4&reports=none`, 1)).items, 'edge-4')).toEqual(['NodeRegistered']);
  expect((await list(`after=${start}&type=NodeReported&reports=none`)).body).toEqual({ items: [], next_cursor: null });
});

test.each(['reports=some', 'reports=ALL', 'reports=all&reports=none'])('Issue 19 GET /events and its stream refuse %s with 400 invalid_request', async (query) => {
  for (const path of ['/api/v1/events', '/api/v1/events/stream']) {
    const r = await hub.call('GET', `${path}?${query}`, { token: TOKENS.viewer });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid_request', message: expect.any(String), correlation_id: expect.any(String) });
  }
});

test('Issue 19 the event stream applies the reports filter live, as the list does', async () => {
  const from = await endCursor();
  const streams = {
    default: await openStream(`?after=${from}`),
    changed: await openStream(`?after=${from}&reports=changed`),
    all: await openStream(`?after=${from}&reports=all`),
    none: await openStream(`?after=${from}&reports=none`),
    node: await openStream(`?after=${from}&stream_id=node:edge-2`),
  };
  await reportingNode('edge-2');
  // An operator's event after the reports: once a stream has delivered it, it has passed every report.
  expect((await hub.call('PUT', '/api/v1/nodes/edge-2/labels', { token: TOKENS.operator, body: { labels: { done: 'yes' } } })).status).toBe(200);
  const delivered = async (s: Awaited<ReturnType<typeof openStream>>) => {
    const messages = await eventually(async () => (s.messages.some((m) => m.event === 'NodeLabelsReplaced') ? s.messages.map((m) => m.data) : undefined));
    s.close();
    return nodeEvents(messages, 'edge-2');
  };
  const changed = ['NodeRegistered', 'report 1', 'report 4', 'NodeLabelsReplaced'];
  const every = ['NodeRegistered', 'report 1', 'report 2', 'report 3', 'report 4', 'report 5', 'report 6', 'NodeLabelsReplaced'];
  expect(await delivered(streams.default)).toEqual(changed);
  expect(await delivered(streams.changed)).toEqual(changed);
  expect(await delivered(streams.all)).toEqual(every);
  expect(await delivered(streams.none)).toEqual(['NodeRegistered', 'NodeLabelsReplaced']);
  expect(await delivered(streams.node)).toEqual(every);
});

test('J4 stopping the Hub ends its event streams', async () => {
  const other = await startTestHub(t.url);
  const res = await fetch(`${other.url}/api/v1/events/stream`, { headers: { authorization: `Bearer ${TOKENS.viewer}` } });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  expect((await reader.read()).done).toBe(false); // the opening comment
  await other.stop();
  await expect((async () => {
    for (;;) if ((await reader.read()).done) return 'ended';
  })()).resolves.toBe('ended');
});
