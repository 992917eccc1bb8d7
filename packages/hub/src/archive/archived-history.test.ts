import { copyFile, cp, mkdtemp, readFile, rename, rm, truncate, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LogSegmentArchivedData } from '@fleetplane/core';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { archiveClosedSegments } from '../../../../test/support/archive.ts';
import { checkpointTables, writeTables } from '../../../../test/support/checkpoint.ts';
import { fleetplane } from '../../../../test/support/cli.ts';
import { fleetActivity, settledPosition } from '../../../../test/support/activity.ts';
import { createTestDatabase, waitingForLocks, type TestDatabase } from '../../../../test/support/database.ts';
import { startTestHub, testConfig, type TestHub } from '../../../../test/support/hub.ts';
import { projectionTables } from '../../../../test/support/projection-tables.ts';
import { closeCurrentSegment } from '../../../../test/support/segments.ts';
import { checkStoredCheckpoint } from '../checkpoints/recorded.ts';
import { EXIT } from '../cli/exit.ts';
import type { Tables } from '../database/tables.ts';
import { listSegments } from '../event-store/segments.ts';
import { verifyChain } from '../event-store/verify-chain.ts';
import { allProjections } from '../projections/all.ts';
import { rebuild } from '../projections/rebuild.ts';
import { verifyProjections } from '../projections/verify.ts';
import type { Destination } from './destination.ts';
import { openDestination, parseDestination } from './destination-url.ts';
import { recordsInLog } from './records.ts';
import { decodeSegment } from './segment-reader.ts';
import { encodeSegment } from './segment-writer.ts';
import { verifyArchive, type ArchiveProblem } from './verify-archive.ts';

// Issue 19, point 4: a log whose oldest segments are archived and their partitions dropped. Verify and rebuild
// start from the newest checkpoint and archived_heads and never need the archive; verify --archive proves the
// archive, finding each kind of tampering with its positions; replay reads the archive's files for a point
// inside it, and gives what a rebuild gave before the segments left the database.

let t: TestDatabase;
let hub: TestHub;
let scratch: string;
let archive: Destination;
/** The three archived segments, oldest first. */
const archived: LogSegmentArchivedData[] = [];
/** As-of points: inside the first segment, a time inside the second, a position in the hot log. */
let p1: number;
let t2: Date;
/** Where the replay to t2 stopped, before archiving. */
let t2Through: number | null;
let p4: number;
/** The live tables as of p4. */
let atP4: Record<string, unknown[]>;

const tables = (schema: string, db: Kysely<Tables> = t.db) => projectionTables(db, schema);

const cli = (...args: string[]) => fleetplane(args, { DATABASE_URL: t.url, FLEETPLANE_DATA_DIR: scratch });
const file = (name: string) => join(scratch, 'archive', name);
const rangeOf = (s: LogSegmentArchivedData) => ({ first_position: s.first_position, last_position: s.last_position });
const problems = async (): Promise<ArchiveProblem[]> => (await verifyArchive(t.db, { open: (url) => openDestination(parseDestination(url)) })).problems;
const kinds = (found: ArchiveProblem[]) => found.map((p) => ({ first_position: p.first_position, last_position: p.last_position, kind: p.kind }));

/** Changes what the log or archived_heads hold as only a superuser can, runs `check`, and puts it back. */
async function tampered(statement: RawBuilder<unknown>, undo: RawBuilder<unknown>, check: () => Promise<void>): Promise<void> {
  const edit = (s: RawBuilder<unknown>) =>
    t.db.transaction().execute(async (trx) => {
      await sql`ALTER TABLE events DISABLE TRIGGER events_append_only`.execute(trx);
      await s.execute(trx);
      await sql`ALTER TABLE events ENABLE TRIGGER events_append_only`.execute(trx);
    });
  await edit(statement);
  try {
    await check();
  } finally {
    await edit(undo);
  }
}

/** Damages archived files, runs `check`, and puts the originals back. */
async function damaged(names: string[], damage: () => Promise<void>, check: () => Promise<void>): Promise<void> {
  for (const name of names) await copyFile(file(name), `${file(name)}.kept`);
  await damage();
  try {
    await check();
  } finally {
    for (const name of names) await rename(`${file(name)}.kept`, file(name));
  }
}

