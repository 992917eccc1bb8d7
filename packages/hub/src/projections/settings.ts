import type { RecordedEvent } from '@fleetplane/core';
import type { Projection } from './projection.ts';

/** The `settings` table: operator settings held as events; the global reconciliation mode is `reconciliation_mode`. */
export const settingsProjection: Projection = {
  name: 'settings',
  tables: { settings: ['key'] },
  handles: ['ReconciliationModeSet'],
  evolve(event: RecordedEvent, db) {
    const { mode } = event.data as { mode: string };
    const row = { value: JSON.stringify(mode), updated_at: event.recordedAt };
    return [
      db
        .insertInto('settings')
        .values({ key: 'reconciliation_mode', ...row })
        .onConflict((oc) => oc.column('key').doUpdateSet(row)),
    ];
  },
};
