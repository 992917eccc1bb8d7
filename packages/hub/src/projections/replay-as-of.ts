import type { Kysely } from 'kysely';
import { ArchiveError } from '../archive/archive-error.ts';
import { archivedEvents, archivedPositionBefore, listArchive, readCheckpointAtOrBefore, segmentsBetween } from '../archive/archived-events.ts';
import type { Destination } from '../archive/destination.ts';
import { newestRecord } from '../archive/records.ts';
import { storedCheckpoint } from '../checkpoints/derive.ts';
import type { Tables } from '../database/tables.ts';
import type { Projection } from './projection.ts';
import { lastPosition, rebuild, type Rebuilt, type Until } from './rebuild.ts';

export interface ReplayOptions {
  /** The schema to create and fill. */
  schema: string;
  /** As of this point; by default the whole log. */
  until?: Until;
  /** The archive's destination from its URL, as the newest LogSegmentArchived names it; or where a copy of it is. */
  archive(url: string): Destination;
}

export interface Replayed extends Rebuilt {
  /** The position of the checkpoint the replay started from (null: empty tables). */
  start: number | null;
  /** Where the events replayed were read: the archive's files or the hot log. */
  source: 'archive' | 'log';
}

/**
 * The projections as of a point of the whole history, archived or hot, rebuilt into a new schema: from the
 * newest checkpoint at or before it, then the events after that up to it. A point inside the archive reads the
 * checkpoint file and the segment files up to it (nothing else of the archive); a point in the hot log, the
 * stored checkpoint and the hot log. A time is turned into a position as the hot log's rebuild does: every event
 * before the first one recorded after it, archived or hot.
 */
export async function replayAsOf(db: Kysely<Tables>, projections: readonly Projection[], options: ReplayOptions): Promise<Replayed> {
  const newest = await newestRecord(db);
  const archivedThrough = newest?.last_position ?? 0;
  let until = options.until;
  if (newest && until && ('time' in until || until.position <= archivedThrough)) {
    const archive = options.archive(newest.destination);
    const listing = await listArchive(archive, archivedThrough);
    if ('time' in until) {
      const position = await archivedPositionBefore(archive, listing, until.time);
      if (position !== null) until = { position };
    }
    if ('position' in until) {
      const last = until.position;
      const start = await readCheckpointAtOrBefore(archive, listing, last);
      const after = start?.position ?? 0;
      const files = segmentsBetween(listing, archive, after, last);
      const rebuilt = await rebuild(db, projections, { schema: options.schema, ...(start ? { start } : {}), events: archivedEvents(archive, files, after, last) });
      return { ...rebuilt, start: start?.position ?? null, source: 'archive' };
    }
  }

  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const last = until ? await lastPosition(trx, until) : null;
      const start = await storedCheckpoint(trx, last ?? Number.MAX_SAFE_INTEGER);
      // The hot log holds nothing archived once its segment is dropped: only the archived history's checkpoint can stand for it.
      if ((start?.position ?? 0) < archivedThrough) {
        throw new ArchiveError('archive_incomplete', `no checkpoint as of position ${archivedThrough}, where the archived history ends, is stored: replay --until a position inside the archive instead`);
      }
      const rebuilt = await rebuild(trx, projections, { schema: options.schema, ...(start ? { start } : {}), ...(last !== null ? { until: { position: last } } : {}) });
      return { ...rebuilt, start: start?.position ?? null, source: 'log' as const };
    });
}
