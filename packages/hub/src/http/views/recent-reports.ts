import { z } from 'zod';
import type { RecentReports } from '../../event-store/recent-reports.ts';

const ReportCount = z.object({ reports: z.number().int(), changed: z.number().int() });

/** A node's report rate: its reports recorded in the last minute and hour, and how many of them changed its state. */
export const RecentReportsView = z.object({ last_minute: ReportCount, last_hour: ReportCount }).meta({ id: 'RecentReportsView' });
export type RecentReportsView = z.infer<typeof RecentReportsView>;

/** One node's line of GET /report-rates: its last report, then its recent ones. */
export const ReportRateView = z.object({
  node_id: z.string(),
  last_report_seq: z.number().nullable(),
  last_report_at: z.string().nullable(),
  ...RecentReportsView.shape,
}).meta({ id: 'ReportRateView' });

export const recentReportsView = (r: RecentReports): RecentReportsView => ({ last_minute: r.lastMinute, last_hour: r.lastHour });
