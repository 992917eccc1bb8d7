import { randomUUID } from 'node:crypto';
import type { RecordedEvent } from '@fleetplane/core';
import { sql, type Kysely } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { at, event } from '../../../../test/support/events.ts';
import { freePort } from '../../../../test/support/ports.ts';
import { connect } from '../database/connect.ts';
import type { Tables } from '../database/tables.ts';
import { databaseUnavailability } from '../database/unavailable.ts';
import { appendToStream, type EventToAppend } from './append.ts';
import { listenForAppends, type Appends } from './appends.ts';
import { follow, type Follower, type FollowOptions } from './follow.ts';
import { eventsNotifier } from './notify.ts';
import { readAll, START, type LogCursor } from './read-all.ts';

let t: TestDatabase;
/** The one listener of every follower here, as a Hub has; its errors are the lost connections. */
let appends: Appends;
const channelErrors: Error[] = [];
const followers: Follower[] = [];
beforeAll(async () => {
  // An event appended with plain SQL carries no valid hash.
  t = await createTestDatabase({ tampered: true });
  appends = await listenForAppends(t.url, (e) => channelErrors.push(e));
});
afterAll(async () => {
  await Promise.all(followers.map((f) => f.stop()));
  await appends.stop();
  await t.drop();
});


const appended = async (streamId: string, events: EventToAppend[]) => {
  const r = await appendToStream(t.db, streamId, 'any', events);
  if (!r.ok) throw new Error(`append to ${streamId} failed: ${JSON.stringify(r.error)}`);
  return r.events.map((e) => e.position);
};

/** Resolves once `check` holds; `poke` re-checks. For waiting on callbacks without sleeping. */
function condition() {
  const waiting: { check(): boolean; resolve(): void }[] = [];
  return {
    until(check: () => boolean): Promise<void> {
      if (check()) return Promise.resolve();
      return new Promise((resolve) => waiting.push({ check, resolve }));
    },
    poke() {
      for (const w of [...waiting]) {
        if (w.check()) {
          waiting.splice(waiting.indexOf(w), 1);
          w.resolve();
        }
      }
    },
  };
}

/** A follower's onEvents that records every batch, and lets a test wait for events by id. */
function recorder() {
  const batches: { positions: number[]; cursor: LogCursor }[] = [];
  const events: RecordedEvent[] = [];
  const changed = condition();
  return {
    batches,
    events,
    onEvents(batch: RecordedEvent[], cursor: LogCursor) {
      batches.push({ positions: batch.map((e) => e.position), cursor });
      events.push(...batch);
      changed.poke();
    },
    received(eventIds: string[]): Promise<void> {
      return changed.until(() => eventIds.every((id) => events.some((e) => e.eventId === id)));
    },
    receivedWhere(match: (e: RecordedEvent) => boolean): Promise<void> {
      return changed.until(() => events.some(match));
    },
  };
}

/** The test database seen through a plugin that counts the follower's completed reads. */
function countingDb() {
  let reads = 0;
  const changed = condition();
  const db: Kysely<Tables> = t.db.withPlugin({
    transformQuery: (args) => args.node,
    async transformResult(args) {
      reads += 1;
      changed.poke();
      return args.result;
    },
  });
  return {
    db,
    get reads() {
      return reads;
    },
    /** Resolves after the n-th read returned; the follower then goes to sleep unless woken. */
    readsDone: (n: number) => changed.until(() => reads >= n),
  };
}

async function start(db: Kysely<Tables>, options: FollowOptions): Promise<Follower> {
  const f = follow(db, appends, options);
  followers.push(f);
  return f;
}

async function stop(f: Follower): Promise<void> {
  followers.splice(followers.indexOf(f), 1);
  await f.stop();
}

/**
 * The horizon readAll reads below is cluster-wide: a transaction of another test file running in parallel
 * holds it back for a moment. Waits until every event committed in this database is below it, so that a
 * read after this returns them.
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

/** The cursor after everything committed so far. */
async function end(): Promise<LogCursor> {
  await settled();
  let cursor = START;
  for (;;) {
    const page = await readAll(t.db, cursor);
    if (page.events.length === 0) return cursor;
    cursor = page.cursor;
  }
}

const listeners = async (): Promise<number> =>
  Number(
    (await sql<{ n: string }>`SELECT count(*) AS n FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = 'fleetplane-follow'`.execute(t.db)).rows[0]!.n,
  );

