import type { Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';
import { listSegments, type Segment } from '../event-store/segments.ts';
import { archiveRecord } from './record.ts';

/** When closed segments leave the hot log (`log.hot_retention`, `log.hot_max_bytes`). */
export interface ArchivePolicy {
  hotRetentionMs: number;
  /** Null: no limit by size. */
  hotMaxBytes: number | null;
}

/**
 * A segment's place in the log's lifecycle: `hot` while it can still be written (the current one and those
 * ahead), `closed` once nothing can be added to it, `archiving` once it is due to leave (past the retention
 * or the size limit, or archived already and waiting to be dropped).
 */
export const SEGMENT_STATES = ['hot', 'closed', 'archiving'] as const;
export type SegmentState = (typeof SEGMENT_STATES)[number];

export interface PlannedSegment extends Segment {
  state: SegmentState;
  /** The LogSegmentArchived event records it already: only its partition is left to drop. */
  recorded: boolean;
}

/**
 * The log's segments in position order, with their state. Segments leave oldest first: the next one to
 * archive starts where the archive ends, and its streams' chains continue from the heads archived before it.
 * So only a run of the oldest segments is due, each closed, never the newest written one (nor one ahead),
 * each older than the retention (its newest event, the one at its last position) or taken while the hot log
 * is larger than its limit; the first segment that is not due ends the run.
 */
export async function planSegments(db: Kysely<Tables>, policy: ArchivePolicy, now: Date): Promise<PlannedSegment[]> {
  const [segments, record] = await Promise.all([listSegments(db), archiveRecord(db)]);
  const newest = segments.findLastIndex((s) => !s.ahead);
  let hotBytes = segments.reduce((sum, s) => sum + s.bytes, 0);
  let due = true;
  const planned: PlannedSegment[] = [];
  for (const [i, s] of segments.entries()) {
    const recorded = record.lastPosition !== null && s.to - 1 <= record.lastPosition;
    if (due && !recorded) {
      const tooLarge = policy.hotMaxBytes !== null && hotBytes > policy.hotMaxBytes;
      due = s.closed && i < newest && (tooLarge || (await pastRetention(db, s, policy, now)));
    }
    if (due) hotBytes -= s.bytes;
    planned.push({ ...s, recorded, state: due ? 'archiving' : s.closed ? 'closed' : 'hot' });
  }
  return planned;
}

/** Its newest event is older than the retention; an empty segment keeps nothing hot. */
async function pastRetention(db: Kysely<Tables>, s: Segment, policy: ArchivePolicy, now: Date): Promise<boolean> {
  const newest = await db
    .selectFrom('events')
    .select('recorded_at')
    .where('position', '>=', s.from)
    .where('position', '<', s.to)
    .orderBy('position', 'desc')
    .limit(1)
    .executeTakeFirst();
  return newest === undefined || newest.recorded_at.getTime() < now.getTime() - policy.hotRetentionMs;
}
