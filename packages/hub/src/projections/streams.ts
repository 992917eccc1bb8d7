import type { RecordedEvent, StreamDesiredData } from '@fleetplane/core';
import type { Projection } from './projection.ts';

/** The `streams` table: each stream's desired state at its latest generation. */
export const streamsProjection: Projection = {
  name: 'streams',
  tables: { streams: ['stream_id'] },
  handles: ['StreamDesired'],
  evolve(event: RecordedEvent, db) {
    const d = event.data as unknown as StreamDesiredData;
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
};
