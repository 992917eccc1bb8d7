import { nodeOfStream, repeatsLastReport, reportDigest, reportedContent, type ObservedStream, type RecordedFleetEvent } from '@fleetplane/core';
import { sql, type Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';
import { keyMatch } from '../database/transaction-plan.ts';
import { projection, type ProjectionQuery } from './projection.ts';

/**
 * What nodes report: the report marks on `nodes`, and `observed_streams`, replaced whole by every report
 * that changed (a repeated report only moves the marks). A retired node's reports are forgotten with it.
 */
export const observedProjection = projection({
  name: 'observed',
  tables: { observed_streams: ['node_id', 'stream_id'] },
  handles: ['NodeReported', 'NodeRetired'],
  evolve: (event, db) => evolveObserved([event], db),
  evolveMany: evolveObserved,
  // Only runs of reports condense: every projection handling NodeRetired must condense for it to be asked to.
  condense: (events) => (isReports(events) ? condenseReports(events) : [...events]),
});

type Observing = RecordedFleetEvent<'NodeReported' | 'NodeRetired'>;

const isReports = (events: readonly Observing[]): events is readonly RecordedFleetEvent<'NodeReported'>[] => events[0]?.type === 'NodeReported';

/** A run of one type, as projectionQueries hands it over. */
function evolveObserved(events: readonly Observing[], db: Kysely<Tables>): ProjectionQuery[] {
  if (isReports(events)) return evolveReports(events, db);
  const retired = events.flatMap((e) => (e.type === 'NodeRetired' ? [e.data.node_id] : []));
  return [db.deleteFrom('observed_streams').where(sql<boolean>`node_id = ${keyMatch(retired)}`)];
}

interface Marks {
  node_id: string;
  /** Null: the boot the node registered last (see NodeReportedData). */
  boot_id: string | null;
  report_seq: number;
  at: Date;
}

interface Changed extends Marks {
  digest: string;
  applied_config_version: string | null;
  /** Every changed report of the run named this version: the node's mark of a version the log does not know stands. */
  same: boolean;
  recovery_points: string;
  streams: ObservedStream[];
}

/**
 * A run of reports in a few set-based statements, with the effect of applying them one by one. Reports
 * touch only their own node's rows, so per node only two matter: its last changed report (observed
 * streams, configuration, recovery points, digest) and its last report of all (the marks). Changed reports go
 * first, then the marks of nodes whose latest report repeated an earlier one. A changed report naming a version
 * `config_versions` does not hold marks the node ahead of the log from its configuration generation and time
 * then (`config_ahead_of`, `config_ahead_at`; core reconcile/ahead.ts).
 */
function evolveReports(events: readonly RecordedFleetEvent<'NodeReported'>[], db: Kysely<Tables>): ProjectionQuery[] {
  const changed = new Map<string, Changed>();
  const marks = new Map<string, Marks>();
  for (const event of events) {
    const d = event.data;
    const mark: Marks = { node_id: nodeOfStream(event.streamId), boot_id: d.boot_id ?? null, report_seq: d.seq, at: event.recordedAt };
    const content = reportedContent(d);
    if (content === null) {
      marks.set(mark.node_id, mark);
      continue;
    }
    marks.delete(mark.node_id);
    const before = changed.get(mark.node_id);
    const applied = content.configuration.applied_version;
    changed.set(mark.node_id, {
      ...mark,
      digest: reportDigest(content),
      applied_config_version: applied,
      same: before === undefined || (before.same && before.applied_config_version === applied),
      recovery_points: JSON.stringify(content.configuration.recovery_points),
      streams: content.streams,
    });
  }
  const queries: ProjectionQuery[] = [];
  if (changed.size > 0) queries.push(...changedReports([...changed.values()], db));
  if (marks.size > 0) queries.push(moveMarks([...marks.values()], db));
  return queries;
}

/**
 * Per node, its last changed report, the last before it that named another configuration version (whether
 * the version changed in the run), and its last report, in position order: all that evolveReports uses of a run.
 */
function condenseReports(events: readonly RecordedFleetEvent<'NodeReported'>[]): RecordedFleetEvent<'NodeReported'>[] {
  const lastChanged = new Map<string, RecordedFleetEvent<'NodeReported'>>();
  const last = new Map<string, RecordedFleetEvent<'NodeReported'>>();
  for (const event of events) {
    if (!repeatsLastReport(event.data)) lastChanged.set(event.streamId, event);
    last.set(event.streamId, event);
  }
  const otherVersion = new Map<string, RecordedFleetEvent<'NodeReported'>>();
  for (const event of events) {
    const final = lastChanged.get(event.streamId);
    if (!repeatsLastReport(event.data) && (event.data.config ?? null) !== (final?.data.config ?? null)) otherVersion.set(event.streamId, event);
  }
  const kept = new Set([...otherVersion.values(), ...lastChanged.values(), ...last.values()]);
  return events.filter((e) => kept.has(e));
}

/*
 * The statements below name their nodes twice: joined to the payload, and by keyMatch, so that the planner
 * probes the primary key for them rather than scanning every node, and a lone report's statement keeps one
 * plan for every node (database/transaction-plan.ts).
 */

function moveMarks(marks: Marks[], db: Kysely<Tables>): ProjectionQuery {
  return db
    .updateTable('nodes')
    .from(
      sql`jsonb_to_recordset(${JSON.stringify(marks)}::jsonb)`.as<'m'>(
        sql`m(node_id text, boot_id text, report_seq bigint, at timestamptz)`,
      ),
    )
    .set({
      report_boot_id: sql`coalesce(m.boot_id, nodes.boot_id)`,
      last_report_seq: sql`m.report_seq`,
      last_report_at: sql`m.at`,
      last_seen_at: sql`m.at`,
    })
    .where(sql<boolean>`nodes.node_id = m.node_id AND nodes.node_id = ${keyMatch(marks.map((m) => m.node_id))}`);
}

/** Changed reports replace their nodes' observed streams whole, and move their marks and configuration. */
function changedReports(changed: Changed[], db: Kysely<Tables>): ProjectionQuery[] {
  const ids = changed.map((c) => c.node_id);
  const rows = changed.flatMap((c) =>
    c.streams.map((s) => ({ node_id: c.node_id, stream_id: s.stream_id, generation: s.generation, state: s.state, last_action_id: s.last_action_id, error: s.error, health: s.health ?? null, reported_at: c.at })),
  );
  const reported = sql`jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)`;
  // The node's mark of a version the log does not know: cleared by one it knows (or none), kept while the node
  // names the same unknown version, set from now when it names another.
  const known = sql<boolean>`(c.applied_config_version IS NULL OR EXISTS (${db.selectFrom('config_versions as v').select(sql`1`.as('known')).whereRef('v.config_version', '=', sql.ref('c.applied_config_version'))}))`;
  const keeps = sql<boolean>`(c.same AND nodes.applied_config_version IS NOT DISTINCT FROM c.applied_config_version)`;
  const queries: ProjectionQuery[] = [
    db
      .updateTable('nodes')
      .from(
        sql`jsonb_to_recordset(${JSON.stringify(changed.map(({ streams: _streams, ...c }) => c))}::jsonb)`.as<'c'>(
          sql`c(node_id text, boot_id text, report_seq bigint, at timestamptz, digest text, applied_config_version text, same boolean, recovery_points text)`,
        ),
      )
      .set({
        report_boot_id: sql`coalesce(c.boot_id, nodes.boot_id)`,
        last_report_seq: sql`c.report_seq`,
        last_report_at: sql`c.at`,
        last_seen_at: sql`c.at`,
        report_digest: sql`c.digest`,
        applied_config_version: sql`c.applied_config_version`,
        config_ahead_of: sql`CASE WHEN ${known} THEN NULL WHEN ${keeps} THEN coalesce(nodes.config_ahead_of, nodes.config_generation) ELSE nodes.config_generation END`,
        config_ahead_at: sql`CASE WHEN ${known} THEN NULL WHEN ${keeps} THEN coalesce(nodes.config_ahead_at, c.at) ELSE c.at END`,
        recovery_points: sql`c.recovery_points::jsonb`,
        updated_at: sql`c.at`,
      })
      .where(sql<boolean>`nodes.node_id = c.node_id AND nodes.node_id = ${keyMatch(ids)}`),
    db
      .deleteFrom('observed_streams as o')
      .where(sql<boolean>`o.node_id = ${keyMatch(ids)}`)
      .where(sql<boolean>`NOT EXISTS (SELECT 1 FROM ${reported} AS r(node_id text, stream_id text) WHERE r.node_id = o.node_id AND r.stream_id = o.stream_id)`),
  ];
  if (rows.length > 0) {
    queries.push(
      db
        .insertInto('observed_streams')
        .columns(['node_id', 'stream_id', 'generation', 'state', 'last_action_id', 'error', 'health', 'reported_at'])
        .expression(
          db
            .selectFrom(reported.as<'r'>(sql`r(node_id text, stream_id text, generation bigint, state text, last_action_id text, error text, health jsonb, reported_at timestamptz)`))
            .select([sql`r.node_id`.as('node_id'), sql`r.stream_id`.as('stream_id'), sql`r.generation`.as('generation'), sql`r.state`.as('state'), sql`r.last_action_id`.as('last_action_id'), sql`r.error`.as('error'), sql`r.health`.as('health'), sql`r.reported_at`.as('reported_at')]),
        )
        .onConflict((oc) =>
          oc.columns(['node_id', 'stream_id']).doUpdateSet((eb) => ({
            generation: eb.ref('excluded.generation'),
            state: eb.ref('excluded.state'),
            last_action_id: eb.ref('excluded.last_action_id'),
            error: eb.ref('excluded.error'),
            health: eb.ref('excluded.health'),
            reported_at: eb.ref('excluded.reported_at'),
          })),
        ),
    );
  }
  return queries;
}
