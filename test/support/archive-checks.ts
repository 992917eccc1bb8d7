import { createHash } from 'node:crypto';
import type { LogSegmentArchivedData } from '@fleetplane/core';
import { sql, type Kysely } from 'kysely';
import { readVerified, type Destination } from '../../packages/hub/src/archive/destination.ts';
import { eventHash } from '../../packages/hub/src/archive/event-hash.ts';
import type { ChainHead, SegmentEvent } from '../../packages/hub/src/archive/segment.ts';
import { openSegment, type OpenedSegment } from '../../packages/hub/src/archive/segment-reader.ts';
import { decodeCheckpoint } from '../../packages/hub/src/checkpoints/checkpoint-file.ts';
import type { Tables } from '../../packages/hub/src/database/tables.ts';
import type { EventRow } from '../../packages/hub/src/event-store/recorded.ts';
import { listSegments } from '../../packages/hub/src/event-store/segments.ts';

/**
 * Replaces a fresh database's first segments (100,000 positions each, made by migration 0010) with segments
 * of `size` positions, so that a test's few hundred events fill several. Only on a log without events.
 */
export async function useSmallSegments(db: Kysely<Tables>, size: number, ahead = 3): Promise<void> {
  for (const s of await listSegments(db)) {
    if (!s.ahead) throw new Error(`segment ${s.name} is not empty`);
    await sql`ALTER TABLE events DETACH PARTITION ${sql.table(s.name)}`.execute(db);
    await sql`DROP TABLE ${sql.table(s.name)}`.execute(db);
  }
  for (let i = 0; i < ahead; i++) await sql`SELECT add_events_partition(${1 + i * size}::bigint, ${1 + (i + 1) * size}::bigint)`.execute(db);
}

/** A clock that runs with the real one, `offsetMs` ahead: a test moves it on to make history old. */
export class MovableClock {
  offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
}

const padded = (position: number) => String(position).padStart(19, '0');
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A row of the hot log as read here: recorded_at in microseconds (what the hash reads), the hash as hex. */
interface HotRow extends Omit<EventRow, 'recorded_at'> {
  recorded_at_us: number;
  hash: string;
}

/**
 * What is wrong with the log's archive and its continuation in the hot log, checked from the files and the
 * database directly (none expected): the segment files' ranges follow each other from the first without gap
 * or overlap and are named by them; each stream's chain recomputes (eventHash) through every file from the
 * previous file's end head to the file's own, and on through the hot log from the last; every
 * LogSegmentArchived (in the files or the hot log) names a file of exactly its size, SHA-256 and end heads,
 * and a checkpoint file as of its last position; archived_heads holds each stream's last archived head; the
 * database keeps the newest checkpoint only; no hot event lies inside the archive.
 */
