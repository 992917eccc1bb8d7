import { sql, type Kysely } from 'kysely';
import { createTestDatabase, logSettled, type TestDatabase } from '../../../../test/support/database.ts';
import { event } from '../../../../test/support/events.ts';
import { startTestHub } from '../../../../test/support/hub.ts';
import { connect } from '../database/connect.ts';
import type { Tables } from '../database/tables.ts';
import { appendToStream, appendToStreams } from './append.ts';
import { readAll, START } from './read-all.ts';
import { readStream } from './read-stream.ts';
import { keepSegmentsAhead, listSegments, SEGMENT_BOUNDS, type SegmentPolicy } from './segments.ts';
import { verifyChain } from './verify-chain.ts';

const databases: TestDatabase[] = [];
afterAll(() => Promise.all(databases.map((d) => d.drop())));

async function database(): Promise<TestDatabase> {
  const d = await createTestDatabase();
  databases.push(d);
  return d;
}

const HOUR = 3_600_000;
const policy: SegmentPolicy = { ...SEGMENT_BOUNDS, durationMs: HOUR };
const name = (from: number) => `events_${String(from).padStart(19, '0')}`;
/** Moves the position sequence on, as appends would: the next append takes `next`. */
const skipTo = (db: Kysely<Tables>, next: number) => sql`SELECT setval('events_position_seq', ${next - 1})`.execute(db);
const bounds = async (db: Kysely<Tables>) => (await listSegments(db)).map(({ name, from, to, ahead, closed }) => ({ name, from, to, ahead, closed }));

test('a migrated database has two empty segments of 100,000 ahead of its first append', async () => {
  const t = await database();
  expect(await bounds(t.db)).toEqual([
    { name: name(1), from: 1, to: 100_001, ahead: true, closed: false },
    { name: name(100_001), from: 100_001, to: 200_001, ahead: true, closed: false },
  ]);
  expect(await keepSegmentsAhead(t.db, policy, new Date())).toEqual([]);
});

test('new segments span the configured duration at the rate the log grew since the segment before the current one', async () => {
  const t = await database();
  const started = new Date('2026-11-30T10:00:00Z');
  await appendToStream(t.db, 'rate-1', 0, [{ ...event(), recordedAt: started }]);
  // 150,000 positions in the 30 minutes since the first event: 300,000 an hour.
  await skipTo(t.db, 150_000);
  await appendToStream(t.db, 'rate-1', 'any', [event()]);
  const added = await keepSegmentsAhead(t.db, policy, new Date(started.getTime() + HOUR / 2));
  expect(added).toEqual([name(200_001), name(500_001)]);
  expect((await bounds(t.db)).slice(1)).toEqual([
    { name: name(100_001), from: 100_001, to: 200_001, ahead: false, closed: false },
    { name: name(200_001), from: 200_001, to: 500_001, ahead: true, closed: false },
    { name: name(500_001), from: 500_001, to: 800_001, ahead: true, closed: false },
  ]);
  // The first segment: every position handed out, nobody writing: nothing can be added to it any more.
  expect((await bounds(t.db))[0]).toMatchObject({ from: 1, ahead: false, closed: true });

  // Faster than 50 million an hour: the most a segment holds. No recent event at all: the least.
  await skipTo(t.db, 200_001);
  await appendToStream(t.db, 'rate-1', 'any', [{ ...event(), recordedAt: started }]);
  await skipTo(t.db, 700_000);
  await appendToStream(t.db, 'rate-1', 'any', [event()]);
  expect(await keepSegmentsAhead(t.db, policy, new Date(started.getTime() + 1000))).toEqual([name(800_001), name(50_800_001)]);
  await skipTo(t.db, 51_000_000);
  expect(await keepSegmentsAhead(t.db, policy, new Date(started.getTime() + HOUR))).toEqual([name(100_800_001), name(100_900_001)]);
});

