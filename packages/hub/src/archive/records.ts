import { archiveStream, upcast, type ArchivedFile, type LogSegmentArchivedData } from '@fleetplane/core';
import { sql, type Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';

/**
 * The archive's record: one LogSegmentArchived event per archived segment on the stream `log:archive`, the n-th
 * segment at stream version n. Old records are archived like any event: the database holds the newest ones,
 * the rest are in the segment files after the segments they describe.
 */
export interface ArchiveRecord extends LogSegmentArchivedData {
  /** The segment's number: the record's stream version. */
  segment_number: number;
  /** The record's own position in the log. */
  position: number;
}

/** The records the database holds, oldest first. Each is as appended; a malformed one throws when parsed (recordOf). */
export async function recordsInLog(db: Kysely<Tables>): Promise<Array<{ stream_version: number; position: number; schema_version: number; data: unknown }>> {
  const { rows } = await sql<{ stream_version: number; position: number; schema_version: number; data: unknown }>`
    SELECT stream_version, position, schema_version, data FROM events
    WHERE stream_id = ${archiveStream} AND type = 'LogSegmentArchived' ORDER BY stream_version`.execute(db);
  return rows;
}

/** The newest record: where the archived history ends (null: nothing is archived). It is always in the hot log. */
export async function newestRecord(db: Kysely<Tables>): Promise<ArchiveRecord | null> {
  const { rows } = await sql<{ stream_version: number; position: number; schema_version: number; data: unknown }>`
    SELECT stream_version, position, schema_version, data FROM events
    WHERE stream_id = ${archiveStream} AND type = 'LogSegmentArchived' ORDER BY stream_version DESC LIMIT 1`.execute(db);
  return rows[0] ? recordOf(rows[0]) : null;
}

/** A record from its event, upcast as readers do; an event that does not hold one throws, saying what is wrong. */
export function recordOf(event: { stream_version: number; position: number; schema_version: number; data: unknown }): ArchiveRecord {
  const { data } = upcast('LogSegmentArchived', event.schema_version, event.data as Record<string, unknown>);
  const d = data as Partial<LogSegmentArchivedData>;
  const position = (p: unknown) => Number.isSafeInteger(p) && (p as number) >= 0;
  const file = (f: ArchivedFile | undefined) =>
    typeof f === 'object' && f !== null && typeof f.name === 'string' && Number.isSafeInteger(f.bytes) && typeof f.sha256 === 'string' && /^[0-9a-f]{64}$/.test(f.sha256);
  const txId = (x: unknown) => typeof x === 'string' && /^\d+$/.test(x);
  // An empty segment has no transactions: both null.
  const txIds = d.events === 0 ? d.first_tx_id === null && d.last_tx_id === null : txId(d.first_tx_id) && txId(d.last_tx_id);
  const head = (h: unknown) =>
    Array.isArray(h) && h.length === 3 && typeof h[0] === 'string' && Number.isSafeInteger(h[1]) && typeof h[2] === 'string' && /^[0-9a-f]{64}$/.test(h[2]);
  const wrong = [
    !position(d.first_position) || !position(d.last_position) || d.first_position! > d.last_position! ? 'its position range' : null,
    !Number.isSafeInteger(d.events) ? 'its event count' : null,
    !txIds ? 'its transaction range' : null,
    typeof d.destination !== 'string' ? 'its destination' : null,
    !file(d.segment) ? 'its segment file' : null,
    !file(d.checkpoint) ? 'its checkpoint file' : null,
    !Array.isArray(d.heads) || !d.heads.every(head) ? 'its chain heads' : null,
  ].filter((w) => w !== null);
  if (wrong.length > 0) throw new Error(`the LogSegmentArchived at position ${event.position} has no valid ${wrong.join(', ')}`);
  return { ...(d as LogSegmentArchivedData), segment_number: event.stream_version, position: event.position };
}