beforeAll(async () => {
  t = await createTestDatabase();
  scratch = await mkdtemp(join(tmpdir(), 'fleetplane-archived-'));
  // The test archives, through the Hub's archiver, at the points it chooses: the Hub's own job runs at its start only.
  hub = await startTestHub(t.url, { config: testConfig(2, {}, {}, { archive: join(scratch, 'archive'), archive_every: '1d' }) });
  archive = openDestination(parseDestination(join(scratch, 'archive')));

  // Segment 1; a position inside it, and the tables as of it while it is still in the database.
  await fleetActivity(hub, 1);
  p1 = (await sql<{ position: number }>`SELECT position FROM events WHERE type = 'NodeLabelsReplaced' ORDER BY position LIMIT 1`.execute(t.db)).rows[0]!.position;
  await settledPosition(t.db);
  await rebuild(t.db, allProjections, { schema: 'before_p1', until: { position: p1 } });
  await closeCurrentSegment(t.db);

  // Segment 2, and a time inside it: its record of segment 1 is archived with it.
  await fleetActivity(hub, 2);
  await settledPosition(t.db);
  t2 = (await sql<{ recorded_at: Date }>`SELECT recorded_at FROM events WHERE stream_id = 'node:edge-2' AND type = 'NodeRegistered' ORDER BY position DESC LIMIT 1`.execute(t.db)).rows[0]!.recorded_at;
  t2Through = (await rebuild(t.db, allProjections, { schema: 'before_t2', until: { time: t2 } })).through;
  archived.push(...(await archiveClosedSegments(hub, archive)));
  await closeCurrentSegment(t.db);

  // Segment 3, holding the record of segment 2.
  await fleetActivity(hub, 3);
  await settledPosition(t.db);
  archived.push(...(await archiveClosedSegments(hub, archive)));
  await closeCurrentSegment(t.db);

  // The hot log: the record of segment 3, and a position in it with the live tables as of it (segments 1 and 2
  // have left the database: only the live tables, maintained event by event, know them without a checkpoint).
  await fleetActivity(hub, 4);
  await settledPosition(t.db);
  await t.db.transaction().setIsolationLevel('repeatable read').execute(async (trx) => {
    p4 = Number((await sql<{ p: string }>`SELECT max(position) AS p FROM events`.execute(trx)).rows[0]!.p);
    atP4 = await tables('public', trx);
  });
  archived.push(...(await archiveClosedSegments(hub, archive)));
  await settledPosition(t.db);
}, 120_000);

afterAll(async () => {
  await hub.stop();
  await t.drop();
  await rm(scratch, { recursive: true, force: true });
});

test('issue 19: a log whose oldest segments are archived and dropped verifies clean from archived_heads and the newest checkpoint, reading no archived file', async () => {
  expect((await listSegments(t.db))[0]!.from).toBe(archived[2]!.last_position + 1);
  expect(archived.map((a) => a.first_position)).toEqual([1, archived[0]!.last_position + 1, archived[1]!.last_position + 1]);
  // Streams that began in the archive go on in the hot log.
  const continued = await sql<{ n: number }>`SELECT count(*)::int AS n FROM archived_heads a WHERE EXISTS (SELECT FROM events e WHERE e.stream_id = a.stream_id)`.execute(t.db);
  expect(continued.rows[0]!.n).toBeGreaterThan(2);

  await rename(join(scratch, 'archive'), join(scratch, 'away'));
  try {
    expect(await verifyChain(t.db)).toEqual([]);
    expect(await checkStoredCheckpoint(t.db)).toEqual({ position: archived[2]!.last_position, problem: null });
    expect(await verifyProjections(t.db, allProjections)).toEqual([]);
    expect(await cli('verify')).toMatchObject({ code: EXIT.ok, out: `hash chain: ok\ncheckpoint: ok (position ${archived[2]!.last_position})\nprojections: ok\n` });
  } finally {
    await rename(join(scratch, 'away'), join(scratch, 'archive'));
  }
});