test('Hubs keeping segments ahead at the same time add each one once', async () => {
  const t = await database();
  await skipTo(t.db, 100_001);
  await appendToStream(t.db, 'together', 0, [event()]);
  const pools = Array.from({ length: 4 }, () => connect(t.url, { max: 1 }));
  try {
    const added = await Promise.all(pools.map((p) => keepSegmentsAhead(p.db, policy, new Date())));
    expect(added.flat().sort()).toEqual([name(200_001), name(300_001)]);
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
  expect((await listSegments(t.db)).filter((s) => s.ahead)).toHaveLength(2);
});

test('appends cross from one segment into the next; reads, a stream and its chain span both', async () => {
  const t = await database();
  await skipTo(t.db, 99_999);
  const first = await appendToStream(t.db, 'across', 0, [event(), event()]);
  const second = await appendToStreams(t.db, [{ streamId: 'across', expected: 'any', events: [{ ...event(), eventId: undefined }] }]);
  const third = await appendToStream(t.db, 'across', 3, [event()]);
  const positions = [first, second[0]!, third].flatMap((r) => (r.ok ? r.events.map((e) => e.position) : []));
  expect(positions).toEqual([99_999, 100_000, 100_001, 100_002]);
  const { rows } = await sql<{ segment: string }>`SELECT tableoid::regclass::text AS segment FROM events WHERE stream_id = 'across' ORDER BY position`.execute(t.db);
  expect(rows.map((r) => r.segment)).toEqual([name(1), name(1), name(100_001), name(100_001)]);
  expect((await readStream(t.db, 'across')).map((e) => e.streamVersion)).toEqual([1, 2, 3, 4]);
  await logSettled(t.db);
  expect((await readAll(t.db, START, 10, { streamId: 'across' })).events.map((e) => e.position)).toEqual(positions);
  expect(await verifyChain(t.db, 'across')).toEqual([]);
});

test('J2 every segment refuses UPDATE, DELETE and TRUNCATE, one made by the Hub later too, even for its owner; the reader role reads each', async () => {
  const t = await database();
  await skipTo(t.db, 100_001);
  await appendToStream(t.db, 'guarded', 0, [event()]);
  await keepSegmentsAhead(t.db, policy, new Date());
  const segments = await listSegments(t.db);
  expect(segments.map((s) => s.name)).toEqual([name(1), name(100_001), name(200_001), name(300_001)]);
  for (const { name: segment } of segments) {
    const refused = async (statement: string) => {
      const error = await sql.raw(statement).execute(t.db).then(() => null, (e: Error) => e.message);
      return [segment, statement.split(' ')[0], error];
    };
    expect(await refused(`UPDATE ${segment} SET type = 'Edited'`)).toEqual([segment, 'UPDATE', expect.stringMatching(/append-only/)]);
    expect(await refused(`DELETE FROM ${segment}`)).toEqual([segment, 'DELETE', expect.stringMatching(/append-only/)]);
    expect(await refused(`TRUNCATE ${segment}`)).toEqual([segment, 'TRUNCATE', expect.stringMatching(/append-only/)]);
    const read = await t.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL ROLE fleetplane_reader`.execute(trx);
      return (await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(segment)}`.execute(trx)).rows[0]!.n;
    });
    expect([segment, Number(read)]).toEqual([segment, segment === name(100_001) ? 1 : 0]);
  }
  await expect(sql`TRUNCATE events`.execute(t.db)).rejects.toThrow(/append-only/);
  expect((await readStream(t.db, 'guarded')).map((e) => e.type)).toEqual(['Happened']);
});

test('every segment, one made by the Hub later too, leaves the payload columns out of its statistics; the columns plans estimate from are analysed', async () => {
  const t = await database();
  await skipTo(t.db, 100_001);
  await appendToStream(t.db, 'analysed', 0, Array.from({ length: 50 }, () => event()));
  await keepSegmentsAhead(t.db, policy, new Date());
  const targets = await sql<{ segment: string; column: string; target: number | null }>`
    SELECT c.relname AS segment, a.attname AS column, a.attstattarget::int AS target
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_attribute a ON a.attrelid = c.oid
    WHERE i.inhparent = 'events'::regclass AND a.attname IN ('data', 'metadata', 'hash')
    ORDER BY 1, 2`.execute(t.db);
  const segments = (await listSegments(t.db)).map((s) => s.name);
  expect(segments).toHaveLength(4);
  expect(targets.rows).toEqual(segments.flatMap((segment) => ['data', 'hash', 'metadata'].map((column) => ({ segment, column, target: 0 }))));

  await sql`ANALYZE ${sql.table(name(100_001))}`.execute(t.db);
  const analysed = await sql<{ attname: string }>`SELECT attname FROM pg_stats WHERE tablename = ${name(100_001)} ORDER BY attname`.execute(t.db);
  const columns = analysed.rows.map((r) => r.attname);
  expect(columns).toEqual(expect.arrayContaining(['position', 'stream_id', 'type', 'tx_id']));
  expect(columns.filter((c) => ['data', 'metadata', 'hash'].includes(c))).toEqual([]);
});

