import type { RecordedEvent } from '@fleetplane/core';
import { sql, type SelectQueryBuilder } from 'kysely';
import type { Tables } from '../database/tables.ts';
import { isStoredAsUuid } from './recorded.ts';

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
}

/** The filter as SQL, for reads that can use the indexes on events. */
export function whereFilter<O>(q: SelectQueryBuilder<Tables, 'events', O>, f: LogFilter): SelectQueryBuilder<Tables, 'events', O> {
  if (f.streamId !== undefined) q = q.where('stream_id', '=', f.streamId);
  if (f.types !== undefined && f.types.length > 0) q = q.where('type', 'in', f.types);
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
 * Whether a filter passes most of the log: no filter, or types only with NodeReported among them (reports are
 * most events). Such a read walks each segment's tx_id index in order, which gives its next events at once.
 * Any other filter passes few events of most segments, and walking a segment in that order to its end to find
 * none would read all of it: its matches are found through their own indexes, and sorted (readAll).
 */
export function passesMostEvents(f: LogFilter): boolean {
  const others = f.streamId ?? f.correlationId ?? f.actor ?? f.since ?? f.until;
  return others === undefined && (f.types === undefined || f.types.length === 0 || f.types.includes('NodeReported'));
}

/** The same filter in memory, for followers that read the whole log and must move past what they skip. */
export function matchesFilter(e: RecordedEvent, f: LogFilter): boolean {
  return (
    (f.streamId === undefined || e.streamId === f.streamId) &&
    (f.types === undefined || f.types.length === 0 || f.types.includes(e.type)) &&
    (f.correlationId === undefined || e.metadata.correlation_id === f.correlationId) &&
    (f.actor === undefined || e.metadata.actor === f.actor) &&
    (f.since === undefined || e.recordedAt.getTime() >= f.since.getTime()) &&
    (f.until === undefined || e.recordedAt.getTime() < f.until.getTime())
  );
}
