import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { archiveStream } from '@fleetplane/core';
import { sql, type Kysely } from 'kysely';
import { archivedHistoryProblems } from '../../../../test/support/archive.ts';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { at, event } from '../../../../test/support/events.ts';
import { eventually } from '../../../../test/support/fleet.ts';
import { refusal } from '../../../../test/support/refusal.ts';
import { TEST_BUCKET, TestS3Server } from '../../../../test/support/s3.ts';
import { useSmallSegments } from '../../../../test/support/segments.ts';
import type { ArchiveError } from '../archive/archive-error.ts';
import type { Destination } from '../archive/destination.ts';
import { openDestination, parseDestination } from '../archive/destination-url.ts';
import type { Clock } from '../clock.ts';
import { createPipeline } from '../commands/pipeline.ts';
import { connect } from '../database/connect.ts';
import type { Tables } from '../database/tables.ts';
import { appendToStream } from '../event-store/append.ts';
import { listSegments } from '../event-store/segments.ts';
import { createLogger } from '../logger.ts';
import { allProjections } from '../projections/all.ts';
import { archiveDueSegments, type ArchiveDeps, type ArchiveStep } from './archive-segments.ts';
import { startArchiver } from './archiver.ts';
import { exportSegment } from './export-segment.ts';
import { planSegments } from './plan.ts';
import { recordedSegment, recordSegmentArchived } from './record.ts';

// Issue 19, faults: a run of the archiver stopped at any step, as a crash would stop it, loses nothing; the
// next run finishes or redoes what was left, and records every segment once.
const HOUR = 3_600_000;
/** Two hours after the test events were recorded: all of them are past an hour's retention. */
const clock: Clock = { now: () => new Date(at.getTime() + 2 * HOUR) };
const SEGMENT = 20;
let scratch: string;
let s3: TestS3Server;
const databases: TestDatabase[] = [];
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'fleetplane-archive-crash-'));
  s3 = await TestS3Server.start(scratch);
});
afterAll(async () => {
  await Promise.all(databases.map((d) => d.drop()));
  await s3.close();
  await rm(scratch, { recursive: true, force: true });
});

let runs = 0;
/**
 * A database whose log is 7 segments of 20 positions, the first 6 full (120 events of 3 streams, recorded two
 * hours ago), and what the archiver needs, with a fresh archive directory. No Hub adds segments ahead.
 * Each is proved at the end as `fleetplane verify` proves a log, but one a test breaks on purpose (`tampered`).
 */
async function setUp(options: { destination?: Destination; tampered?: boolean } = {}): Promise<ArchiveDeps & { t: TestDatabase }> {
  const t = await createTestDatabase({ tampered: options.tampered ?? false });
  databases.push(t);
  await useSmallSegments(t.db, SEGMENT, 7);
  for (let i = 0; i < 6 * SEGMENT; i++) {
    const stream = `crash-${'abc'[i % 3]}`;
    expect((await appendToStream(t.db, stream, 'any', [event('Happened', { n: i, note: i % 7 === 0 ? 'seventh' : null })])).ok).toBe(true);
  }
  const db = t.db;
  return {
    t,
    db,
    pipeline: createPipeline({ db, boss: null, clock, projections: allProjections }),
    destination: options.destination ?? openDestination(parseDestination(join(scratch, `archive-${++runs}`))),
    policy: { hotRetentionMs: HOUR, hotMaxBytes: null },
    projections: allProjections,
    clock,
    logger: createLogger('error', true),
  };
}

/** A destination that is `real` but for its writes, which go through `put`. */
const puttingThrough = (real: Destination, put: Destination['put']): Destination => ({
  url: real.url,
  put,
  get: (name) => real.get(name),
  getStart: (name, bytes) => real.getStart(name, bytes),
  head: (name) => real.head(name),
  list: (prefix) => real.list(prefix),
  delete: (name) => real.delete(name),
});
/** A run stopped right after `step` of the segment named, as a crash there would stop it. */
const stoppedAfter = (stop: ArchiveStep, segmentName = partition(1)) => ({
  afterStep: (step: ArchiveStep, segment: string) => {
    if (step === stop && segment === segmentName) throw new Error(`stopped after ${step}`);
  },
});
const partition = (from: number) => `events_${String(from).padStart(19, '0')}`;
const fileOf = (first: number, last: number) => `segments/${String(first).padStart(19, '0')}-${String(last).padStart(19, '0')}.fseg`;
const records = async (db: Kysely<Tables>) =>
  (await sql<{ v: number; first: number }>`SELECT stream_version AS v, (data->>'first_position')::int AS first FROM events WHERE stream_id = ${archiveStream} ORDER BY stream_version`.execute(db)).rows;