export async function archiveProblems(db: Kysely<Tables>, destination: Destination): Promise<string[]> {
  const problems: string[] = [];
  const heads = new Map<string, ChainHead & { position: number }>();
  const files = new Map<string, { sha256: string; bytes: number; heads: Array<[string, number, string]> }>();
  const records: LogSegmentArchivedData[] = [];
  let next: number | null = null;
  const chainOn = (e: SegmentEvent, hash: string | null, chain: Map<string, ChainHead>) => {
    const before = chain.get(e.streamId) ?? { version: 0, hash: null };
    const recomputed = eventHash(before.hash, e);
    if (e.streamVersion !== before.version + 1 || (hash !== null && recomputed !== hash)) problems.push(`position ${e.position}: ${e.streamId} version ${e.streamVersion} does not follow version ${before.version}`);
    chain.set(e.streamId, { version: e.streamVersion, hash: recomputed });
    if (e.type === 'LogSegmentArchived') records.push(e.data as unknown as LogSegmentArchivedData);
  };

  for (const object of await destination.list('segments/')) {
    const bytes = (await destination.get(object.name))!;
    files.set(object.name, { sha256: sha256(bytes), bytes: bytes.length, heads: [] });
    let segment: OpenedSegment;
    try {
      segment = openSegment(bytes);
    } catch (e) {
      problems.push(`${object.name}: ${(e as Error).message}`);
      continue;
    }
    const { first, last } = segment.summary.positions;
    if (object.name !== `segments/${padded(first)}-${padded(last)}.fseg`) problems.push(`${object.name} holds positions ${first}..${last}`);
    if (next !== null && first !== next) problems.push(`${object.name} begins at ${first}, not right after the file before it (${next - 1})`);
    next = last + 1;
    const chain = new Map<string, ChainHead>();
    for (const s of segment.streams) {
      const known = heads.get(s.streamId) ?? { version: 0, hash: null };
      if (known.version !== s.start.version || known.hash !== s.start.hash) problems.push(`${object.name}: ${s.streamId} starts at version ${s.start.version}, the archive before it ends at ${known.version}`);
      chain.set(s.streamId, s.start);
    }
    const lastPosition = new Map<string, number>();
    for (const e of segment.events()) {
      chainOn(e, null, chain);
      lastPosition.set(e.streamId, e.position);
    }
    for (const s of segment.streams) {
      if (chain.get(s.streamId)!.hash !== s.end.hash) problems.push(`${object.name}: ${s.streamId}'s chain recomputes to another end head than recorded`);
      heads.set(s.streamId, { ...s.end, position: lastPosition.get(s.streamId)! });
    }
    files.get(object.name)!.heads = segment.streams.map((s) => [s.streamId, s.end.version, s.end.hash!]);
  }

  const { rows } = await sql<HotRow>`
    SELECT position, tx_id::text AS tx_id, stream_id, stream_version, event_id::text AS event_id, type, schema_version, data, metadata,
           (extract(epoch FROM recorded_at) * 1000000)::bigint AS recorded_at_us, hash
    FROM event_history ORDER BY position`.execute(db);
  if (next !== null && rows.length > 0 && rows[0]!.position < next) problems.push(`the hot log holds position ${rows[0]!.position}, inside the archive`);
  const hot = new Map<string, ChainHead>(heads);
  for (const r of rows) {
    const e = { position: r.position, txId: r.tx_id, streamId: r.stream_id, streamVersion: r.stream_version, eventId: r.event_id, type: r.type, schemaVersion: r.schema_version, data: r.data, metadata: r.metadata, recordedAtMicros: r.recorded_at_us };
    chainOn(e, r.hash, hot);
  }

  const recorded = records.map((r) => r.segment.name);
  if (JSON.stringify(recorded) !== JSON.stringify([...files.keys()])) problems.push(`LogSegmentArchived records ${recorded.join(', ')}; the archive holds ${[...files.keys()].join(', ')}`);
  for (const [i, r] of records.entries()) {
    if (r.first_position !== (i === 0 ? r.first_position : records[i - 1]!.last_position + 1)) problems.push(`${r.segment.name} is recorded out of order`);
    const file = files.get(r.segment.name);
    if (file && (file.sha256 !== r.segment.sha256 || file.bytes !== r.segment.bytes)) problems.push(`${r.segment.name} is not the file recorded`);
    if (file && JSON.stringify(file.heads) !== JSON.stringify(r.heads)) problems.push(`${r.segment.name}: its end heads are not the ones recorded`);
    const checkpoint = decodeCheckpoint(await readVerified(destination, r.checkpoint.name, { size: r.checkpoint.bytes, sha256: r.checkpoint.sha256 }));
    if (checkpoint.position !== r.last_position || r.checkpoint.name !== `checkpoints/${padded(r.last_position)}.fckp`) problems.push(`${r.checkpoint.name} is not as of ${r.last_position}`);
  }

  const archivedHeads = await db.selectFrom('archived_heads').selectAll().orderBy('stream_id').execute();
  const expected = [...heads].sort(([a], [b]) => (a < b ? -1 : 1)).map(([stream_id, h]) => ({ stream_id, stream_version: h.version, hash: h.hash, position: h.position }));
  const actual = archivedHeads.map((h) => ({ stream_id: h.stream_id, stream_version: h.stream_version, hash: h.hash.toString('hex'), position: h.position }));
  if (JSON.stringify(actual) !== JSON.stringify(expected)) problems.push('archived_heads is not where the archived chains end');
  const stored = await db.selectFrom('projection_checkpoints').select(['position', 'sha256']).execute();
  const newest = records.at(-1);
  if (JSON.stringify(stored) !== JSON.stringify(newest ? [{ position: newest.last_position, sha256: newest.checkpoint.sha256 }] : [])) {
    problems.push(`projection_checkpoints holds ${JSON.stringify(stored)}, not the newest archived checkpoint only`);
  }
  return problems;
}
