import type { RecordedFleetEvent } from '@fleetplane/core';
import type { Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';
import { EVENT_COLUMNS, toRecordedEvent } from './recorded.ts';

/** One stream's events in version order, from `fromVersion` on. */
export async function readStream(
  db: Kysely<Tables>,
  streamId: string,
  options: { fromVersion?: number; limit?: number } = {},
): Promise<RecordedFleetEvent[]> {
  const rows = await db
    .selectFrom('events')
    .select(EVENT_COLUMNS)
    .where('stream_id', '=', streamId)
    .where('stream_version', '>=', options.fromVersion ?? 1)
    .orderBy('stream_version')
    .limit(options.limit ?? 1000)
    .execute();
  return rows.map(toRecordedEvent);
}