const tables = async (db: Kysely<Tables>) =>
  (await sql<{ name: string }>`SELECT relname AS name FROM pg_class WHERE relkind = 'r' AND relname ~ '^events_[0-9]{19}$' ORDER BY relname`.execute(db)).rows.map((r) => r.name);

/**
 * Every segment of the two-hour-old history archived once, in order: the first five, then the sixth once the
 * records themselves (positions 121 on) made it no longer the newest. The log and the archive verify.
 */
async function expectArchived(deps: ArchiveDeps & { t: TestDatabase }): Promise<void> {
  expect(await records(deps.db)).toEqual([1, 21, 41, 61, 81, 101].map((first, i) => ({ v: i + 1, first })));
  expect((await listSegments(deps.db)).map((s) => s.from)).toEqual([121]);
  // No partition is left behind, attached or not.
  expect(await tables(deps.db)).toEqual([partition(121)]);
  expect(await archivedHistoryProblems(deps.db)).toEqual([]);
}

test.each<[ArchiveStep, string]>([
  ['segment_stored', 'a segment file without its checkpoint or event'],
  ['checkpoint_stored', 'both files without an event'],
  ['recorded', 'the event appended, the partition still attached'],
  ['detached', 'the event appended, the partition detached and not dropped'],
])('issue 19: a run stopped after %s (%s) is finished by the next run, the segment recorded once', async (step) => {
  const deps = await setUp();
  expect((await refusal(archiveDueSegments(deps, stoppedAfter(step)))).message).toBe(`stopped after ${step}`);
  const stored = (await deps.destination.list('')).map((o) => o.name);
  const attached = (await listSegments(deps.db)).map((s) => s.name);
  if (step === 'segment_stored') expect(stored).toEqual([fileOf(1, 20)]);
  else expect(stored).toEqual(['checkpoints/0000000000000000020.fckp', fileOf(1, 20)]);
  expect((await records(deps.db)).length).toBe(step === 'recorded' || step === 'detached' ? 1 : 0);
  expect(attached.includes(partition(1))).toBe(step !== 'detached');
  expect((await tables(deps.db)).includes(partition(1))).toBe(true);

  await archiveDueSegments(deps);
  await expectArchived(deps);
});

test('issue 19: an object half-uploaded when the run stopped is written again whole; nothing is recorded until it reads back verified', async () => {
  const real = openDestination(parseDestination(join(scratch, 'half')));
  // The first upload of a segment file stops midway, leaving what some S3-compatible servers keep: a short object.
  let cut = false;
  const flaky = puttingThrough(real, async (name, bytes) => {
    if (cut || !name.startsWith('segments/')) return real.put(name, bytes);
    cut = true;
    await real.put(name, bytes.subarray(0, bytes.length >> 1));
    throw new Error('connection reset');
  });
  const deps = await setUp({ destination: flaky });
  expect((await refusal(archiveDueSegments(deps))).message).toBe('connection reset');
  expect(await records(deps.db)).toEqual([]);
  expect((await listSegments(deps.db))[0]!.name).toBe(partition(1));

  await archiveDueSegments(deps);
  await expectArchived(deps);
});

test('issue 19: an S3 upload cut off mid-body before a crash leaves a short object, which the next run replaces', async () => {
  const deps = await setUp({ destination: openDestination(parseDestination(s3.url('cut'))) });
  const name = fileOf(1, 20);
  await new Promise<void>((done) => {
    const request = http.request({ host: '127.0.0.1', port: s3.port, method: 'PUT', path: `/${TEST_BUCKET}/cut/${name}`, headers: { 'content-length': 100_000 } });
    request.on('error', () => done());
    request.write(Buffer.alloc(3000, 7), () => setTimeout(() => request.destroy(), 200));
  });
  await archiveDueSegments(deps);
  await expectArchived(deps);
});

test('issue 19: a file that does not read back as written is not recorded, and the segment stays in the database', async () => {
  const real = openDestination(parseDestination(join(scratch, 'altered')));
  const altering = puttingThrough(real, (name, bytes) => {
    const altered = Buffer.from(bytes);
    altered[altered.length - 1]! ^= 1;
    return real.put(name, altered);
  });
  const deps = await setUp({ destination: altering });
  const refused = await refusal<ArchiveError>(archiveDueSegments(deps));
  expect([refused.code, refused.message]).toEqual(['archive_object_damaged', expect.stringContaining(`archived object ${fileOf(1, 20)} in ${real.url} has SHA-256`)]);
  expect(await records(deps.db)).toEqual([]);
  expect((await listSegments(deps.db))[0]!.name).toBe(partition(1));
});

