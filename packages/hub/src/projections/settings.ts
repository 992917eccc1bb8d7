import { projection } from './projection.ts';

/** The `settings` table: operator settings held as events; the global reconciliation mode is `reconciliation_mode`. */
export const settingsProjection = projection({
  name: 'settings',
  tables: { settings: ['key'] },
  handles: ['ReconciliationModeSet'],
  evolve(event, db) {
    const { mode } = event.data;
    const row = { value: JSON.stringify(mode), updated_at: event.recordedAt };
    return [
      db
        .insertInto('settings')
        .values({ key: 'reconciliation_mode', ...row })
        .onConflict((oc) => oc.column('key').doUpdateSet(row)),
    ];
  },
});
