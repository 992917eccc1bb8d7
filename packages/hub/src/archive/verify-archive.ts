import { archiveStream, type ArchivedFile } from '@fleetplane/core';
import type { Kysely } from 'kysely';
import { openCheckpoint, readEveryRow } from '../checkpoints/checkpoint-file.ts';
import type { Tables } from '../database/tables.ts';
import { listSegments } from '../event-store/segments.ts';
import { ArchiveError } from './archive-error.ts';
import { readVerified, type Destination } from './destination.ts';
import { listArchive } from './archived-events.ts';
import { eventHash } from './event-hash.ts';
import { recordOf, recordsInLog, type ArchiveRecord } from './records.ts';
import { openSegment } from './segment-reader.ts';
import { SegmentError } from './segment-error.ts';

export type ArchiveProblemKind =
  /**
   * The LogSegmentArchived of a segment cannot be read (the segment holding it cannot): its file, found by its
   * name, is checked for all but its size and SHA-256; or the segment cannot be located at all.
   */
  | 'record_missing'
  | 'record_invalid'
  /** Positions between two archived segments, or between the archive and the hot log, that no segment holds. */
  | 'range_gap'
  | 'range_overlap'
  | 'segment_missing'
  /** Its size or SHA-256 is not the recorded one: truncated, altered, or another segment's file. */
  | 'segment_damaged'
  /** The destination could not be reached or named. */
  | 'segment_unreadable'
  /** The recorded bytes do not decode as a segment. */
  | 'segment_corrupt'
  /** The file's range, event count or transactions are not the ones recorded. */
  | 'segment_mismatch'
  | 'checkpoint_missing'
  | 'checkpoint_damaged'
  | 'checkpoint_unreadable'
  | 'checkpoint_corrupt'
  /** The checkpoint file is not as of the segment's last position. */
  | 'checkpoint_mismatch'
  /** A stream's hashes do not chain: inside a segment, or from one segment to the next holding the stream. */
  | 'chain_broken'
  /** The chain heads recorded in the LogSegmentArchived are not the ones the segment ends with. */
  | 'heads_mismatch'
  /** The heads the hot log chains on (archived_heads) are not where the archive's chains end. */
  | 'hot_continuity';

export interface ArchiveProblem {
  first_position: number;
  last_position: number;
  kind: ArchiveProblemKind;
  message: string;
}

export interface ArchiveReport {
  /** Segments recorded as archived. */
  segments: number;
  /** The archived range, both ends included (null: nothing is archived). */
  positions: { first: number; last: number } | null;
  problems: ArchiveProblem[];
}

export interface VerifyArchiveOptions {
  /** The destination a record names, by its URL (the CLI's --archive-at answers one for all). */
  open(url: string): Destination;
}

interface Head {
  version: number;
  hash: string | null;
  /** Where the expectation comes from and what it says, for the message. */
  from: string;
  /** It comes from archived_heads, not from a newer segment. */
  hot: boolean;
  range: Range;
}

/**
 * Proves the archive against its record, without trusting the database's copy of any of it: for every
 * LogSegmentArchived, its segment and checkpoint files exist at the destination with the recorded size and
 * SHA-256, the segment decodes, every stream's hashes recompute from the segment's start heads to its end heads,
 * which are the recorded ones and join the neighbouring segments' heads, and the position ranges follow each
 * other without gap or overlap up to the hot log, whose chains continue from archived_heads, the archive's last heads.
 *
 * Segments are read newest first: the older records are archived too, in the segment files after the segments
 * they describe, so each file read gives the records of older ones. Each file is read once; a segment that
 * cannot be read is reported, and the chain is checked again from the next one that can.
 */
