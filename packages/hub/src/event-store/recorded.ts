import { upcast, type EventMetadata, type RecordedEvent } from '@fleetplane/core';
import type { Selectable } from 'kysely';
import type { EventsTable } from '../database/tables.ts';

export type EventRow = Selectable<EventsTable>;

export const EVENT_COLUMNS = [
  'position',
  'stream_id',
  'stream_version',
  'event_id',
  'type',
  'schema_version',
  'data',
  'metadata',
  'recorded_at',
  'tx_id',
] as const;

/** A stored event as readers see it: upcast to its type's current shape. */
export function toRecordedEvent(row: Pick<EventRow, (typeof EVENT_COLUMNS)[number]>): RecordedEvent {
  const { schemaVersion, data } = upcast(row.type, row.schema_version, row.data);
  return {
    position: row.position,
    streamId: row.stream_id,
    streamVersion: row.stream_version,
    eventId: row.event_id,
    type: row.type,
    schemaVersion,
    data,
    metadata: row.metadata as unknown as EventMetadata,
    recordedAt: row.recorded_at,
  };
}
