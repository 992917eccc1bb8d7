import { healthOf, storedHealth, type StoredHealth } from './health.ts';
import type { ObservedStream } from './observed.ts';
import type { Report } from './full-report.ts';

/**
 * A stream as a report stores it: its id, generation and state, then its last action id, its error and its
 * health when any is set (trailing nulls are left out).
 */
export type StoredStream = [
  stream_id: string,
  generation: number,
  state: string,
  last_action_id?: string | null,
  error?: string | null,
  health?: StoredHealth | null,
];

/**
 * `NodeReported` data, schema version 2: most of the log is reports, so a report keeps only what cannot be
 * derived. One that repeats the node's last state is its sequence number alone; one that changed also holds
 * what the node runs (`streams`), its applied configuration (`config`) and its recovery points (`points`).
 * The node is the stream's; the boot is the one the node registered last, the only one whose reports are
 * accepted; the digest is recomputed from the node's last changed report (reportDigest(reportedContent(…))).
 * Version 1 stored all of these in every report; its upcaster keeps the boot it named (`boot_id`).
 */
export interface NodeReportedData {
  seq: number;
  /** Only in a report of version 1, which named its boot. */
  boot_id?: string;
  streams?: StoredStream[];
  config?: string | null;
  points?: Array<[ref: string, config_version: string]>;
}

/** What a full report says about the node, its sequence aside: what its digest is computed from. */
export type ReportContent = Pick<Report, 'streams' | 'configuration'>;

/** The event data of an accepted report; `repeated` when its content equals the node's last report's. */
export function reportedData(report: Report, repeated: boolean): NodeReportedData {
  if (repeated) return { seq: report.report_seq };
  return {
    seq: report.report_seq,
    streams: report.streams.map(storedStream),
    config: report.configuration.applied_version,
    points: report.configuration.recovery_points.map((p) => [p.ref, p.config_version]),
  };
}

/** Whether a report repeated its node's last state: its data is the sequence number alone (`{seq}`). */
export const repeatsLastReport = (d: NodeReportedData): boolean => d.streams === undefined;

/** What a changed report said, as the report gave it (in the report's own key order); null for a repeated one. */
export function reportedContent(d: NodeReportedData): ReportContent | null {
  if (d.streams === undefined) return null;
  return {
    streams: d.streams.map(([stream_id, generation, state, last_action_id = null, error = null, health = null]) =>
      health === null ? { stream_id, generation, state, last_action_id, error } : { stream_id, generation, state, last_action_id, error, health: healthOf(health) },
    ),
    configuration: {
      applied_version: d.config ?? null,
      recovery_points: (d.points ?? []).map(([ref, config_version]) => ({ ref, config_version })),
    },
  };
}

function storedStream(s: ObservedStream): StoredStream {
  if (s.health !== undefined) return [s.stream_id, s.generation, s.state, s.last_action_id, s.error, storedHealth(s.health)];
  if (s.error !== null) return [s.stream_id, s.generation, s.state, s.last_action_id, s.error];
  if (s.last_action_id !== null) return [s.stream_id, s.generation, s.state, s.last_action_id];
  return [s.stream_id, s.generation, s.state];
}

/** Version 1: every field in every report, `streams` null (and no configuration) when it repeated the last one. */
export interface NodeReportedDataV1 {
  node_id: string;
  boot_id: string;
  report_seq: number;
  digest: string;
  streams: ObservedStream[] | null;
  applied_config_version: string | null;
  recovery_points: Array<{ ref: string; config_version: string }> | null;
}

/** Version 1 to 2: the same report, its boot kept (a report of version 1 names it). */
export function upcastReportedV1(d: NodeReportedDataV1): NodeReportedData {
  if (d.streams === null) return { seq: d.report_seq, boot_id: d.boot_id };
  const content: ReportContent = {
    streams: d.streams,
    configuration: { applied_version: d.applied_config_version, recovery_points: d.recovery_points ?? [] },
  };
  return { ...reportedData({ node_id: d.node_id, boot_id: d.boot_id, report_seq: d.report_seq, full: true, ...content }, false), boot_id: d.boot_id };
}
