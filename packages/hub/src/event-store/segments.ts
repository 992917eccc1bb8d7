import { sql, type Kysely } from 'kysely';
import { ADVISORY_LOCKS } from '../database/advisory-locks.ts';
import type { Tables } from '../database/tables.ts';

/**
 * Segments of the log: the partitions of `events` (migration 0010), each holding a range of positions.
 * History leaves the database a whole segment at a time, never by a row DELETE.
 */
export interface Segment {
  /** The partition: `events_<first position, zero-padded to 19 digits>`. */
  name: string;
  /** Its first position. */
  from: number;
  /** The first position after it. */
  to: number;
  /** Table, indexes and TOAST. */
  bytes: number;
  /** No position of its range has been handed out yet: it is ahead of the sequence. */
  ahead: boolean;
  /**
   * Nothing can be added to it any more: every position of its range has been handed out, and no transaction
   * that inserted into it is still running (an insert holds a lock on its partition until it ends). A
   * statement that took a position in the range a moment ago and has not locked the partition yet is not seen
   * here: whoever must be exact (an export) locks the partition in SHARE mode, which waits for it, and reads then.
   */
  closed: boolean;
}

/** How new segments are sized: to span `durationMs` at the rate the log grew lately, within the bounds. */
export interface SegmentPolicy {
  durationMs: number;
  minEvents: number;
  maxEvents: number;
  /** Empty segments kept ahead of the position sequence: an append to a position no segment holds fails. */
  ahead: number;
}

export const SEGMENT_BOUNDS = { minEvents: 100_000, maxEvents: 50_000_000, ahead: 2 } as const;

/** The log's segments in position order. */
export async function listSegments(db: Kysely<Tables>): Promise<Segment[]> {
  return (await readSegments(db)).segments;
}

/** The segments, and the last position the sequence handed out (0: none). */
async function readSegments(db: Kysely<Tables>): Promise<{ segments: Segment[]; handed: number }> {
  const { rows } = await sql<{ name: string; bound: string | null; bytes: number | null; written: boolean; handed: number }>`
    SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound, pg_total_relation_size(c.oid) AS bytes,
      EXISTS (SELECT FROM pg_locks l WHERE l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND l.relation = c.oid AND l.mode = 'RowExclusiveLock' AND l.pid <> pg_backend_pid()) AS written,
      (SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM events_position_seq) AS handed
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'events'::regclass`.execute(db);
  const handed = rows[0]?.handed ?? (await handedOut(db));
  const segments = rows
    // A segment the archiver detaches and drops while this reads answers no bounds or size: it is leaving.
    .filter((r): r is typeof r & { bound: string; bytes: number } => r.bound !== null && r.bytes !== null)
    .map(({ name, bound, bytes, written }) => {
      const range = /FROM \('(\d+)'\) TO \('(\d+)'\)/.exec(bound);
      if (!range) throw new Error(`partition ${name} of events has bounds no segment has: ${bound}`);
      const from = Number(range[1]);
      const to = Number(range[2]);
      return { name, from, to, bytes: Number(bytes), ahead: from > handed, closed: to - 1 <= handed && !written };
    })
    .sort((a, b) => a.from - b.from);
  return { segments, handed };
}

// One key for every Hub: the Hubs sharing a database check in turns, and one that finds the lock taken skips.
const LOCK_KEY = ADVISORY_LOCKS.segments;

/**
 * Adds segments until `policy.ahead` empty ones are ahead of the position sequence; answers with the names
 * added. Idempotent, and safe when several Hubs run it at once: one holds the advisory lock, the others add
 * nothing. A segment is attached to events with a SHARE UPDATE EXCLUSIVE lock, which appends and reads do not
 * wait for; the lock timeout keeps a long-running maintenance (VACUUM, an index build) from holding it up.
 */
export async function keepSegmentsAhead(db: Kysely<Tables>, policy: SegmentPolicy, now: Date): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ locked: boolean }>`SELECT set_config('lock_timeout', '5s', true), pg_try_advisory_xact_lock(${LOCK_KEY}) AS locked`.execute(trx);
    if (!rows[0]!.locked) return [];
    const { segments, handed } = await readSegments(trx);
    let ahead = segments.filter((s) => s.ahead).length;
    if (ahead >= policy.ahead) return [];
    const size = await segmentSize(trx, policy, segments, handed, now);
    const added: string[] = [];
    // After the last segment; past the sequence if it ever outran them (its positions since can hold nothing).
    let from = Math.max(segments.at(-1)?.to ?? 1, handed + 1);
    for (; ahead < policy.ahead; ahead++, from += size) {
      const { rows: made } = await sql<{ name: string }>`SELECT add_events_partition(${from}::bigint, ${from + size}::bigint) AS name`.execute(trx);
      added.push(made[0]!.name);
    }
    return added;
  });
}

export interface SegmentUpkeep {
  stop(): void;
}

/**
 * Keeps segments ahead every `everyMs` (keepSegmentsAhead) until stopped: what a Hub runs, and what a tool that
 * appends without a Hub runs meanwhile. A failed check is reported and tried again at the next.
 */
export function keepSegmentsAheadEvery(
  db: Kysely<Tables>,
  policy: SegmentPolicy,
  options: { everyMs: number; now: () => Date; onChecked?: (added: string[]) => void; onError: (error: unknown) => void },
): SegmentUpkeep {
  const timer = setInterval(() => {
    keepSegmentsAhead(db, policy, options.now()).then((added) => options.onChecked?.(added), options.onError);
  }, options.everyMs);
  return { stop: () => clearInterval(timer) };
}

/** The last position the sequence handed out (0: none). */
async function handedOut(db: Kysely<Tables>): Promise<number> {
  const { rows } = await sql<{ handed: number }>`SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END AS handed FROM events_position_seq`.execute(db);
  return rows[0]!.handed;
}

/**
 * Events per segment: the rate since the first event of the segment before the current one (one to two
 * segments of recent history) times the duration, rounded up to a thousand and kept within the bounds.
 */
async function segmentSize(db: Kysely<Tables>, policy: SegmentPolicy, segments: readonly Segment[], handed: number, now: Date): Promise<number> {
  const current = segments.findIndex((s) => s.from <= handed && handed < s.to);
  const since = segments[Math.max(current - 1, 0)];
  let rate = 0;
  if (current >= 0 && since) {
    const first = await db.selectFrom('events').select(['position', 'recorded_at']).where('position', '>=', since.from).orderBy('position').limit(1).executeTakeFirst();
    const elapsedMs = first ? now.getTime() - first.recorded_at.getTime() : 0;
    if (first && elapsedMs > 0) rate = (handed - first.position + 1) / elapsedMs;
  }
  const size = Math.ceil((rate * policy.durationMs) / 1000) * 1000;
  return Math.min(Math.max(size, policy.minEvents), policy.maxEvents);
}
