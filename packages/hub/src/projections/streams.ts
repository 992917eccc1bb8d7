import { projection } from './projection.ts';

/** The `streams` table: each stream's desired state at its latest generation, and its deletion. */
export const streamsProjection = projection({
  name: 'streams',
  tables: { streams: ['stream_id'] },
  handles: ['StreamDesired', 'StreamDeletionRequested', 'StreamRemoved'],
  evolve(event, db) {
    if (event.type === 'StreamDeletionRequested') {
      return [db.updateTable('streams').set({ deletion_requested_at: event.recordedAt, updated_at: event.recordedAt }).where('stream_id', '=', event.data.stream_id)];
    }
    if (event.type === 'StreamRemoved') {
      return [db.updateTable('streams').set({ removed_at: event.recordedAt, updated_at: event.recordedAt }).where('stream_id', '=', event.data.stream_id)];
    }
    const d = event.data;
    const row = {
      generation: d.generation,
      desired_state: d.desired_state,
      spec: JSON.stringify(d.spec),
      placement: JSON.stringify(d.placement),
      action_id: d.action_id,
      // A PUT after a removal creates the stream again; a deletion's own write is followed by its request.
      deletion_requested_at: null,
      removed_at: null,
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