export async function verifyArchive(db: Kysely<Tables>, options: VerifyArchiveOptions): Promise<ArchiveReport> {
  const problems: ArchiveProblem[] = [];
  const report: Report = (range, kind, message) =>
    problems.push({ first_position: range.first, last_position: range.last, kind, message });
  const destinations = new Map<string, Destination>();
  const destination = (url: string) => destinations.get(url) ?? destinations.set(url, options.open(url)).get(url)!;

  const records = new Map<number, ArchiveRecord>();
  const take = (event: { stream_version: number; position: number; schema_version: number; data: unknown }) => {
    if (records.has(event.stream_version)) return;
    try {
      records.set(event.stream_version, recordOf(event));
    } catch (e) {
      report({ first: event.position, last: event.position }, 'record_invalid', (e as Error).message);
    }
  };
  for (const event of await recordsInLog(db)) take(event);
  const count = Math.max(0, ...records.keys());
  const newest = records.get(count);

  // What the newest segment holding each stream must end with: the head the hot log chains on.
  const expected = new Map<string, Head>();
  for (const h of await db.selectFrom('archived_heads').selectAll().execute()) {
    const from = `archived_heads has it at version ${h.stream_version}`;
    expected.set(h.stream_id, { version: h.stream_version, hash: h.hash.toString('hex'), from, hot: true, range: { first: h.position, last: h.position } });
  }
  // Set once a segment could not be read: the streams it held are unknown, so a stream without an expectation
  // in an older segment says nothing about archived_heads.
  let blind = false;

  // Each segment's range, recorded or found by its file's name, by segment number; and the last one walked.
  const ranges = new Map<number, Range>();
  let newer: { first: number; url: string } | null = null;
  for (let n = count; n >= 1; n--) {
    const record = records.get(n) ?? null;
    let ends: Map<string, StreamEnds> | null = null;
    let where: string;
    let range: Range;
    if (record) {
      range = { first: record.first_position, last: record.last_position };
      where = `segment ${record.segment.name}`;
      const place = destination(record.destination);
      await checkCheckpointFile(place, record, range, report);
      const file = await readFile(place, record.segment, 'segment', range, report);
      if (file) ends = checkSegment(file, record.segment.name, record, range, report, take);
      newer = { first: range.first, url: record.destination };
    } else {
      // Its record was archived in a segment that cannot be read: its file is the one named for the positions
      // right before the newer segment's, checked for all but its size and SHA-256.
      const found = newer ? await unrecordedBefore(destination(newer.url), newer.first) : null;
      if (!found) {
        expected.clear();
        blind = true;
        newer = null;
        continue;
      }
      range = { first: found.first, last: found.last };
      where = `segment ${found.name}`;
      report(range, 'record_missing', `the record of archived segment ${n} is in no segment that could be read: ${found.name}, found by its name, is checked without its recorded size and SHA-256`);
      ends = checkSegment(found.bytes, found.name, null, range, report, take);
      newer = { first: range.first, url: newer!.url };
    }
    ranges.set(n, range);
    if (!ends) {
      expected.clear();
      blind = true;
      continue;
    }
    for (const [streamId, { start, end, position }] of ends) {
      const then = expected.get(streamId);
      if (then) {
        if (then.version !== end.version || then.hash !== end.hash) {
          const other = then.version === end.version ? ' with another hash' : '';
          report(range, then.hot ? 'hot_continuity' : 'chain_broken', `stream ${streamId} ends at version ${end.version} in ${where}, but ${then.from}${other}`);
        }
      } else if (!blind) {
        report(range, 'hot_continuity', `stream ${streamId} ends at version ${end.version} (position ${position}) in ${where}, but archived_heads has no head for it`);
      }
      expected.set(streamId, { ...start, from: `${where} starts it after version ${start.version}`, hot: false, range });
    }
  }

  for (const [streamId, head] of expected) {
    if (head.version === 0) continue;
    if (head.hot) report(head.range, 'hot_continuity', `stream ${streamId} ends in no archived segment, but ${head.from}`);
    else report(head.range, 'chain_broken', `stream ${streamId}'s events up to version ${head.version} are in no older segment: ${head.from}`);
  }
  checkRanges(ranges, count, report);
  if (newest) await checkHotBoundary(db, newest, report);
  problems.sort((a, b) => a.first_position - b.first_position || a.last_position - b.last_position || (a.kind < b.kind ? -1 : 1));
  return { segments: count, positions: newest ? { first: ranges.get(1)?.first ?? 1, last: newest.last_position } : null, problems };
}

