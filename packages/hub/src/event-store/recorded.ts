import { recordedFleetEvent, type EventMetadata, type RecordedFleetEvent } from '@fleetplane/core';
import { sql } from 'kysely';

/** An event's metadata as the API and the hash see it, from its stored form (event_metadata(), migration 0010). */
export const LOGICAL_METADATA = sql<EventMetadata>`event_metadata(metadata, correlation_id)`.as('metadata');

export const EVENT_COLUMNS = [
  'position',
  'stream_id',
  'stream_version',
  'event_id',
  'type',
  'schema_version',
  'data',
  LOGICAL_METADATA,
  'recorded_at',
  'tx_id',
] as const;

/** A row read with EVENT_COLUMNS. */
export interface EventRow {
  position: number;
  stream_id: string;
  stream_version: number;
  event_id: string;
  type: string;
  schema_version: number;
  data: Record<string, unknown>;
  metadata: EventMetadata;
  recorded_at: Date;
  tx_id: string;
}

/** A stored event as readers see it: upcast to its type's current shape. */
export function toRecordedEvent(row: Omit<EventRow, 'tx_id'>): RecordedFleetEvent {
  return recordedFleetEvent({
    position: row.position,
    streamId: row.stream_id,
    streamVersion: row.stream_version,
    eventId: row.event_id,
    type: row.type,
    schemaVersion: row.schema_version,
    data: row.data,
    metadata: row.metadata,
    recordedAt: row.recorded_at,
  });
}

/**
 * How the store keeps a correlation id: in the correlation_id column when it is a canonical (lower-case) UUID,
 * else in metadata. The same rule as correlation_uuid() in migration 0010, for filters that must pick the index.
 */
export const isStoredAsUuid = (correlationId: string): boolean => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(correlationId);