test('issue 19: a tampered hot event is still found, the first one after the archive too; archived_heads the hot log does not continue are found', async () => {
  const first = (
    await sql<{ position: number; stream_version: number; data: unknown }>`
      SELECT position, stream_version, data FROM events WHERE stream_id = 'node:edge-1' ORDER BY position LIMIT 1`.execute(t.db)
  ).rows[0]!;
  const head = (await t.db.selectFrom('archived_heads').selectAll().where('stream_id', '=', 'node:edge-1').executeTakeFirstOrThrow());
  expect(first.stream_version).toBe(head.stream_version + 1);

  await tampered(
    sql`UPDATE events SET data = data || '{"tampered": true}' WHERE position = ${first.position}`,
    sql`UPDATE events SET data = ${JSON.stringify(first.data)}::jsonb WHERE position = ${first.position}`,
    async () => {
      expect(await verifyChain(t.db)).toEqual([{ stream_id: 'node:edge-1', stream_version: first.stream_version, position: first.position, problem: 'hash_mismatch' }]);
      expect((await cli('verify')).code).toBe(EXIT.failed);
    },
  );

  await tampered(
    sql`UPDATE archived_heads SET stream_version = stream_version - 1 WHERE stream_id = 'node:edge-1'`,
    sql`UPDATE archived_heads SET stream_version = stream_version + 1 WHERE stream_id = 'node:edge-1'`,
    async () => {
      expect(await verifyChain(t.db)).toEqual([{ stream_id: 'node:edge-1', stream_version: first.stream_version, position: first.position, problem: 'version_gap' }]);
      const segment = archived.findLast((a) => a.heads.some(([id]) => id === 'node:edge-1'))!;
      expect(kinds(await problems())).toEqual([{ ...rangeOf(segment), kind: 'hot_continuity' }]);
    },
  );
  expect(await verifyChain(t.db)).toEqual([]);
});

test('issue 19: verify --archive proves every archived file against its record, finding the older records inside the archived segments', async () => {
  // Only the newest record is still in the database: the others left with the segments holding them.
  expect((await recordsInLog(t.db)).map((r) => r.stream_version)).toEqual([3]);
  const report = await verifyArchive(t.db, { open: (url) => openDestination(parseDestination(url)) });
  expect(report).toEqual({ segments: 3, positions: { first: 1, last: archived[2]!.last_position }, problems: [] });

  const r = await cli('verify', '--archive');
  expect(r).toMatchObject({ code: EXIT.ok, err: '' });
  expect(r.out).toBe(
    `hash chain: ok\ncheckpoint: ok (position ${archived[2]!.last_position})\nprojections: ok\n` +
      `archive: ok (3 segment(s), positions 1-${archived[2]!.last_position})\n`,
  );
});

