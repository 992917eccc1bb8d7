import type { EventMetadata, RecordedFleetEvent } from '@fleetplane/core';
import { openCheckpoint, type Checkpoint } from '../checkpoints/checkpoint-file.ts';
import { toRecordedEvent } from '../event-store/recorded.ts';
import { ArchiveError } from './archive-error.ts';
import type { Destination } from './destination.ts';
import type { SegmentEvent } from './segment.ts';
import { openSegment, readSegmentSummary } from './segment-reader.ts';
import { headerEnd } from './segment-container.ts';

/**
 * The archive read as a log, for a replay: its files found by their names (docs/archive-format.md, "Names"),
 * so a replay of a day long ago reads that day's files and the checkpoint before them, never the whole archive.
 * What proves the files are the archived ones is `verify --archive`, against their records in the log.
 */

export interface SegmentFile {
  name: string;
  /** Its position range, both ends included. */
  first: number;
  last: number;
}

export interface CheckpointFile {
  name: string;
  position: number;
}

export interface ArchiveListing {
  /** In position order. */
  segments: SegmentFile[];
  /** In position order. */
  checkpoints: CheckpointFile[];
}

const SEGMENT_NAME = /^segments\/(\d+)-(\d+)\.fseg$/;
const CHECKPOINT_NAME = /^checkpoints\/(\d+)\.fckp$/;

/**
 * The archive's segment and checkpoint files up to `through`, the archived history's end: a file past it is
 * one an archiving run wrote and has not recorded yet.
 */
export async function listArchive(destination: Destination, through: number): Promise<ArchiveListing> {
  const segments = (await destination.list('segments/'))
    .map((o) => SEGMENT_NAME.exec(o.name))
    .filter((m) => m !== null)
    .map((m) => ({ name: m[0], first: Number(m[1]), last: Number(m[2]) }))
    .filter((s) => s.last <= through)
    .sort((a, b) => a.first - b.first);
  const checkpoints = (await destination.list('checkpoints/'))
    .map((o) => CHECKPOINT_NAME.exec(o.name))
    .filter((m) => m !== null)
    .map((m) => ({ name: m[0], position: Number(m[1]) }))
    .filter((c) => c.position <= through)
    .sort((a, b) => a.position - b.position);
  return { segments, checkpoints };
}

/**
 * The segment files holding every position after `after` up to `last`, in order: they must follow each other
 * from `after + 1` (the log's first position is 1) without gap or overlap, else the archive cannot give them.
 */
export function segmentsBetween(listing: ArchiveListing, destination: Destination, after: number, last: number): SegmentFile[] {
  const files = listing.segments.filter((s) => s.last > after && s.first <= last);
  let next = after + 1;
  for (const file of files) {
    if (file.first !== next) {
      const what = file.first > next ? `no segment file holds positions ${next}-${file.first - 1}` : `${file.name} holds positions ${file.first}-${next - 1} again`;
      throw new ArchiveError('archive_incomplete', `archive ${destination.url}: ${what}`);
    }
    next = file.last + 1;
  }
  if (next <= last) throw new ArchiveError('archive_incomplete', `archive ${destination.url}: no segment file holds positions ${next}-${last}`);
  return files;
}

/** The newest checkpoint at or before `position` (null: none, a replay starts from empty tables), read and opened. */
export async function readCheckpointAtOrBefore(destination: Destination, listing: ArchiveListing, position: number): Promise<Checkpoint | null> {
  const file = listing.checkpoints.filter((c) => c.position <= position).at(-1);
  if (!file) return null;
  const checkpoint = openCheckpoint(await readWhole(destination, file.name));
  if (checkpoint.position !== file.position) {
    throw new ArchiveError('archive_incomplete', `archive ${destination.url}: ${file.name} is the checkpoint as of position ${checkpoint.position}`);
  }
  return checkpoint;
}

/** The archived events after `after` up to `last`, from the segment files, upcast as every reader does, in pages. */
export async function* archivedEvents(destination: Destination, files: readonly SegmentFile[], after: number, last: number, pageSize = 1000): AsyncGenerator<RecordedFleetEvent[]> {
  let page: RecordedFleetEvent[] = [];
  for (const file of files) {
    for (const e of openSegment(await readWhole(destination, file.name)).events()) {
      if (e.position <= after) continue;
      if (e.position > last) break;
      page.push(recorded(e));
      if (page.length === pageSize) {
        yield page;
        page = [];
      }
    }
  }
  if (page.length > 0) yield page;
}

/**
 * Where an as-of replay to `time` stops, as for the hot log (projections/rebuild.ts, Until): the position before
 * the first archived event recorded after the time; null when no archived event is. The segments' headers
 * give each one's latest time, so only they are read up to the segment holding that event.
 */
export async function archivedPositionBefore(destination: Destination, listing: ArchiveListing, time: Date): Promise<number | null> {
  const after = time.getTime() * 1000;
  for (const file of listing.segments) {
    const latest = readSegmentSummary(await readHeader(destination, file.name)).recorded_at?.max;
    if (latest === undefined || micros(latest) <= after) continue;
    for (const e of openSegment(await readWhole(destination, file.name)).events()) {
      if (e.recordedAtMicros > after) return e.position - 1;
    }
  }
  return null;
}

const HEADER_READ = 64 * 1024;

/** A file's preamble and header, without the sections. */
async function readHeader(destination: Destination, name: string): Promise<Buffer> {
  const start = await destination.getStart(name, HEADER_READ);
  if (start === undefined) throw missing(destination, name);
  const end = headerEnd(start);
  if (end === null || end <= start.length) return start;
  return (await destination.getStart(name, end)) ?? Promise.reject(missing(destination, name));
}

async function readWhole(destination: Destination, name: string): Promise<Buffer> {
  const bytes = await destination.get(name);
  if (bytes === undefined) throw missing(destination, name);
  return bytes;
}

const missing = (destination: Destination, name: string) => new ArchiveError('archive_object_missing', `archived object ${name} in ${destination.url} is missing`);

/** `2026-11-30T10:00:00.123456Z` → microseconds since the epoch. */
function micros(iso: string): number {
  const [whole, fraction = ''] = iso.replace(/Z$/, '').split('.');
  return Date.parse(`${whole}Z`) * 1000 + Number(fraction.padEnd(6, '0').slice(0, 6));
}

/** A segment's event as the log's readers give one. */
function recorded(e: SegmentEvent): RecordedFleetEvent {
  return toRecordedEvent({
    position: e.position,
    stream_id: e.streamId,
    stream_version: e.streamVersion,
    event_id: e.eventId,
    type: e.type,
    schema_version: e.schemaVersion,
    data: e.data as Record<string, unknown>,
    metadata: e.metadata as EventMetadata,
    recorded_at: new Date(Math.floor(e.recordedAtMicros / 1000)),
  });
}