test('issue 19: a second database archiving to the same destination (a restored backup) never overwrites the first one\'s files; its run fails with archive_object_conflict and its segment stays', async () => {
  const first = await setUp();
  await archiveDueSegments(first);
  await expectArchived(first);
  const stored = await first.destination.get(fileOf(1, 20));

  // Another log, of the same positions, pointed at the same archive.
  const second = await setUp({ destination: first.destination });
  const refused = await refusal<ArchiveError>(archiveDueSegments(second));
  expect([refused.code, refused.message]).toEqual(['archive_object_conflict', expect.stringContaining(`archived object ${fileOf(1, 20)} in ${first.destination.url} holds another history of positions 1-20`)]);
  expect(await first.destination.get(fileOf(1, 20))).toEqual(stored);
  expect(await archivedHistoryProblems(first.db)).toEqual([]);
  expect(await records(second.db)).toEqual([]);
  expect((await listSegments(second.db))[0]!.name).toBe(partition(1));
});

test('issue 19, issue 23 item 4: a long reader holds the detach back past its 1 s lock timeout; appends go on, the segment stays whole, and the next run detaches and drops it', async () => {
  const deps = await setUp();
  const reader = connect(deps.t.url, { max: 1 });
  try {
    // A reader's open transaction: DETACH (by the owner's function, which the Hub's role calls) waits for it.
    const holding = reader.db.connection().execute(async (conn) => {
      await sql`BEGIN ISOLATION LEVEL REPEATABLE READ`.execute(conn);
      await sql`SELECT count(*) FROM events`.execute(conn);
      await eventually(async () => ((await records(deps.db)).length === 1 ? true : undefined), 20_000);
      // Meanwhile the log takes appends.
      expect((await appendToStream(deps.db, 'crash-a', 'any', [event('Happened', { during: 'detach' })])).ok).toBe(true);
      await new Promise((r) => setTimeout(r, 6000));
      await sql`COMMIT`.execute(conn);
    });
    const failed = await refusal(archiveDueSegments(deps));
    await holding;
    expect(failed.message).toMatch(/lock timeout|canceling statement due to lock timeout/);
    const { rows } = await sql<{ pending: boolean }>`SELECT inhdetachpending AS pending FROM pg_inherits WHERE inhrelid = ${partition(1)}::regclass`.execute(deps.db);
    expect(rows).toEqual([{ pending: false }]);
  } finally {
    await reader.close();
  }
  await archiveDueSegments(deps);
  await expectArchived(deps);
}, 90_000);

test('issue 19: a segment whose events do not recompute to their stored hashes is refused, named, and kept; the ones before it are archived', async () => {
  const deps = await setUp({ tampered: true });
  // Edited in the database, past the append-only trigger, by its owner.
  await sql`ALTER TABLE ${sql.table(partition(41))} DISABLE TRIGGER events_append_only`.execute(deps.db);
  await sql`UPDATE ${sql.table(partition(41))} SET data = '{"n": 999}' WHERE position = 50`.execute(deps.db);
  const refused = await refusal<ArchiveError>(archiveDueSegments(deps));
  expect(refused.code).toBe('archive_chain_broken');
  expect(refused.message).toMatch(new RegExp(`^segment ${partition(41)} cannot be archived: the event at position 50 \\(stream "crash-b", version 17\\) does not follow`));
  expect((await records(deps.db)).map((r) => r.first)).toEqual([1, 21]);
  expect((await listSegments(deps.db))[0]!.name).toBe(partition(41));
  expect((await deps.destination.list('segments/')).map((o) => o.name)).toEqual([fileOf(1, 20), fileOf(21, 40)]);
});

test('issue 19: while the hot log is larger than log.hot_max_bytes, its oldest closed segments are archived whatever their age', async () => {
  const deps = await setUp();
  const segments = await listSegments(deps.db);
  const total = segments.reduce((sum, s) => sum + s.bytes, 0);
  // Kept hot 100 hours by age; by size, room for all but the first two segments.
  const policy = { hotRetentionMs: 100 * HOUR, hotMaxBytes: total - segments[0]!.bytes - segments[1]!.bytes + 1 };
  expect((await planSegments(deps.db, policy, clock.now())).map((s) => s.state)).toEqual(['archiving', 'archiving', 'closed', 'closed', 'closed', 'closed', 'hot']);
  expect((await planSegments(deps.db, { ...policy, hotMaxBytes: null }, clock.now())).map((s) => s.state)).toEqual(['closed', 'closed', 'closed', 'closed', 'closed', 'closed', 'hot']);

  await archiveDueSegments({ ...deps, policy });
  expect((await records(deps.db)).slice(0, 2)).toEqual([
    { v: 1, first: 1 },
    { v: 2, first: 21 },
  ]);
  const after = await planSegments(deps.db, policy, clock.now());
  expect(after.filter((s) => s.state === 'archiving')).toEqual([]);
  expect(after.reduce((sum, s) => sum + s.bytes, 0)).toBeLessThanOrEqual(policy.hotMaxBytes);
  expect(await archivedHistoryProblems(deps.db)).toEqual([]);
});

