import { projection } from './projection.ts';

/**
 * The `database_identity` row: the identity the database was last found at, and since a change was recorded,
 * when (`restored_at`, the event's time): a node not heard from since is sent nothing (core reconcile/unheard.ts).
 */
export const databaseIdentityProjection = projection({
  name: 'database_identity',
  tables: { database_identity: ['singleton'] },
  handles: ['DatabaseIdentified'],
  evolve(event, db) {
    const d = event.data;
    const row = {
      system_identifier: d.system_identifier,
      timeline: d.timeline,
      database_oid: d.database_oid,
      identified_at: event.recordedAt,
      restored_at: d.previous === null ? null : event.recordedAt,
    };
    return [
      db
        .insertInto('database_identity')
        .values(row)
        .onConflict((oc) => oc.column('singleton').doUpdateSet(row)),
    ];
  },
});
