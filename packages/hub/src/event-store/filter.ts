import { repeatsLastReport, type NodeReportedData, type RecordedFleetEvent } from '@fleetplane/core';
import { sql, type SelectQueryBuilder } from 'kysely';
import type { Tables } from '../database/tables.ts';
import { isStoredAsUuid } from './recorded.ts';

/**
 * Which reports (NodeReported) a history reader wants: every one (`all`), all but those that repeated their
 * node's last state (`changed`), or none.
 */
export const REPORT_FILTERS = ['changed', 'all', 'none'] as const;
export type ReportFilter = (typeof REPORT_FILTERS)[number];

/**
 * Which events a history reader wants; every criterion given must hold (AND). Times are on `recorded_at`,
 * half-open: `since` inclusive, `until` exclusive.
 */
export interface LogFilter {
  streamId?: string;
  /** Any of these types. */
  types?: readonly string[];
  correlationId?: string;
  actor?: string;
  since?: Date;
  until?: Date;
  /** Absent: every report. */
  reports?: ReportFilter;
}

/** A stored report that did not repeat its node's last state: version 2 holds `streams` only then, version 1 held null. */
export const CHANGED_REPORT = sql<boolean>`data->'streams' <> 'null'::jsonb`;
/** Every event but a repeated report: the predicate of the index events_tx_unrepeated (migration 0012), spelled as there so that PostgreSQL uses it. */
const UNREPEATED = sql<boolean>`(type <> 'NodeReported' OR ${CHANGED_REPORT})`;
const NO_REPORTS = sql<boolean>`type <> 'NodeReported'`;

/** The types a filter passes, if it names any: without NodeReported when it wants no reports (possibly none left). */
function typesOf(f: LogFilter): readonly string[] | undefined {
  if (f.types === undefined || f.types.length === 0) return undefined;
  return f.reports === 'none' ? f.types.filter((t) => t !== 'NodeReported') : f.types;
}

/** The filter as SQL, for reads that can use the indexes on events. */
export function whereFilter<O>(q: SelectQueryBuilder<Tables, 'events', O>, f: LogFilter): SelectQueryBuilder<Tables, 'events', O> {
  const types = typesOf(f);
  if (f.streamId !== undefined) q = q.where('stream_id', '=', f.streamId);
  if (types !== undefined) q = types.length > 0 ? q.where('type', 'in', types) : q.where(sql<boolean>`false`);
  // Only a read that may meet reports leaves some out: with named types, typesOf took care of `none`.
  if (f.reports === 'changed' && (types === undefined || types.includes('NodeReported'))) q = q.where(UNREPEATED);
  if (f.reports === 'none' && types === undefined) q = q.where(NO_REPORTS);
  if (f.correlationId !== undefined) {
    q = isStoredAsUuid(f.correlationId) ? q.where('correlation_id', '=', f.correlationId) : q.where(sql<string>`metadata->>'correlation_id'`, '=', f.correlationId);
  }
  // The actor is never left out of the stored metadata (it has no default).
  if (f.actor !== undefined) q = q.where(sql<string>`metadata->>'actor'`, '=', f.actor);
  if (f.since !== undefined) q = q.where('recorded_at', '>=', f.since);
  if (f.until !== undefined) q = q.where('recorded_at', '<', f.until);
  return q;
}

/**
 * Whether a read walks each segment's tx_id index in log order, which gives its next events at once: the filter
 * passes most of the log (none, or types with NodeReported among them), or all of it but the reports it leaves
 * out (`reports` alone: events_tx_unrepeated holds every event but a repeated report, in the same order).
 * Any other filter passes few events of most segments, and walking a segment in that order to its end to find
 * none would read all of it: its matches are found through their own indexes, and sorted (readAll).
 */
export function walksInLogOrder(f: LogFilter): boolean {
  const others = f.streamId ?? f.correlationId ?? f.actor ?? f.since ?? f.until;
  const types = typesOf(f);
  return others === undefined && (types === undefined || types.includes('NodeReported'));
}

/** The same filter in memory, for followers that read the whole log and must move past what they skip. */
export function matchesFilter(e: RecordedFleetEvent, f: LogFilter): boolean {
  return (
    (f.streamId === undefined || e.streamId === f.streamId) &&
    (f.types === undefined || f.types.length === 0 || f.types.includes(e.type)) &&
    (e.type !== 'NodeReported' || passesReport(e.data, f.reports)) &&
    (f.correlationId === undefined || e.metadata.correlation_id === f.correlationId) &&
    (f.actor === undefined || e.metadata.actor === f.actor) &&
    (f.since === undefined || e.recordedAt.getTime() >= f.since.getTime()) &&
    (f.until === undefined || e.recordedAt.getTime() < f.until.getTime())
  );
}

const passesReport = (d: NodeReportedData, reports: ReportFilter = 'all'): boolean =>
  reports === 'all' || (reports === 'changed' && !repeatsLastReport(d));
