import { projection } from './projection.ts';

/** The `streams` table: each stream's desired state at its latest generation. */
export const streamsProjection = projection({
  name: 'streams',
  tables: { streams: ['stream_id'] },
  handles: ['StreamDesired'],
  evolve(event, db) {
    const d = event.data;
    const row = {
      generation: d.generation,
      desired_state: d.desired_state,
      spec: JSON.stringify(d.spec),
      placement: JSON.stringify(d.placement),
      action_id: d.action_id,
      updated_at: event.recordedAt,
    };
    return [
      db
        .insertInto('streams')
        .values({ stream_id: d.stream_id, created_at: event.recordedAt, ...row })
        .onConflict((oc) => oc.column('stream_id').doUpdateSet(row)),
    ];
  },
});
