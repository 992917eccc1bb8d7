import type { NodeReportedData, RecordedEvent } from '@fleetplane/core';
import type { Projection, ProjectionQuery } from './projection.ts';

/**
 * What nodes report: the report marks on `nodes`, and `observed_streams`, replaced whole by every report
 * that changed (a repeated report only moves the marks).
 */
export const observedProjection: Projection = {
  name: 'observed',
  tables: { observed_streams: ['node_id', 'stream_id'] },
  handles: ['NodeReported'],
  evolve(event: RecordedEvent, db): ProjectionQuery[] {
    const d = event.data as unknown as NodeReportedData;
    const at = event.recordedAt;
    const marks = {
      report_boot_id: d.boot_id,
      last_report_seq: d.report_seq,
      last_report_at: at,
      last_seen_at: at,
      report_digest: d.digest,
    };
    if (d.streams === null) return [db.updateTable('nodes').set(marks).where('node_id', '=', d.node_id)];
    const ids = d.streams.map((s) => s.stream_id);
    const queries: ProjectionQuery[] = [
      db
        .updateTable('nodes')
        .set({ ...marks, applied_config_version: d.applied_config_version, recovery_points: JSON.stringify(d.recovery_points ?? []), updated_at: at })
        .where('node_id', '=', d.node_id),
      ids.length > 0
        ? db.deleteFrom('observed_streams').where('node_id', '=', d.node_id).where('stream_id', 'not in', ids)
        : db.deleteFrom('observed_streams').where('node_id', '=', d.node_id),
    ];
    if (d.streams.length > 0) {
      const rows = d.streams.map((s) => ({
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
  },
};
