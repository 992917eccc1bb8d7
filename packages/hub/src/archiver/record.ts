import { archiveStream, decideSegmentArchived, ok, type ArchiveRecord, type LogSegmentArchivedData } from '@fleetplane/core';
import { sql, type Kysely } from 'kysely';
import type { EncodedCheckpoint } from '../checkpoints/checkpoint-file.ts';
import type { Command } from '../commands/pipeline.ts';
import type { Tables } from '../database/tables.ts';

/** A stream's chain head at the end of a segment: its last event there. */
export interface EndHead {
  streamId: string;
  version: number;
  /** Hex. */
  hash: string;
  position: number;
}

/**
 * What the log records of its archive: the version of `log:archive` and the last position of its newest
 * LogSegmentArchived. That event is always in the hot log: the segment holding it can only be archived by a
 * run that records a newer one. `lock`: the stream's head is locked (FOR UPDATE) until the transaction ends.
 */
export async function archiveRecord(db: Kysely<Tables>, options: { lock?: boolean } = {}): Promise<ArchiveRecord> {
  const lock = options.lock ? sql`FOR UPDATE` : sql``;
  const { rows } = await sql<{ stream_version: number }>`SELECT stream_version FROM stream_heads WHERE stream_id = ${archiveStream} ${lock}`.execute(db);
  const segments = rows[0]?.stream_version ?? 0;
  if (segments === 0) return { segments, lastPosition: null };
  const newest = await recordedSegment(db, { version: segments });
  if (newest === undefined) throw new Error(`${archiveStream} is at version ${segments}, but that LogSegmentArchived event is not in the log`);
  return { segments, lastPosition: newest.last_position };
}

/** The LogSegmentArchived event at a version of `log:archive`, or the one whose segment ends at a position. */
export async function recordedSegment(db: Kysely<Tables>, which: { version: number } | { lastPosition: number }): Promise<LogSegmentArchivedData | undefined> {
  let query = db.selectFrom('events').select('data').where('stream_id', '=', archiveStream).where('type', '=', 'LogSegmentArchived');
  query = 'version' in which ? query.where('stream_version', '=', which.version) : query.where(sql<number>`(data->>'last_position')::bigint`, '=', which.lastPosition);
  const row = await query.executeTakeFirst();
  return row?.data as LogSegmentArchivedData | undefined;
}

/**
 * Records an archived segment: LogSegmentArchived on `log:archive` at the version of the segments archived
 * before (decideSegmentArchived), and in the same transaction the chain heads it ends with (archived_heads)
 * and the projections' checkpoint as of its last position (projection_checkpoints, where only the newest is
 * kept: older ones are in the archive).
 */
export function recordSegmentArchived(data: LogSegmentArchivedData, heads: readonly EndHead[], checkpoint: EncodedCheckpoint): Command<ArchiveRecord, null> {
  return {
    name: 'RecordSegmentArchived',
    load: (trx) => archiveRecord(trx, { lock: true }),
    decide(record, now) {
      const decided = decideSegmentArchived(record, data);
      if (!decided.ok) return decided;
      return ok({
        events: decided.value.events,
        expectedVersions: { [archiveStream]: decided.value.expectedVersion },
        writes: (trx: Kysely<Tables>) => keepArchived(trx, heads, checkpoint, now),
        result: null,
      });
    },
  };
}

async function keepArchived(trx: Kysely<Tables>, heads: readonly EndHead[], checkpoint: EncodedCheckpoint, now: Date): Promise<void> {
  if (heads.length > 0) {
    await sql`
      INSERT INTO archived_heads (stream_id, stream_version, hash, position)
      SELECT stream_id, stream_version, decode(hash, 'hex'), position
      FROM unnest(${heads.map((h) => h.streamId)}::text[], ${heads.map((h) => h.version)}::bigint[],
                  ${heads.map((h) => h.hash)}::text[], ${heads.map((h) => h.position)}::bigint[]) AS h(stream_id, stream_version, hash, position)
      ON CONFLICT (stream_id) DO UPDATE SET stream_version = excluded.stream_version, hash = excluded.hash, position = excluded.position`.execute(trx);
  }
  await trx
    .insertInto('projection_checkpoints')
    .values({ position: checkpoint.position, taken_at: now, content: checkpoint.bytes, sha256: checkpoint.sha256 })
    .onConflict((c) => c.column('position').doUpdateSet({ taken_at: now, content: checkpoint.bytes, sha256: checkpoint.sha256 }))
    .execute();
  await trx.deleteFrom('projection_checkpoints').where('position', '<', checkpoint.position).execute();
}