test('issue 19: Hubs archiving at once take turns: each segment is recorded once, and no run fails', async () => {
  const deps = await setUp();
  const pools = Array.from({ length: 3 }, () => connect(deps.t.url, { max: 4 }));
  const failures: unknown[] = [];
  const archivers = pools.map((p) =>
    startArchiver({ ...deps, db: p.db, pipeline: createPipeline({ db: p.db, boss: null, clock, projections: allProjections }), everyMs: 50, onFailure: (e) => failures.push(e) }),
  );
  try {
    await eventually(async () => ((await records(deps.db)).length === 6 && (await tables(deps.db)).length === 1 ? true : undefined), 30_000);
  } finally {
    await Promise.all(archivers.map((a) => a.stop()));
    await Promise.all(pools.map((p) => p.close()));
  }
  expect(failures).toEqual([]);
  await expectArchived(deps);
}, 90_000);

test('issue 19: recording a segment again is refused and writes nothing: its event exists once, the heads and checkpoint stay', async () => {
  const deps = await setUp();
  await archiveDueSegments(deps);
  const first = (await recordedSegment(deps.db, { version: 1 }))!;
  const heads = async () => (await deps.db.selectFrom('archived_heads').selectAll().orderBy('stream_id').execute()).map((h) => ({ ...h, hash: h.hash.toString('hex') }));
  const checkpoints = () => deps.db.selectFrom('projection_checkpoints').select(['position', 'sha256']).execute();
  const before = { heads: await heads(), checkpoints: await checkpoints() };
  const again = await deps.pipeline.run(
    { principal: 'hub', role: 'system', source: 'worker', correlationId: 'again' },
    recordSegmentArchived(first, [{ streamId: 'crash-a', version: 1, hash: '0'.repeat(64), position: 1 }], { position: first.last_position, bytes: Buffer.from('x'), sha256: '0'.repeat(64) }),
  );
  expect(again.ok ? null : again.error.code).toBe('segment_already_archived');
  expect(await records(deps.db)).toHaveLength(6);
  expect({ heads: await heads(), checkpoints: await checkpoints() }).toEqual(before);
});

test('issue 19: a segment read in many pages is the same file as read in one', async () => {
  const deps = await setUp();
  const [segment] = await listSegments(deps.db);
  const whole = await exportSegment(deps.db, segment!, { first: 1, last: 20 });
  const paged = await exportSegment(deps.db, segment!, { first: 1, last: 20 }, { pageSize: 3 });
  expect(paged.file.sha256).toBe(whole.file.sha256);
  expect([paged.file.summary.events, paged.heads.map((h) => [h.streamId, h.version, h.position])]).toEqual([
    20,
    [
      ['crash-a', 7, 19],
      ['crash-b', 7, 20],
      ['crash-c', 6, 18],
    ],
  ]);
});

test('issue 19: a segment without events (its positions handed out, none kept) is archived and recorded like any other, its transactions null, and verifies', async () => {
  const deps = await setUp();
  // Positions 121-140 were handed out and no transaction kept one; the log goes on in the segment after.
  await sql`SELECT setval('events_position_seq', 140)`.execute(deps.db);
  await sql`SELECT add_events_partition(141, 161)`.execute(deps.db);
  expect((await appendToStream(deps.db, 'crash-a', 'any', [event('Happened', { after: 'empty' })])).ok).toBe(true);

  await archiveDueSegments(deps);
  expect((await records(deps.db)).map((r) => r.first)).toEqual([1, 21, 41, 61, 81, 101, 121]);
  const empty = (await recordedSegment(deps.db, { version: 7 }))!;
  expect(empty).toMatchObject({ first_position: 121, last_position: 140, events: 0, first_tx_id: null, last_tx_id: null, heads: [] });
  expect((await recordedSegment(deps.db, { version: 6 }))!.first_tx_id).toMatch(/^\d+$/);
  expect((await listSegments(deps.db)).map((s) => s.from)).toEqual([141]);
  expect(await archivedHistoryProblems(deps.db)).toEqual([]);
});
