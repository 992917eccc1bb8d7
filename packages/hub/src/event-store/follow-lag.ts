import type { Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';
import { logEnd, logQuery, type LogCursor } from './read-all.ts';

/** The cursor furthest back in the log's reading order, (tx_id, position); null for none. */
export function furthestBehind(cursors: Iterable<LogCursor>): LogCursor | null {
  let behind: LogCursor | null = null;
  for (const c of cursors) {
    const tx = BigInt(c.txId);
    if (behind === null || tx < BigInt(behind.txId) || (tx === BigInt(behind.txId) && c.position < behind.position)) behind = c;
  }
  return behind;
}

/**
 * How far a reader at `cursor` is behind the end of the commit-safe log (logEnd: where a reader starting now
 * would start), in positions: the end's position less the cursor's, 0 at the end. About the number of events
 * still to read: positions have gaps (an append rolled back keeps its numbers).
 */
export async function lagPositions(db: Kysely<Tables>, cursor: LogCursor): Promise<number> {
  const end = await logEnd(db);
  return Math.max(0, end.position - cursor.position);
}

/** How long the oldest event a reader at `cursor` has still to read has been in the log; 0 when it has read them all. */
export async function lagSeconds(db: Kysely<Tables>, cursor: LogCursor, now: Date): Promise<number> {
  const next = await logQuery(db, cursor, 1, {}).executeTakeFirst();
  return next ? Math.max(0, (now.getTime() - next.recorded_at.getTime()) / 1000) : 0;
}
