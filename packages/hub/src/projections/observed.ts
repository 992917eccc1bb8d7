import type { NodeReportedData, ObservedStream, RecordedEvent } from '@fleetplane/core';
import { sql, type Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';
import type { Projection, ProjectionQuery } from './projection.ts';

/**
 * What nodes report: the report marks on `nodes`, and `observed_streams`, replaced whole by every report
 * that changed (a repeated report only moves the marks).
 */
export const observedProjection: Projection = {
  name: 'observed',
  tables: { observed_streams: ['node_id', 'stream_id'] },
  handles: ['NodeReported'],
  evolve: (event, db) => evolveReports([event], db),
  evolveMany: evolveReports,
};

interface Marks {
  node_id: string;
  boot_id: string;
  report_seq: number;
  at: Date;
  digest: string;
}

/**
 * Repeated reports only move their nodes' marks, so a run of them is one UPDATE (a node's later marks
 * replace its earlier ones). A changed report is applied in its place in the run.
 */
function evolveReports(events: readonly RecordedEvent[], db: Kysely<Tables>): ProjectionQuery[] {
  const queries: ProjectionQuery[] = [];
  const repeated = new Map<string, Marks>();
  const flush = () => {
    if (repeated.size > 0) queries.push(moveMarks([...repeated.values()], db));
    repeated.clear();
  };
  for (const event of events) {
    const d = event.data as unknown as NodeReportedData;
    if (d.streams === null) {
      repeated.set(d.node_id, { node_id: d.node_id, boot_id: d.boot_id, report_seq: d.report_seq, at: event.recordedAt, digest: d.digest });
      continue;
    }
    flush();
    queries.push(...changedReport(d, d.streams, event.recordedAt, db));
  }
  flush();
  return queries;
}

function moveMarks(marks: Marks[], db: Kysely<Tables>): ProjectionQuery {
  return db
    .updateTable('nodes')
    .from(
      sql`jsonb_to_recordset(${JSON.stringify(marks)}::jsonb)`.as<'m'>(
        sql`m(node_id text, boot_id text, report_seq bigint, at timestamptz, digest text)`,
      ),
    )
    .set({
      report_boot_id: sql`m.boot_id`,
      last_report_seq: sql`m.report_seq`,
      last_report_at: sql`m.at`,
      last_seen_at: sql`m.at`,
      report_digest: sql`m.digest`,
    })
    // The id list lets the planner probe the primary key for the few rows, not scan every node. Passed as
    // jsonb, like the marks: a rebuild inlines parameters as literals, and a JSON array is no text[] literal.
    .where(
      sql<boolean>`nodes.node_id = m.node_id
        AND nodes.node_id = any(array(SELECT jsonb_array_elements_text(${JSON.stringify(marks.map((m) => m.node_id))}::jsonb)))`,
    );
}

function changedReport(d: NodeReportedData, streams: ObservedStream[], at: Date, db: Kysely<Tables>): ProjectionQuery[] {
  const ids = streams.map((s) => s.stream_id);
  const queries: ProjectionQuery[] = [
    db
      .updateTable('nodes')
      .set({
        report_boot_id: d.boot_id,
        last_report_seq: d.report_seq,
        last_report_at: at,
        last_seen_at: at,
        report_digest: d.digest,
        applied_config_version: d.applied_config_version,
        recovery_points: JSON.stringify(d.recovery_points ?? []),
        updated_at: at,
      })
      .where('node_id', '=', d.node_id),
    ids.length > 0
      ? db.deleteFrom('observed_streams').where('node_id', '=', d.node_id).where('stream_id', 'not in', ids)
      : db.deleteFrom('observed_streams').where('node_id', '=', d.node_id),
  ];
  if (streams.length > 0) {
    const rows = streams.map((s) => ({
      node_id: d.node_id,
      stream_id: s.stream_id,
      generation: s.generation,
      state: s.state,
      last_action_id: s.last_action_id,
      error: s.error,
      reported_at: at,
    }));
    queries.push(
      db
        .insertInto('observed_streams')
        .values(rows)
        .onConflict((oc) =>
          oc.columns(['node_id', 'stream_id']).doUpdateSet((eb) => ({
            generation: eb.ref('excluded.generation'),
            state: eb.ref('excluded.state'),
            last_action_id: eb.ref('excluded.last_action_id'),
            error: eb.ref('excluded.error'),
            reported_at: eb.ref('excluded.reported_at'),
          })),
        ),
    );
  }
  return queries;
}