test('J2 verify --archive-at URL verifies the copy it names, without --archive: a copy missing a file fails where the original would pass', async () => {
  const copy = join(scratch, 'copy');
  await cp(join(scratch, 'archive'), copy, { recursive: true });
  try {
    const whole = await cli('verify', '--archive-at', copy);
    expect(whole).toMatchObject({ code: EXIT.ok, err: '' });
    expect(whole.out).toContain(`archive: ok (3 segment(s), positions 1-${archived[2]!.last_position})\n`);

    const name = archived[1]!.segment.name;
    await unlink(join(copy, name));
    const r = await cli('verify', '--archive-at', copy);
    expect(r.code).toBe(EXIT.failed);
    expect(r.out).toContain(`  positions ${archived[1]!.first_position}-${archived[1]!.last_position}: segment_missing: archived object ${name} in `);
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
});

test('issue 19: verify --archive finds an altered segment file, with its positions', async () => {
  const name = archived[0]!.segment.name;
  await damaged([name], async () => {
    const bytes = await readFile(file(name));
    bytes[bytes.length - 100]! ^= 0x01;
    await writeFile(file(name), bytes);
  }, async () => {
    expect(kinds(await problems())).toEqual([{ ...rangeOf(archived[0]!), kind: 'segment_damaged' }]);
  });
});

test('issue 19: verify --archive finds a missing segment file; the segment whose record it held is found by its name and checked', async () => {
  const name = archived[1]!.segment.name;
  await damaged([name], () => unlink(file(name)), async () => {
    expect(kinds(await problems())).toEqual([
      { ...rangeOf(archived[0]!), kind: 'record_missing' },
      { ...rangeOf(archived[1]!), kind: 'segment_missing' },
    ]);
    const r = await cli('verify', '--archive');
    expect(r.code).toBe(EXIT.failed);
    expect(r.out).toContain(`archive: 2 problem(s) (3 segment(s), positions 1-${archived[2]!.last_position})\n`);
    expect(r.out).toContain(`  positions ${archived[1]!.first_position}-${archived[1]!.last_position}: segment_missing: archived object ${name} in `);
  });
});

test('issue 19: verify --archive finds two segment files swapped', async () => {
  const [a, b] = [archived[0]!.segment.name, archived[1]!.segment.name];
  await damaged([a, b], async () => {
    await rename(file(a), file('swap'));
    await rename(file(b), file(a));
    await rename(file('swap'), file(b));
  }, async () => {
    expect(kinds(await problems())).toEqual([
      // The record of the first segment was in the second: the file named for the first holds the second's range.
      { ...rangeOf(archived[0]!), kind: 'record_missing' },
      { ...rangeOf(archived[0]!), kind: 'segment_mismatch' },
      { ...rangeOf(archived[1]!), kind: 'segment_damaged' },
    ]);
  });
});

test('issue 19: verify --archive finds a truncated segment file', async () => {
  const name = archived[2]!.segment.name;
  await damaged([name], () => truncate(file(name), Math.floor(archived[2]!.segment.bytes / 2)), async () => {
    const found = await problems();
    expect(kinds(found)).toEqual([
      { ...rangeOf(archived[1]!), kind: 'record_missing' },
      { ...rangeOf(archived[2]!), kind: 'segment_damaged' },
    ]);
    expect(found[1]!.message).toMatch(new RegExp(`holds ${Math.floor(archived[2]!.segment.bytes / 2)} bytes where ${archived[2]!.segment.bytes} were archived`));
  });
});

test('issue 19: a segment file rewritten with an event changed, its record changed to match, is found by its chains', async () => {
  const newest = archived[2]!;
  const name = newest.segment.name;
  const segment = decodeSegment(await readFile(file(name)));
  const changed = segment.events.findIndex((e) => e.type === 'NodeLabelsReplaced');
  segment.events[changed] = { ...segment.events[changed]!, data: { ...(segment.events[changed]!.data as object), after: { round: 'forged' } } };
  const forged = encodeSegment(segment);
  const record = (await sql<{ position: number; data: LogSegmentArchivedData }>`SELECT position, data FROM events WHERE stream_id = 'log:archive' AND stream_version = 3`.execute(t.db)).rows[0]!;
  const rerecorded = { ...record.data, segment: { ...record.data.segment, bytes: forged.bytes.length, sha256: forged.sha256 } };
  await damaged([name], () => writeFile(file(name), forged.bytes), () =>
    tampered(
      sql`UPDATE events SET data = ${JSON.stringify(rerecorded)}::jsonb WHERE position = ${record.position}`,
      sql`UPDATE events SET data = ${JSON.stringify(record.data)}::jsonb WHERE position = ${record.position}`,
      async () => {
        const found = await problems();
        expect(kinds(found)).toEqual([{ ...rangeOf(newest), kind: 'chain_broken' }]);
        expect(found[0]!.message).toMatch(new RegExp(`^stream ${segment.events[changed]!.streamId}'s events in segment ${name} do not chain`));
        // The record itself breaks the chain of log:archive in the hot log.
        expect(await verifyChain(t.db, 'log:archive')).toEqual([{ stream_id: 'log:archive', stream_version: 3, position: record.position, problem: 'hash_mismatch' }]);
      },
    ),
  );
});

test('issue 19: verify reads the newest record and the stored checkpoint in one snapshot: an archiver committing between the two is no mismatch', async () => {
  const stored = archived[2]!.last_position;
  // A transaction changing the stored checkpoint, as an archiver recording the next segment does, commits while
  // the check waits to read the record: read apart, the record would be the one before it, the checkpoint after.
  let commit!: () => void;
  const held = new Promise<void>((resolve) => (commit = resolve));
  const archiving = t.db.transaction().execute(async (trx) => {
    await sql`UPDATE projection_checkpoints SET position = position + 1 WHERE position = ${stored}`.execute(trx);
    await sql`LOCK TABLE events IN ACCESS EXCLUSIVE MODE`.execute(trx);
    await held;
  });
  try {
    const check = checkStoredCheckpoint(t.db);
    await waitingForLocks(t.db);
    commit();
    await archiving;
    expect(await check).toEqual({ position: stored, problem: null });
  } finally {
    commit();
    await archiving;
    await sql`UPDATE projection_checkpoints SET position = ${stored} WHERE position = ${stored + 1}`.execute(t.db);
  }
});

test('issue 19: verify --archive finds an altered checkpoint file; verify finds an altered stored checkpoint', async () => {
  const name = archived[1]!.checkpoint.name;
  await damaged([name], async () => {
    const bytes = await readFile(file(name));
    bytes[bytes.length - 3]! ^= 0x01;
    await writeFile(file(name), bytes);
  }, async () => {
    expect(kinds(await problems())).toEqual([{ ...rangeOf(archived[1]!), kind: 'checkpoint_damaged' }]);
  });

  const stored = await t.db.selectFrom('projection_checkpoints').selectAll().where('position', '=', archived[2]!.last_position).executeTakeFirstOrThrow();
  const tables = await checkpointTables(stored.content);
  tables.set('nodes', tables.get('nodes')!.map((n) => (n.node_id === 'edge-1' ? { ...n, labels: { round: 'forged' } } : n)));
  const forged = await writeTables(stored.position, tables);
  await t.db.updateTable('projection_checkpoints').set({ content: forged.bytes, sha256: forged.sha256 }).where('position', '=', stored.position).execute();
  try {
    expect((await checkStoredCheckpoint(t.db)).problem).toBe(
      `the checkpoint at position ${archived[2]!.last_position} has SHA-256 ${forged.sha256}, the archived one ${archived[2]!.checkpoint.sha256}`,
    );
    expect((await cli('verify')).code).toBe(EXIT.failed);
  } finally {
    await t.db.updateTable('projection_checkpoints').set({ content: stored.content, sha256: stored.sha256 }).where('position', '=', stored.position).execute();
  }
});

test('issue 19: replay --until a position or a time inside the archive reads its files and gives what rebuild gave before archiving; a hot position starts from the newest checkpoint', async () => {
  const atP1 = await cli('--json', 'replay', '--into', 'after_p1', '--until', String(p1));
  expect(atP1).toMatchObject({ code: EXIT.ok, err: '' });
  expect(atP1.json()).toMatchObject({ schema: 'after_p1', source: 'archive', start: null, through: p1 });
  expect(await tables('after_p1')).toEqual(await tables('before_p1'));

  // From a copy of the archive, elsewhere.
  await rename(join(scratch, 'archive'), join(scratch, 'copy'));
  try {
    const atT2 = await cli('replay', '--into', 'after_t2', '--until', t2.toISOString(), '--archive-at', join(scratch, 'copy'));
    expect(atT2).toMatchObject({ code: EXIT.ok, err: '' });
    expect(atT2.out).toMatch(
      new RegExp(`^replayed \\d+ archived events into after_t2 from the checkpoint at position ${archived[0]!.last_position} through position ${t2Through} in `),
    );
  } finally {
    await rename(join(scratch, 'copy'), join(scratch, 'archive'));
  }
  expect(t2Through).toBeGreaterThan(archived[0]!.last_position);
  expect(t2Through).toBeLessThan(archived[1]!.last_position);
  expect(await tables('after_t2')).toEqual(await tables('before_t2'));

  const hot = await cli('--json', 'replay', '--into', 'after_p4', '--until', String(p4));
  expect(hot).toMatchObject({ code: EXIT.ok, err: '' });
  expect(hot.json()).toMatchObject({ source: 'log', start: archived[2]!.last_position, through: p4 });
  expect(await tables('after_p4')).toEqual(atP4);

  // A file the replay needs is gone: it says which, and fills nothing.
  const name = archived[0]!.segment.name;
  await damaged([name], () => unlink(file(name)), async () => {
    const r = await cli('replay', '--into', 'after_gone', '--until', String(p1));
    expect(r.code).toBe(EXIT.failed);
    expect(r.err).toBe(`archive_incomplete: archive ${archive.url}: no segment file holds positions 1-${p1}\n`);
  });
  expect((await sql`SELECT FROM pg_namespace WHERE nspname = 'after_gone'`.execute(t.db)).rows).toEqual([]);
  for (const schema of ['before_p1', 'before_t2', 'after_p1', 'after_t2', 'after_p4']) await sql`DROP SCHEMA ${sql.id(schema)} CASCADE`.execute(t.db);
});
