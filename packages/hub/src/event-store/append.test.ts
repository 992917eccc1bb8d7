import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase, waitingForLocks } from '../../../../test/support/database.ts';
import { event } from '../../../../test/support/events.ts';
import { appendWithCommit, appendQuery, appendToStream, appendToStreams, type AppendedEvent, type StreamAppend } from './append.ts';
import { readStream } from './read-stream.ts';
import { verifyChain } from './verify-chain.ts';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());

/** A stream's chain links, hex, in version order. */
const chain = async (streamId: string) =>
  (await sql<{ prev_hash: string | null; hash: string }>`SELECT prev_hash, hash FROM event_chain WHERE stream_id = ${streamId} ORDER BY stream_version`.execute(t.db)).rows;

const count = async (streamId: string) =>
  Number((await sql<{ n: string }>`SELECT count(*) AS n FROM events WHERE stream_id = ${streamId}`.execute(t.db)).rows[0]!.n);

test('appendQuery calls the append_events function per stream, every stream in one jsonb parameter', () => {
  const compiled = appendQuery([{ streamId: 's-1', expected: 3, events: [event()] }]).compile(t.db);
  expect(compiled.sql).toMatch(/^SELECT [\s\S]* LATERAL append_events\(/);
  expect(compiled.parameters).toHaveLength(1);
  expect(JSON.parse(compiled.parameters[0] as string)).toEqual([expect.objectContaining({ stream_id: 's-1', expected: 3 })]);
});

/** A new event, without an id: the store gives it one. */
const fresh = () => {
  const { eventId: _known, ...e } = event();
  return e;
};

test('appendQuery sends new events, one per stream at any version, through append_new_events; any other append through append_events', () => {
  const sqlOf = (appends: StreamAppend[]) => appendQuery(appends).compile(t.db).sql;
  expect(sqlOf([{ streamId: 'a', expected: 'any', events: [fresh()] }, { streamId: 'b', expected: 'any', events: [fresh()] }])).toMatch(
    /^SELECT \* FROM append_new_events\(/,
  );
  const checked: StreamAppend[][] = [
    [{ streamId: 'a', expected: 0, events: [fresh()] }], // a version to check
    [{ streamId: 'a', expected: 'any', events: [event()] }], // an id that may be stored already
    [{ streamId: 'a', expected: 'any', events: [fresh(), fresh()] }], // an event chained on the one before it
    [{ streamId: 'a', expected: 'any', events: [fresh()] }, { streamId: 'a', expected: 'any', events: [fresh()] }], // a stream twice
  ];
  for (const appends of checked) expect(sqlOf(appends)).toMatch(/^SELECT /);
});

test('J2 new events appended by one INSERT take the next versions and chain on their streams as append_events does', async () => {
  await appendToStream(t.db, 'new-1', 0, [event(), event()]);
  const results = await appendToStreams(t.db, [
    { streamId: 'new-1', expected: 'any', events: [fresh()] },
    { streamId: 'new-2', expected: 'any', events: [fresh()] },
    { streamId: 'new-3', expected: 'any', events: [fresh()] },
  ]);
  const appended = results.map((r) => (r.ok && !r.duplicate ? r.events : []));
  expect(appended.map((events) => events.map((e) => e.streamVersion))).toEqual([[3], [1], [1]]);
  const positions = appended.map((events) => events[0]!.position);
  expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  // The ids the store gave are the ones stored, at those positions.
  const stored = await sql<{ position: number; event_id: string }>`
    SELECT position, event_id FROM events WHERE position = ANY(${positions}) ORDER BY position`.execute(t.db);
  expect(stored.rows).toEqual(appended.map((events) => ({ position: events[0]!.position, event_id: events[0]!.eventId })));
  const rows = await chain('new-1');
  expect(rows[2]!.prev_hash).toBe(rows[1]!.hash);
  for (const id of ['new-1', 'new-2', 'new-3']) expect(await verifyChain(t.db, id)).toEqual([]);
});

test('two appenders of new events racing on a stream: the one that waited on the other chains on its event', async () => {
  await appendToStream(t.db, 'new-race', 0, [event()]);
  const first = await t.db.startTransaction().execute();
  const second = await t.db.startTransaction().execute();
  try {
    expect(await appendToStream(first, 'new-race', 'any', [fresh()])).toMatchObject({ ok: true, events: [{ streamVersion: 2 }] });
    // The second waits on the stream's head, which the first holds until it commits; then reads it again.
    const racing = appendToStream(second, 'new-race', 'any', [fresh()]);
    await waitingForLocks(t.db);
    await first.commit().execute();
    expect(await racing).toMatchObject({ ok: true, events: [{ streamVersion: 3 }] });
    await second.commit().execute();
  } finally {
    if (!second.isCommitted) await second.rollback().execute();
  }
  expect(await count('new-race')).toBe(3);
  expect(await verifyChain(t.db, 'new-race')).toEqual([]);
});

test('J2 two transactions creating a stream with new events at once: the one that waited is refused and writes nothing', async () => {
  const first = await t.db.startTransaction().execute();
  const second = await t.db.startTransaction().execute();
  try {
    expect(await appendToStream(first, 'new-created', 'any', [fresh()])).toMatchObject({ ok: true, events: [{ streamVersion: 1 }] });
    const racing = appendToStream(second, 'new-created', 'any', [fresh()]);
    await waitingForLocks(t.db);
    await first.commit().execute();
    expect(await racing).toEqual({ ok: false, error: { type: 'wrong_expected_version', streamId: 'new-created', expected: 'any', actual: null } });
  } finally {
    await second.rollback().execute();
  }
  expect(await count('new-created')).toBe(1);
});

test('appends nothing can refuse go with the commit: stored and chained in the transaction, placed once it commits', async () => {
  await appendToStream(t.db, 'with-commit-1', 0, [event()]);
  let placed: Promise<AppendedEvent[]> | undefined;
  let before = -1;
  await t.db.transaction().execute(async (trx) => {
    ({ events: placed } = await appendWithCommit(trx, [
      { streamId: 'with-commit-1', expected: 'any', events: [fresh()] },
      { streamId: 'with-commit-2', expected: 'any', events: [fresh()] },
    ]));
    // A later statement of the transaction sends the append first (database/connection.ts), and sees it.
    before = Number((await sql<{ n: string }>`SELECT count(*) AS n FROM events WHERE stream_id LIKE 'with-commit-%'`.execute(trx)).rows[0]!.n);
    // Several events to one stream go by the checked function, with the commit all the same.
    ({ events: placed } = await appendWithCommit(trx, [
      { streamId: 'with-commit-1', expected: 'any', events: [fresh()] },
      { streamId: 'with-commit-3', expected: 'any', events: [fresh(), fresh()] },
    ]));
  });
  expect(before).toBe(3);
  const events = await placed!;
  expect(events.map((e) => e.streamVersion)).toEqual([3, 1, 2]);
  expect(events.map((e) => e.position)).toEqual([...events.map((e) => e.position)].sort((a, b) => a - b));
  const stored = await sql<{ position: number; event_id: string }>`
    SELECT position, event_id FROM events WHERE stream_id LIKE 'with-commit-%' AND position = ANY(${events.map((e) => e.position)}) ORDER BY position`.execute(t.db);
  expect(stored.rows).toEqual(events.map((e) => ({ position: e.position, event_id: e.eventId })));
  for (const id of ['with-commit-1', 'with-commit-2', 'with-commit-3']) expect(await verifyChain(t.db, id)).toEqual([]);
  for (const refusable of [{ streamId: 'x', expected: 0, events: [fresh()] }, { streamId: 'x', expected: 'any' as const, events: [event()] }]) {
    await expect(t.db.transaction().execute((trx) => appendWithCommit(trx, [refusable]))).rejects.toThrow(/at any version of new events only/);
  }
});

test('one call appends to many streams, each checked and chained on its own; a refused stream writes nothing', async () => {
  await appendToStream(t.db, 'multi-2', 0, [event()]);
  const replayed = [event()];
  await appendToStream(t.db, 'multi-4', 0, replayed);
  const results = await appendToStreams(t.db, [
    { streamId: 'multi-1', expected: 0, events: [event(), event()] },
    { streamId: 'multi-2', expected: 0, events: [event()] },
    { streamId: 'multi-3', expected: 'any', events: [] },
    { streamId: 'multi-4', expected: 0, events: replayed },
    { streamId: 'multi-1', expected: 2, events: [event()] },
  ]);
  expect(results.map((r) => (r.ok ? r.events.map((e) => e.streamVersion) : r.error.type))).toEqual([
    [1, 2],
    'wrong_expected_version',
    [],
    [1],
    [3],
  ]);
  expect(results[3]).toMatchObject({ ok: true, duplicate: true });
  expect(await count('multi-1')).toBe(3);
  expect(await count('multi-2')).toBe(1);
  const rows = await chain('multi-1');
  expect(rows.map((r) => r.prev_hash)).toEqual([null, rows[0]!.hash, rows[1]!.hash]);
});

test('appends give consecutive stream versions and increasing global positions', async () => {
  const r1 = await appendToStream(t.db, 'order-1', 0, [event(), event()]);
  const r2 = await appendToStream(t.db, 'order-1', 2, [event()]);
  expect(r1.ok && r2.ok).toBe(true);
  if (!r1.ok || !r2.ok) return;
  expect([...r1.events, ...r2.events].map((e) => e.streamVersion)).toEqual([1, 2, 3]);
  const positions = [...r1.events, ...r2.events].map((e) => e.position);
  expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  expect((await readStream(t.db, 'order-1')).map((e) => e.streamVersion)).toEqual([1, 2, 3]);
});

test('a wrong expected version is a typed concurrency error and writes nothing', async () => {
  await appendToStream(t.db, 'order-2', 0, [event()]);
  const r = await appendToStream(t.db, 'order-2', 0, [event(), event()]);
  expect(r).toEqual({ ok: false, error: { type: 'wrong_expected_version', streamId: 'order-2', expected: 0, actual: 1 } });
  expect(await count('order-2')).toBe(1);
});

test('re-appending known event ids is a no-op that returns the original positions', async () => {
  const batch = [event(), event()];
  const first = await appendToStream(t.db, 'order-3', 0, batch);
  const again = await appendToStream(t.db, 'order-3', 0, batch);
  expect(first.ok && again.ok).toBe(true);
  if (!first.ok || !again.ok) return;
  expect(again.duplicate).toBe(true);
  expect(again.events).toEqual(first.events);
  expect(await count('order-3')).toBe(2);
});

test('a batch mixing known and new event ids is refused and writes nothing', async () => {
  const known = event();
  await appendToStream(t.db, 'order-4', 'any', [known]);
  const r = await appendToStream(t.db, 'order-4', 'any', [known, event()]);
  expect(r).toEqual({ ok: false, error: { type: 'event_id_conflict', streamId: 'order-4' } });
  expect(await count('order-4')).toBe(1);
});

test('a batch whose first event is new and a later one known is refused and writes nothing', async () => {
  const known = event();
  await appendToStream(t.db, 'order-4b', 'any', [known]);
  const r = await appendToStream(t.db, 'order-4b', 'any', [event(), known]);
  expect(r).toEqual({ ok: false, error: { type: 'event_id_conflict', streamId: 'order-4b' } });
  expect(await count('order-4b')).toBe(1);
});

test('an event id known on another stream is a conflict, not a duplicate', async () => {
  const known = event();
  await appendToStream(t.db, 'order-4c', 'any', [known]);
  expect(await appendToStream(t.db, 'order-4d', 'any', [known])).toEqual({
    ok: false,
    error: { type: 'event_id_conflict', streamId: 'order-4d' },
  });
});

test('a replay with a stale expected version is still recognised as a replay', async () => {
  const batch = [event()];
  const first = await appendToStream(t.db, 'order-4e', 0, batch);
  await appendToStream(t.db, 'order-4e', 1, [event()]);
  const again = await appendToStream(t.db, 'order-4e', 0, batch);
  expect(again).toEqual({ ok: true, duplicate: true, events: first.ok ? first.events : [] });
});

test('two appenders racing for the same version: one wins, the other gets a concurrency error', async () => {
  await appendToStream(t.db, 'order-5', 0, [event()]);
  const results = await Promise.all(
    [1, 2].map(async () => {
      const trx = await t.db.startTransaction().execute();
      const r = await appendToStream(trx, 'order-5', 1, [event()]);
      if (!r.ok) {
        // A loser that hit the winner's row has an aborted transaction: it can only roll back.
        await trx.rollback().execute();
        return r;
      }
      await sql`SELECT pg_sleep(0.05)`.execute(trx); // hold the winning row uncommitted a moment
      await trx.commit().execute();
      return r;
    }),
  );
  // Whether the loser blocked on the winner's uncommitted row or ran after its commit, it is refused.
  expect(results.filter((r) => r.ok)).toHaveLength(1);
  expect(results.filter((r) => !r.ok)).toEqual([
    { ok: false, error: expect.objectContaining({ type: 'wrong_expected_version', streamId: 'order-5', expected: 1 }) },
  ]);
  expect(await count('order-5')).toBe(2);
});

test('J2 the events table refuses UPDATE, DELETE and TRUNCATE, even for its owner', async () => {
  await appendToStream(t.db, 'order-6', 0, [event()]);
  await expect(sql`UPDATE events SET type = 'Edited' WHERE stream_id = 'order-6'`.execute(t.db)).rejects.toThrow(/append-only/);
  await expect(sql`DELETE FROM events WHERE stream_id = 'order-6'`.execute(t.db)).rejects.toThrow(/append-only/);
  await expect(sql`TRUNCATE events`.execute(t.db)).rejects.toThrow(/append-only/);
  expect((await readStream(t.db, 'order-6')).map((e) => e.type)).toEqual(['Happened']);
});

test('J2 every event\'s hash covers its predecessor\'s hash in the stream: SQL recomputes it from event_chain', async () => {
  await appendToStream(t.db, 'order-7', 0, [event(), event(), event()]);
  const { rows } = await sql<{ prev_hash: string | null; hash: string; recomputed: string }>`
    SELECT prev_hash, hash, encode(event_hash(decode(prev_hash, 'hex'), stream_id, stream_version, event_id, type, schema_version, data, metadata, recorded_at), 'hex') AS recomputed
    FROM event_chain WHERE stream_id = 'order-7' ORDER BY stream_version`.execute(t.db);
  expect(rows.map((r) => r.prev_hash)).toEqual([null, rows[0]!.hash, rows[1]!.hash]);
  expect(rows.map((r) => r.recomputed)).toEqual(rows.map((r) => r.hash));
  expect(new Set(rows.map((r) => r.hash)).size).toBe(3);
});