interface Range {
  first: number;
  last: number;
}

type Report = (range: Range, kind: ArchiveProblemKind, message: string) => void;

/** The file's bytes when they are the recorded ones; else the problem is reported and null answered. */
async function readFile(place: Destination, file: ArchivedFile, what: 'segment' | 'checkpoint', range: Range, report: Report): Promise<Buffer | null> {
  try {
    return await readVerified(place, file.name, { size: file.bytes, sha256: file.sha256 });
  } catch (e) {
    if (!(e instanceof ArchiveError)) throw e;
    const kind = e.code === 'archive_object_missing' ? 'missing' : e.code === 'archive_object_damaged' ? 'damaged' : 'unreadable';
    report(range, `${what}_${kind}`, e.message);
    return null;
  }
}

interface StreamEnds {
  start: { version: number; hash: string | null };
  end: { version: number; hash: string | null };
  /** Of its last event in the segment. */
  position: number;
}

/** The checkpoint file is the recorded one and is as of the segment's last position. */
async function checkCheckpointFile(place: Destination, record: ArchiveRecord, range: Range, report: Report): Promise<void> {
  const file = await readFile(place, record.checkpoint, 'checkpoint', range, report);
  if (!file) return;
  try {
    const checkpoint = openCheckpoint(file);
    await readEveryRow(checkpoint);
    const position = checkpoint.position;
    if (position !== record.last_position) report(range, 'checkpoint_mismatch', `checkpoint ${record.checkpoint.name} is as of position ${position}, not the segment's last ${record.last_position}`);
  } catch (e) {
    if (!(e instanceof SegmentError)) throw e;
    report(range, 'checkpoint_corrupt', `checkpoint ${record.checkpoint.name}: ${e.message}`);
  }
}

/** The segment file named for the positions that end right before `first`, read; null when there is none. */
async function unrecordedBefore(place: Destination, first: number): Promise<{ name: string; first: number; last: number; bytes: Buffer } | null> {
  try {
    const file = (await listArchive(place, first - 1)).segments.find((s) => s.last === first - 1);
    const bytes = file && (await place.get(file.name));
    return file && bytes ? { ...file, bytes } : null;
  } catch (e) {
    if (e instanceof ArchiveError) return null;
    throw e;
  }
}

/**
 * Decodes a segment and recomputes every stream's chain through it; the records it holds are handed to
 * `take`. A recorded segment's file must hold what its record says: its range, events, transactions and end
 * heads. Answers each stream's start and end heads, or null when the file does not decode.
 */
