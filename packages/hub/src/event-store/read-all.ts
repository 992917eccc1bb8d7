import type { RecordedFleetEvent } from '@fleetplane/core';
import { sql, type Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';
import { walksInLogOrder, whereFilter, type LogFilter } from './filter.ts';
import { EVENT_COLUMNS, toRecordedEvent, type EventRow } from './recorded.ts';

/**
 * A place in the whole log: the (transaction id, position) of the last event read.
 * Encoded as `<tx_id>-<position>` where it leaves the Hub (SSE ids, `after`, `next_cursor`).
 */
export interface LogCursor {
  txId: string;
  position: number;
}

export const START: LogCursor = { txId: '0', position: 0 };

export function encodeCursor(c: LogCursor): string {
  return `${c.txId}-${c.position}`;
}

export function decodeCursor(text: string): LogCursor | null {
  const m = /^(\d{1,20})-(\d+)$/.exec(text);
  const position = m ? decodePosition(m[2]!) : null;
  // Out of xid8's range is garbage too: not a database error.
  if (!m || position === null || BigInt(m[1]!) > 0xffff_ffff_ffff_ffffn) return null;
  return { txId: m[1]!, position };
}

/**
 * A log position written in decimal, or null. The log's bigint goes further than a JS number holds exactly,
 * and the Hub reads positions as numbers: beyond that is garbage too, not a database error.
 */
export function decodePosition(text: string): number | null {
  const position = /^\d{1,19}$/.test(text) ? Number(text) : NaN;
  return Number.isSafeInteger(position) ? position : null;
}

/**
 * The events' data a read of the API or of a log follower takes at most (`maxDataBytes`): a page of a thousand
 * configuration versions of a MiB each was more text than one JSON answer can hold, and a GiB in the Hub.
 */
export const READ_DATA_BYTES = 16 * 1024 * 1024;

/** An event read from the log, with the cursor just after it: where a reader that stops here resumes. */
export type LoggedEvent = RecordedFleetEvent & { cursor: LogCursor };

export interface LogPage {
  events: LoggedEvent[];
  /** Where the next read starts; equal to the input cursor when nothing new is visible yet. */
  cursor: LogCursor;
  /** The read ended at `maxDataBytes` (LogRange) before its limit: more events follow the cursor. */
  cutShort: boolean;
}

/**
 * Which part of the log a read takes, and in which direction: after `after`, before `before` (exclusive
 * both), oldest first unless `newestFirst`.
 */
export interface LogRange {
  before?: LogCursor | undefined;
  newestFirst?: boolean;
  /**
   * At most this many bytes of events' data as JSON text, the first event always: a read of large events (a
   * configuration version holds up to a MiB) ends early, and the next read goes on from where it ended.
   */
  maxDataBytes?: number;
}

/**
 * Reads the log in commit-safe order. Only events of transactions older than every transaction still
 * running are returned, ordered by (tx_id, position): an event committed later with a smaller position
 * is read when its transaction ends, never skipped. Nothing is skipped on a timeout either.
 * With a filter only matching events are read, and the cursor names the last of them. Newest first, the same
 * events come in the reverse order: a reader pages back with `before` = the last event's cursor, and follows
 * what commits later from the first one's.
 */
export async function readAll(db: Kysely<Tables>, after: LogCursor = START, limit = 500, filter: LogFilter = {}, range: LogRange = {}): Promise<LogPage> {
  const rows: Array<EventRow & { page_rows?: string }> = await logQuery(db, after, limit, filter, range).execute();
  const events = rows.map((r) => ({ ...toRecordedEvent(r), cursor: { txId: String(r.tx_id), position: r.position } }));
  return { events, cursor: events.at(-1)?.cursor ?? after, cutShort: rows.length > 0 && Number(rows[0]!.page_rows ?? 0) > rows.length };
}

/** The statement readAll runs: apart, so that its plan can be examined. */
export function logQuery(db: Kysely<Tables>, after: LogCursor, limit: number, filter: LogFilter, range: LogRange = {}) {
  let matching = whereFilter(db.selectFrom('events').select(EVENT_COLUMNS), filter)
    .where(sql<boolean>`(tx_id, position) > (${after.txId}::xid8, ${after.position}::bigint)`)
    .where(sql<boolean>`tx_id < pg_snapshot_xmin(pg_current_snapshot())`);
  if (range.before) matching = matching.where(sql<boolean>`(tx_id, position) < (${range.before.txId}::xid8, ${range.before.position}::bigint)`);
  const direction = range.newestFirst ? 'desc' : 'asc';
  // The same order either way; as one row value, no index provides it, so the matches are sorted (walksInLogOrder).
  const ordered = walksInLogOrder(filter)
    ? matching.orderBy('tx_id', direction).orderBy('position', direction)
    : matching.orderBy(sql`(tx_id, position) ${sql.raw(direction)}`);
  if (range.maxDataBytes === undefined) return ordered.limit(limit);
  // The running size is summed over the page already limited: a window over the matches would read them all.
  // The size is the text's, as sent, not the stored one: a MiB of repeated text is stored in a few KB.
  const inOrder = sql`ORDER BY tx_id ${sql.raw(direction)}, position ${sql.raw(direction)}`;
  const sized = db
    .selectFrom(ordered.limit(limit).as('page'))
    .selectAll()
    .select(sql<number>`sum(pg_column_size(data)) OVER (${inOrder}) - pg_column_size(data)`.as('bytes_before'))
    .select(sql<string>`count(*) OVER ()`.as('page_rows'));
  return db
    .selectFrom(sized.as('sized'))
    .selectAll()
    .where(sql<boolean>`bytes_before < ${range.maxDataBytes}`)
    .orderBy('tx_id', direction)
    .orderBy('position', direction);
}

/**
 * The end of the commit-safe log: every event not yet readable belongs to a transaction at or above the
 * horizon, so it sorts after this cursor. A reader starting here sees exactly what commits from now on.
 */
export async function logEnd(db: Kysely<Tables>): Promise<LogCursor> {
  const last = await db
    .selectFrom('events')
    .select(['tx_id', 'position'])
    .where(sql<boolean>`tx_id < pg_snapshot_xmin(pg_current_snapshot())`)
    .orderBy('tx_id', 'desc')
    .orderBy('position', 'desc')
    .limit(1)
    .executeTakeFirst();
  return last ? { txId: String(last.tx_id), position: last.position } : START;
}