test('a segment an open transaction has written into is not closed until that transaction ends', async () => {
  const t = await database();
  const writer = await t.db.startTransaction().execute();
  try {
    await appendToStream(writer, 'open-writer', 0, [event()]);
    await skipTo(t.db, 100_001);
    expect((await listSegments(t.db))[0]).toMatchObject({ from: 1, closed: false });
    await writer.commit().execute();
  } finally {
    if (!writer.isCommitted) await writer.rollback().execute();
  }
  expect((await listSegments(t.db))[0]).toMatchObject({ from: 1, closed: true });
});

test('when the sequence has outrun every segment an append fails, and the next check makes room after it', async () => {
  const t = await database();
  await skipTo(t.db, 250_000);
  await expect(appendToStream(t.db, 'outrun', 0, [event()])).rejects.toThrow(/no partition of relation "events" found for row/);
  expect(await keepSegmentsAhead(t.db, policy, new Date())).toEqual([name(250_001), name(350_001)]);
  expect(await appendToStream(t.db, 'outrun', 0, [event()])).toMatchObject({ ok: true, events: [{ position: 250_001 }] });
});

test('a Hub adds segments ahead at start and every few seconds after, and /metrics shows how many are ahead', async () => {
  const t = await database();
  await skipTo(t.db, 150_000);
  const hub = await startTestHub(t.url, { segmentsEveryMs: 100 });
  try {
    const ahead = async () => (await listSegments(t.db)).filter((s) => s.ahead).length;
    // At start, before it serves: the two segments ahead are there.
    expect(await ahead()).toBe(2);
    const metric = async () => /^fleetplane_log_segments_ahead (\d+)$/m.exec((await hub.call('GET', '/metrics')).body)?.[1];
    expect(await metric()).toBe('2');
    // The appends move on through both; the Hub's next check adds two more.
    const last = (await listSegments(t.db)).at(-1)!;
    await skipTo(t.db, last.to);
    expect(await ahead()).toBe(0);
    const deadline = Date.now() + 10_000;
    // Until both say so: an event the Hub appends meanwhile takes the first new segment, and the next check adds one.
    // The readings that ended the wait are the ones asserted: read again, an append in between could take one.
    let seen = { ahead: 0, metric: undefined as string | undefined };
    while (Date.now() < deadline) {
      seen = { ahead: await ahead(), metric: await metric() };
      if (seen.ahead >= 2 && seen.metric === '2') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(seen).toEqual({ ahead: 2, metric: '2' });
  } finally {
    await hub.stop();
  }
});

test('issue 19: segments read while the archiver detaches and drops one leave it out instead of failing (/metrics reads them)', async () => {
  const t = await database();
  let reading = true;
  const failures: string[] = [];
  let reads = 0;
  const reader = (async () => {
    while (reading) {
      await listSegments(t.db).then(
        () => reads++,
        (e: Error) => failures.push(e.message),
      );
    }
  })();
  // Far beyond the log's positions: a segment that comes and goes as an archived one does.
  for (let i = 0; i < 150; i++) {
    await sql.raw(`CREATE TABLE events_leaving PARTITION OF events FOR VALUES FROM (9000000000000) TO (9000000010000)`).execute(t.db);
    await sql.raw('ALTER TABLE events DETACH PARTITION events_leaving').execute(t.db);
    await sql.raw('DROP TABLE events_leaving').execute(t.db);
  }
  reading = false;
  await reader;
  expect(reads).toBeGreaterThan(0);
  expect(failures).toEqual([]);
}, 60_000);