function checkSegment(
  file: Buffer,
  name: string,
  record: ArchiveRecord | null,
  range: Range,
  report: Report,
  take: (event: { stream_version: number; position: number; schema_version: number; data: unknown }) => void,
): Map<string, StreamEnds> | null {
  try {
    const opened = openSegment(file);
    const { summary } = opened;
    const held = { first: summary.positions.first, last: summary.positions.last, events: summary.events, first_tx_id: summary.tx_ids?.first ?? null, last_tx_id: summary.tx_ids?.last ?? null };
    const recorded = record
      ? { first: record.first_position, last: record.last_position, events: record.events, first_tx_id: record.first_tx_id, last_tx_id: record.last_tx_id }
      : { ...held, first: range.first, last: range.last };
    if (JSON.stringify(held) !== JSON.stringify(recorded)) {
      report(range, 'segment_mismatch', `segment ${name} holds ${JSON.stringify(held)} where ${JSON.stringify(recorded)} was ${record ? 'recorded' : 'named'}`);
      // Another range: not this segment at all, so its chains say nothing about this one's.
      if (held.first !== recorded.first || held.last !== recorded.last) return null;
    }
    const index = new Map(opened.streams.map((s, i) => [s.streamId, i]));
    const chain = opened.streams.map((s) => s.start.hash);
    const lastPosition = opened.streams.map(() => 0);
    for (const e of opened.events()) {
      const i = index.get(e.streamId)!;
      chain[i] = eventHash(chain[i]!, e);
      lastPosition[i] = e.position;
      if (e.streamId === archiveStream && e.type === 'LogSegmentArchived') take({ stream_version: e.streamVersion, position: e.position, schema_version: e.schemaVersion, data: e.data });
    }
    const ends = new Map<string, StreamEnds>();
    for (const [i, s] of opened.streams.entries()) {
      if (chain[i] !== s.end.hash) report(range, 'chain_broken', `stream ${s.streamId}'s events in segment ${name} do not chain from its version ${s.start.version} to its end head at version ${s.end.version}`);
      ends.set(s.streamId, { start: s.start, end: s.end, position: lastPosition[i]! });
    }
    const unlike = record?.heads.filter(([id, version, hash]) => ends.get(id)?.end.version !== version || ends.get(id)?.end.hash !== hash) ?? [];
    if (record && (unlike.length > 0 || record.heads.length !== ends.size)) {
      const streams = unlike.length > 0 ? `: ${unlike.slice(0, 3).map(([id]) => id).join(', ')}` : '';
      report(range, 'heads_mismatch', `the chain heads recorded for segment ${name} are not the ones it ends with${streams}`);
    }
    return ends;
  } catch (e) {
    if (!(e instanceof SegmentError)) throw e;
    report(range, 'segment_corrupt', `segment ${name}: ${e.message}`);
    return null;
  }
}

/** Each segment begins right after the one before; one neither recorded nor found is reported with the positions between its neighbours. */
function checkRanges(ranges: Map<number, Range>, count: number, report: Report): void {
  for (let n = 1; n <= count; n++) {
    const range = ranges.get(n);
    if (!range) {
      let older = n - 1;
      while (older >= 1 && !ranges.has(older)) older--;
      let newer = n + 1;
      while (newer <= count && !ranges.has(newer)) newer++;
      const first = older >= 1 ? ranges.get(older)!.last + 1 : 1;
      const last = newer <= count ? ranges.get(newer)!.first - 1 : first;
      report({ first, last }, 'record_missing', `the record of archived segment ${n} is in no segment that could be read, and no file is named for the positions before the next: the segment cannot be located`);
      continue;
    }
    const before = ranges.get(n - 1);
    if (!before) continue;
    const next = before.last + 1;
    if (range.first > next) {
      report({ first: next, last: range.first - 1 }, 'range_gap', `no archived segment holds positions ${next}-${range.first - 1}, between segments ${n - 1} and ${n}`);
    } else if (range.first < next) {
      report({ first: range.first, last: before.last }, 'range_overlap', `archived segments ${n - 1} and ${n} both hold positions ${range.first}-${before.last}`);
    }
  }
}

/** The hot log begins right after the archive: its oldest segment holds the next position, or an archived one waits to be dropped. */
async function checkHotBoundary(db: Kysely<Tables>, newest: ArchiveRecord, report: Report): Promise<void> {
  const next = newest.last_position + 1;
  const hot = (await listSegments(db)).filter((s) => s.to - 1 > newest.last_position);
  const from = hot[0]?.from;
  if (from !== undefined && from > next) {
    report({ first: next, last: from - 1 }, 'range_gap', `no segment, archived or hot, holds positions ${next}-${from - 1}`);
  } else if (from !== undefined && from < next) {
    report({ first: from, last: newest.last_position }, 'range_overlap', `hot segment ${hot[0]!.name} begins inside the archived range, at ${from}`);
  }
}
