import type { EventMetadata } from '@fleetplane/core';
import { sql, type Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';

/** A version number the stream must be at (0: must not exist yet), or 'any'. */
export type ExpectedVersion = number | 'any';

export interface EventToAppend {
  eventId: string;
  type: string;
  schemaVersion: number;
  data: Record<string, unknown>;
  metadata: EventMetadata;
  recordedAt: Date;
}

export interface AppendedEvent {
  eventId: string;
  streamVersion: number;
  position: number;
}

export type AppendError =
  | { type: 'wrong_expected_version'; streamId: string; expected: ExpectedVersion; actual: number | null }
  | { type: 'event_id_conflict'; streamId: string };

export type AppendResult =
  | { ok: true; duplicate: boolean; events: AppendedEvent[] }
  | { ok: false; error: AppendError };

interface AppendRow {
  outcome: 'appended' | 'duplicate' | 'wrong_expected_version' | 'event_id_conflict';
  stream_version: number | null;
  position: number | null;
  event_id: string | null;
}

/** The SQL of one append: the stored function `append_events` checks, chains and inserts in one round trip. */
export function appendQuery(streamId: string, expected: ExpectedVersion, events: EventToAppend[]) {
  const payload = events.map((e) => ({
    event_id: e.eventId,
    type: e.type,
    schema_version: e.schemaVersion,
    data: e.data,
    metadata: e.metadata,
    recorded_at: e.recordedAt.toISOString(),
  }));
  return sql<AppendRow>`/* prepared:append_events */ SELECT outcome, stream_version, position, event_id
    FROM append_events(${streamId}, ${expected === 'any' ? null : expected}::bigint, ${JSON.stringify(payload)}::jsonb)`;
}

const STREAM_VERSION_TAKEN = 'events_stream_version_unique';
const EVENT_ID_TAKEN = 'events_event_id_unique';

/**
 * Appends events to one stream. Re-appending known event ids returns their original positions and writes
 * nothing; a stream not at the expected version returns a typed error and writes nothing.
 * A concurrent appender taking the same version, or a batch whose first event is new and a later one known,
 * aborts the caller's transaction: reported as wrong_expected_version or event_id_conflict, and the caller
 * must roll back.
 */
export async function appendToStream(
  db: Kysely<Tables>,
  streamId: string,
  expected: ExpectedVersion,
  events: EventToAppend[],
): Promise<AppendResult> {
  if (events.length === 0) return { ok: true, duplicate: false, events: [] };
  let rows: AppendRow[];
  try {
    rows = (await appendQuery(streamId, expected, events).execute(db)).rows;
  } catch (e) {
    const { constraint } = e as { constraint?: string };
    if (constraint === STREAM_VERSION_TAKEN) {
      return { ok: false, error: { type: 'wrong_expected_version', streamId, expected, actual: null } };
    }
    if (constraint === EVENT_ID_TAKEN) return { ok: false, error: { type: 'event_id_conflict', streamId } };
    throw e;
  }
  const first = rows[0]!;
  switch (first.outcome) {
    case 'wrong_expected_version':
      return { ok: false, error: { type: 'wrong_expected_version', streamId, expected, actual: first.stream_version } };
    case 'event_id_conflict':
      return { ok: false, error: { type: 'event_id_conflict', streamId } };
    default:
      return {
        ok: true,
        duplicate: first.outcome === 'duplicate',
        events: rows.map((r) => ({ eventId: r.event_id!, streamVersion: r.stream_version!, position: r.position! })),
      };
  }
}
