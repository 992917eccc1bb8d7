import { sql, type Kysely } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { at, event } from '../../../../test/support/events.ts';
import type { Tables } from '../database/tables.ts';
import { appendToStream, type EventToAppend } from './append.ts';
import { decodeCursor, encodeCursor, readAll, START, type LogCursor } from './read-all.ts';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());


const appended = async (db: Kysely<Tables>, streamId: string, events: EventToAppend[]) => {
  const r = await appendToStream(db, streamId, 'any', events);
  if (!r.ok) throw new Error(`append to ${streamId} failed: ${JSON.stringify(r.error)}`);
  return r.events;
};

const appendedOne = async (db: Kysely<Tables>, streamId: string, type: string): Promise<number> =>
  (await appended(db, streamId, [event(type)]))[0]!.position;

/**
 * The horizon readAll reads below is cluster-wide: a transaction of another test file running in parallel
 * holds it back for a moment. Waits until every event committed in this database is below it.
 */
async function settled(): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { rows } = await sql<{ below: boolean }>`
      SELECT coalesce((SELECT tx_id FROM events ORDER BY tx_id DESC LIMIT 1) < pg_snapshot_xmin(pg_current_snapshot()), true) AS below`.execute(t.db);
    if (rows[0]!.below) return;
    if (Date.now() > deadline) throw new Error('events stayed above the snapshot horizon for 10 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Pages with readAll until a page comes back empty; returns every event read and the final cursor. */
async function readToEnd(after: LogCursor, limit = 500) {
  const positions: number[] = [];
  let cursor = after;
  for (;;) {
    const page = await readAll(t.db, cursor, limit);
    if (page.events.length === 0) {
      expect(page.cursor).toEqual(cursor);
      return { positions, cursor };
    }
    expect(page.events.length).toBeLessThanOrEqual(limit);
    positions.push(...page.events.map((e) => e.position));
    cursor = page.cursor;
  }
}

/** What a reader paging by position alone would do: the bug readAll exists to avoid. */
async function naiveRead(afterPosition: number): Promise<number[]> {
  const { rows } = await sql<{ position: number }>`
    SELECT position FROM events WHERE position > ${afterPosition}::bigint ORDER BY position`.execute(t.db);
  return rows.map((r) => r.position);
}

const logOrder = async (): Promise<number[]> =>
  (await sql<{ position: number }>`SELECT position FROM events ORDER BY tx_id, position`.execute(t.db)).rows.map((r) => r.position);

test('paging with the cursor returns every event exactly once, in (tx_id, position) order', async () => {
  await settled();
  const earlier = (await logOrder()).length; // the events the other tests of this file appended
  await appended(t.db, 'page-a', [event(), event(), event(), event(), event()]);
  await appended(t.db, 'page-b', [event()]);
  await t.db.transaction().execute(async (trx) => {
    await appended(trx, 'page-c', [event(), event()]);
    await appended(trx, 'page-a', [event()]);
  });
  // Two transactions whose id order is the reverse of their position order.
  const first = await t.db.startTransaction().execute();
  const second = await t.db.startTransaction().execute();
  try {
    await sql`SELECT pg_current_xact_id()`.execute(first);
    await appended(second, 'page-d', [event(), event()]);
    await appended(first, 'page-e', [event(), event()]);
    await second.commit().execute();
    await first.commit().execute();
  } finally {
    for (const trx of [first, second]) if (!trx.isCommitted && !trx.isRolledBack) await trx.rollback().execute();
  }
  await appended(t.db, 'page-b', [event(), event(), event()]);
  await settled();

  const all = await logOrder();
  expect(all).toHaveLength(earlier + 16);
  expect(all).not.toEqual([...all].sort((a, b) => a - b)); // the log order is not the position order
  for (const limit of [1, 2, 3, 5, 500]) {
    const { positions, cursor } = await readToEnd(START, limit);
    expect(positions).toEqual(all);
    expect(new Set(positions).size).toBe(positions.length);
    expect(cursor.position).toBe(all.at(-1));
  }

  const page = await readAll(t.db, START, 4);
  const rest = await readToEnd(page.cursor, 3);
  expect([...page.events.map((e) => e.position), ...rest.positions]).toEqual(all);
});

test('readAll returns whole recorded events, each with its cursor, and a cursor naming the last one', async () => {
  const e = event('Described', { size: 3, tags: ['x'] });
  const { cursor: before } = await readToEnd(START);
  const [stored] = await appended(t.db, 'describe-1', [e]);
  await settled();
  const page = await readAll(t.db, before);
  expect(page.events).toEqual([
    {
      position: stored!.position,
      streamId: 'describe-1',
      streamVersion: 1,
      eventId: e.eventId,
      type: 'Described',
      schemaVersion: 1,
      data: { size: 3, tags: ['x'] },
      metadata: e.metadata,
      recordedAt: at,
      cursor: page.cursor,
    },
  ]);
  const { rows } = await sql<{ tx_id: string }>`SELECT tx_id::text FROM events WHERE position = ${stored!.position}`.execute(t.db);
  expect(page.cursor).toEqual({ txId: rows[0]!.tx_id, position: stored!.position });
});

test('encodeCursor and decodeCursor round trip', async () => {
  await appended(t.db, 'round-trip', [event()]);
  await settled();
  const { cursor } = await readToEnd(START);
  expect(cursor.position).toBeGreaterThan(0);
  for (const c of [START, cursor, { txId: '12345', position: 42 }, { txId: '18446744073709551615', position: Number.MAX_SAFE_INTEGER }]) {
    const text = encodeCursor(c);
    expect(text).toMatch(/^\d+-\d+$/);
    expect(decodeCursor(text)).toEqual(c);
  }
  expect(encodeCursor(START)).toBe('0-0');
});

test('decodeCursor rejects garbage, and every cursor it accepts can be read from', async () => {
  const garbage = [
    '', '-', '12', '12-', '-12', '12-34-56', '-12-34', 'a-1', '1-a', '1.5-2', '1-2.5', '0x10-1', '1e3-1', '+1-2',
    ' 1-2', '1-2 ', '1-2\n', '1_2', '1 2', '１-２', '123456789012345678901-1', '1-12345678901234567890',
    // outside xid8 (2^64 and up) or outside the integers a JS number holds exactly (bigint positions)
    '18446744073709551616-1', '99999999999999999999-1', '1-9007199254740993', '1-9223372036854775807', '1-9999999999999999999',
  ];
  for (const text of garbage) expect([text, decodeCursor(text)]).toEqual([text, null]);

  for (const text of ['0-0', '18446744073709551615-9007199254740991', '7-3']) {
    const c = decodeCursor(text);
    expect(c).not.toBeNull();
    await expect(readAll(t.db, c!)).resolves.toEqual(expect.objectContaining({ events: expect.any(Array) }));
  }
});

test('J4 an event whose smaller position commits last is read in its turn, never skipped', async () => {
  await settled();
  const { cursor: start } = await readToEnd(START);

  const slow = await t.db.startTransaction().execute();
  const fast = await t.db.startTransaction().execute();
  let small: number, big: number, cursor: LogCursor;
  try {
    small = await appendedOne(slow, 'j4-slow', 'Slow');
    big = await appendedOne(fast, 'j4-fast', 'Fast');
    expect(small).toBeLessThan(big);
    await fast.commit().execute();

    // The fast event is committed and visible to a plain SELECT, but the slow one's transaction is still open.
    const naive = await naiveRead(start.position);
    expect(naive).toEqual([big]); // a reader paging by position would move its cursor past `small` here

    const during = await readAll(t.db, start);
    expect(during.events.map((e) => e.position)).not.toContain(big);
    expect(during.events).toEqual([]);
    expect(during.cursor).toEqual(start);
    cursor = during.cursor;

    await slow.commit().execute();
  } finally {
    for (const trx of [slow, fast]) if (!trx.isCommitted && !trx.isRolledBack) await trx.rollback().execute();
  }
  await settled();

  const after = await readToEnd(cursor);
  expect(after.positions).toEqual([small, big]);
  // The naive reader, continuing from where it was, never sees the slow event.
  expect(await naiveRead(big)).toEqual([]);
  expect(await naiveRead(start.position)).toEqual([small, big]);
});

test('J4 an event committed earlier with a bigger position is read first, and the smaller one still follows', async () => {
  await settled();
  const { cursor: start } = await readToEnd(START);

  // `early` takes its transaction id first but its position last; `late` the other way round, and commits last.
  const early = await t.db.startTransaction().execute();
  const late = await t.db.startTransaction().execute();
  let small: number, big: number, during: LogCursor;
  try {
    await sql`SELECT pg_current_xact_id()`.execute(early);
    small = await appendedOne(late, 'j4-late', 'Late');
    big = await appendedOne(early, 'j4-early', 'Early');
    expect(small).toBeLessThan(big);
    await early.commit().execute();

    expect(await naiveRead(start.position)).toEqual([big]);
    // Only `late` (and perhaps, for a moment, another test file's transaction) is still running:
    // `early` is below the horizon as soon as those others end, `late` is not.
    const deadline = Date.now() + 10_000;
    let page = await readAll(t.db, start);
    while (page.events.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      page = await readAll(t.db, start);
    }
    expect(page.events.map((e) => e.position)).toEqual([big]);
    during = page.cursor;

    await late.commit().execute();
  } finally {
    for (const trx of [early, late]) if (!trx.isCommitted && !trx.isRolledBack) await trx.rollback().execute();
  }
  await settled();

  expect((await readToEnd(during)).positions).toEqual([small]);
  expect(await naiveRead(big)).toEqual([]);
});