test('a follower sleeping on a long poll is woken by NOTIFY and gets the appended events', async () => {
  const counted = countingDb();
  const seen = recorder();
  const errors: unknown[] = [];
  await start(counted.db, { after: await end(), pollMs: 60_000, onEvents: seen.onEvents, onError: (e) => errors.push(e) });
  await counted.readsDone(1); // found nothing, now asleep for a minute

  const batch = [event('Woken'), event('Woken')];
  const positions = await appended('wake-1', batch);
  await settled();
  eventsNotifier(t.pool)();

  await seen.received(batch.map((e) => e.eventId)); // within the jest timeout, far below pollMs
  expect(counted.reads).toBe(2); // the one read after the wake-up, not a busy loop
  expect(seen.events.map((e) => e.position)).toEqual(positions);
  expect(seen.batches).toHaveLength(1);
  expect(errors).toEqual([]);
}, 15_000);

test('several notifications sent at once wake a follower, which delivers every event once', async () => {
  const counted = countingDb();
  const seen = recorder();
  await start(counted.db, { after: await end(), pollMs: 60_000, onEvents: seen.onEvents });
  await counted.readsDone(1);

  const notify = eventsNotifier(t.pool);
  const batches = [[event()], [event(), event()], [event()]];
  for (const [i, b] of batches.entries()) {
    await appended(`wake-many-${i}`, b);
    notify();
  }
  await settled();
  notify(); // the last append's events are surely below the horizon now

  const ids = batches.flat().map((e) => e.eventId);
  await seen.received(ids);
  expect(seen.events.map((e) => e.eventId)).toEqual(ids);
}, 15_000);

test('without a notification a follower still finds appended events by polling', async () => {
  const seen = recorder();
  await start(t.db, { after: await end(), pollMs: 25, onEvents: seen.onEvents });

  const batch = [event('Polled'), event('Polled'), event('Polled')];
  const positions = await appended('poll-1', batch);
  await sql`INSERT INTO events (stream_id, stream_version, event_id, type, data, metadata, recorded_at, hash)
    VALUES ('poll-plain-sql', 1, ${randomUUID()}, 'Plain', '{}', '{}', now(), 'x')`.execute(t.db); // no NOTIFY either

  await seen.received(batch.map((e) => e.eventId));
  await seen.receivedWhere((e) => e.type === 'Plain');
  expect(seen.events.map((e) => e.position).slice(0, 3)).toEqual(positions);
  expect(seen.events.map((e) => e.type)).toEqual(['Polled', 'Polled', 'Polled', 'Plain']);
}, 15_000);

test('events are handed over in batches from the given cursor, and the cursor moves after each batch', async () => {
  const before = await appended('batch-old', [event('Old'), event('Old')]);
  const after = await end();
  const batch = [event('New'), event('New'), event('New'), event('New'), event('New')];
  const positions = await appended('batch-new', batch);
  await settled();

  const cursors: LogCursor[] = [];
  let follower: Follower | undefined;
  const seen = recorder();
  follower = await start(t.db, {
    after,
    pollMs: 60_000,
    batchSize: 2,
    onEvents(events, cursor) {
      cursors.push(follower?.cursor ?? after); // still the previous batch's cursor while onEvents runs
      seen.onEvents(events, cursor);
    },
  });
  await seen.received(batch.map((e) => e.eventId));

  expect(seen.events.map((e) => e.position)).toEqual(positions);
  expect(seen.events.map((e) => e.position)).not.toContain(before[0]);
  expect(seen.batches.map((b) => b.positions)).toEqual([positions.slice(0, 2), positions.slice(2, 4), positions.slice(4)]);
  expect(cursors).toEqual([after, seen.batches[0]!.cursor, seen.batches[1]!.cursor]);
  expect(seen.batches.map((b) => b.cursor.position)).toEqual([positions[1], positions[3], positions[4]]);
}, 15_000);

test('a batch whose onEvents throws is reported and handed over again: the cursor does not move past it', async () => {
  const after = await end();
  const batch = [event('Retried')];
  const [position] = await appended('retry-1', batch);
  await settled();

  const errors: unknown[] = [];
  const seen = recorder();
  let attempts = 0;
  const f = await start(t.db, {
    after,
    pollMs: 20,
    onEvents(events, cursor) {
      attempts += 1;
      if (attempts < 3) throw new Error(`handler failed ${attempts}`);
      seen.onEvents(events, cursor);
    },
    onError: (e) => errors.push(e),
  });
  await seen.received(batch.map((e) => e.eventId));

  expect(errors.map((e) => (e as Error).message)).toEqual(['handler failed 1', 'handler failed 2']);
  expect(seen.batches).toEqual([{ positions: [position], cursor: expect.objectContaining({ position }) }]);
  await new Promise((resolve) => setImmediate(resolve)); // the follower moves its cursor once onEvents has returned
  expect(f.cursor.position).toBe(position);
}, 15_000);

