import { nodeOfStream, nodeStream } from '@fleetplane/core';
import { sql, type Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';
import { CHANGED_REPORT } from './filter.ts';

/** Reports a node sent over a window of time, and those of them that changed its state. */
export interface ReportCount {
  reports: number;
  changed: number;
}

/** A node's reports recorded in the last minute and the last hour before a time (the window's start excluded). */
export interface RecentReports {
  lastMinute: ReportCount;
  lastHour: ReportCount;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

export const NO_REPORTS: RecentReports = { lastMinute: { reports: 0, changed: 0 }, lastHour: { reports: 0, changed: 0 } };

/**
 * The recent reports of these nodes, counted in the log: a node's stream index gives its events, the time index
 * (BRIN on recorded_at) the pages of the last hour, and only the rows in both are read, so the cost follows the
 * nodes' reports in the hour, not the log's length. Nodes without a report in the hour are absent.
 */
export async function countRecentReports(db: Kysely<Tables>, nodeIds: readonly string[], now: Date): Promise<Map<string, RecentReports>> {
  if (nodeIds.length === 0) return new Map();
  const minuteAgo = new Date(now.getTime() - MINUTE_MS);
  const rows = await db
    .selectFrom('events')
    .select([
      'stream_id',
      sql<string>`count(*) FILTER (WHERE recorded_at > ${minuteAgo})`.as('minute_reports'),
      sql<string>`count(*) FILTER (WHERE recorded_at > ${minuteAgo} AND ${CHANGED_REPORT})`.as('minute_changed'),
      sql<string>`count(*)`.as('hour_reports'),
      sql<string>`count(*) FILTER (WHERE ${CHANGED_REPORT})`.as('hour_changed'),
    ])
    .where('stream_id', 'in', nodeIds.map(nodeStream))
    .where('type', '=', 'NodeReported')
    .where('recorded_at', '>', new Date(now.getTime() - HOUR_MS))
    .groupBy('stream_id')
    .execute();
  return new Map(
    rows.map((r) => [
      nodeOfStream(r.stream_id),
      {
        lastMinute: { reports: Number(r.minute_reports), changed: Number(r.minute_changed) },
        lastHour: { reports: Number(r.hour_reports), changed: Number(r.hour_changed) },
      },
    ]),
  );
}