test('a read that keeps failing (the database away) is reported once, not at every poll', async () => {
  const away = connect(`postgres://postgres@127.0.0.1:${await freePort()}/away`, { max: 1 });
  const errors: unknown[] = [];
  const f = follow(away.db, appends, { after: START, pollMs: 20, onEvents: () => {}, onError: (e) => errors.push(e) });
  try {
    await new Promise((resolve) => setTimeout(resolve, 500)); // a poll every 20 ms, each read refused
    expect(errors).toHaveLength(1);
    expect(databaseUnavailability(errors[0])).not.toBeNull();
  } finally {
    await f.stop();
    await away.close();
  }
});

test('followers hold no connection of their own: one listener wakes them all', async () => {
  const listening = await listeners();
  expect(listening).toBe(1);
  const seen = [recorder(), recorder(), recorder()];
  for (const r of seen) await start(t.db, { after: await end(), pollMs: 60_000, onEvents: r.onEvents });
  expect(await listeners()).toBe(listening);

  const batch = [event('WokeAll')];
  await appended('wake-all', batch);
  await settled();
  eventsNotifier(t.pool)();
  for (const r of seen) await r.received(batch.map((e) => e.eventId)); // within the jest timeout, far below pollMs
}, 15_000);

test('followers at the same place read the log once between them at a wake-up, not once each', async () => {
  // Every open console page is a follower at the log's end: each append wakes them all at once.
  const counted = countingDb();
  const seen = Array.from({ length: 10 }, () => recorder());
  const from = await end();
  for (const r of seen) await start(counted.db, { after: from, pollMs: 60_000, onEvents: r.onEvents });
  await counted.readsDone(1); // their first look, together: nothing yet
  await new Promise((resolve) => setTimeout(resolve, 100)); // all asleep
  const before = counted.reads;

  const batch = [event('WokeTogether')];
  await appended('wake-together', batch);
  await settled();
  eventsNotifier(t.pool)();
  for (const r of seen) await r.received(batch.map((e) => e.eventId));
  await new Promise((resolve) => setTimeout(resolve, 200)); // each follower's look after the batch
  // The page with the event, and the empty one after it: twice, whatever the number of followers.
  expect(counted.reads - before).toBeLessThanOrEqual(2);
}, 15_000);

test('stop() ends a sleeping follower, which then takes no more wake-ups', async () => {
  const counted = countingDb();
  const seen = recorder();
  const f = await start(counted.db, { after: await end(), pollMs: 60_000, onEvents: seen.onEvents });
  await counted.readsDone(1);

  await stop(f); // resolves within the jest timeout although the follower was asleep for a minute
  const cursor = f.cursor;

  // A second follower witnesses that an event was appended and announced after the stop.
  const witness = recorder();
  const w = await start(t.db, { after: cursor, pollMs: 60_000, onEvents: witness.onEvents });
  const batch = [event('AfterStop')];
  await appended('stop-1', batch);
  await settled();
  eventsNotifier(t.pool)();
  await witness.received(batch.map((e) => e.eventId));
  await stop(w);

  expect(seen.events).toEqual([]);
  expect(f.cursor).toEqual(cursor);
  expect(counted.reads).toBe(1);
}, 15_000);

test('followers whose LISTEN connection is lost (a server restart, a terminated backend) listen again and are woken by NOTIFY', async () => {
  const seen = recorder();
  const listening = async () =>
    (await sql<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'fleetplane-follow' AND query LIKE 'LISTEN%'`.execute(t.db)).rows.map(
      (r) => r.pid,
    );
  await start(t.db, { after: await end(), pollMs: 60_000, onEvents: seen.onEvents });
  const [ours] = await listening();
  const lost = channelErrors.length;
  await sql`SELECT pg_terminate_backend(${ours!})`.execute(t.db);
  // A new session listens (within the relisten delay), and a notification sent to it wakes the follower.
  for (;;) {
    const now = await listening();
    if (now.length === 1 && now[0] !== ours) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const batch = [event('AfterRelisten')];
  await appended('relisten-1', batch);
  await settled();
  eventsNotifier(t.pool)();
  await seen.received(batch.map((e) => e.eventId)); // within the jest timeout, far below pollMs
  expect(channelErrors.length).toBeGreaterThan(lost);
}, 15_000);
