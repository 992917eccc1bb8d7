import type { EventMetadata } from '@fleetplane/core';
import { sql, type Kysely } from 'kysely';
import { withCommit } from '../database/round-trips.ts';
import { timeOrderedUuid } from '../time-ordered-id.ts';
import type { Tables } from '../database/tables.ts';

/** A version number the stream must be at (0: must not exist yet), or 'any'. */
export type ExpectedVersion = number | 'any';

export interface EventToAppend {
  /** Absent: a new event, given its id by the store (it cannot be a replay of one already stored). */
  eventId?: string;
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

/** One stream's part of an append: its events, in order, and the version the stream must be at. */
export interface StreamAppend {
  streamId: string;
  expected: ExpectedVersion;
  events: EventToAppend[];
}

interface AppendRow {
  /** Numbered from 1, in the order sent. */
  request: number;
  outcome: 'appended' | 'duplicate' | 'wrong_expected_version' | 'event_id_conflict';
  stream_version: number | null;
  position: number | null;
  event_id: string | null;
}

/**
 * The SQL of one append to any number of streams, in one round trip. New events, one per stream, at any
 * version (a batch of reports) are one INSERT: nothing to check, only each stream's head to chain on.
 * Any other append goes through the stored function `append_events`, which checks, chains and inserts
 * each stream's events in the order given.
 */
export function appendQuery(appends: readonly StreamAppend[]) {
  return newEventsOnly(appends) ? newEventsQuery(appends) : checkedQuery(appends);
}

/** One new event per stream, each at any version: an append nothing can refuse short of a concurrent writer. */
export function newEventsOnly(appends: readonly StreamAppend[]): boolean {
  return appends.every(isNewOnly) && new Set(appends.map((a) => a.streamId)).size === appends.length;
}

const isNewOnly = (a: StreamAppend) => a.expected === 'any' && a.events.length === 1 && a.events[0]!.eventId === undefined;

/**
 * One new event per stream: each takes the version after its stream's head and chains on its hash, with the
 * same event_hash the stored function uses, and a fresh time-ordered id. Streams are distinct, so no
 * event's head is another's; a concurrent writer taking a version fails on the unique constraint, as below.
 */
function newEventsQuery(appends: readonly StreamAppend[]) {
  const payload = appends.map((a, i) => {
    const e = a.events[0]!;
    return { i: i + 1, event_id: timeOrderedUuid(), stream_id: a.streamId, type: e.type, schema_version: e.schemaVersion, data: e.data, metadata: e.metadata, recorded_at: e.recordedAt.toISOString() };
  });
  return sql<AppendRow>`/* prepared:append_new */ WITH x AS MATERIALIZED (
      SELECT r.i, r.stream_id, r.event_id, r.type, r.schema_version, r.data, r.metadata, r.recorded_at,
        coalesce(h.stream_version, 0) + 1 AS stream_version, h.hash AS prev_hash
      FROM jsonb_to_recordset(${JSON.stringify(payload)}::jsonb)
        AS r(i int, event_id uuid, stream_id text, type text, schema_version integer, data jsonb, metadata jsonb, recorded_at timestamptz)
      LEFT JOIN LATERAL (SELECT ev.stream_version, ev.hash FROM events ev WHERE ev.stream_id = r.stream_id
        ORDER BY ev.stream_version DESC LIMIT 1) h ON true),
    appended AS (
      INSERT INTO events (stream_id, stream_version, event_id, type, schema_version, data, metadata, recorded_at, prev_hash, hash)
      SELECT stream_id, stream_version, event_id, type, schema_version, data, metadata, recorded_at, prev_hash,
        event_hash(prev_hash, stream_id, stream_version, event_id, type, schema_version, data, metadata, recorded_at)
      FROM x ORDER BY i
      RETURNING stream_id, stream_version, position, event_id)
    SELECT x.i AS request, 'appended' AS outcome, a.stream_version, a.position, a.event_id
    FROM appended a JOIN x ON x.event_id = a.event_id ORDER BY x.i`;
}

function checkedQuery(appends: readonly StreamAppend[]) {
  const payload = appends.map((a) => ({
    stream_id: a.streamId,
    expected: a.expected === 'any' ? null : a.expected,
    events: a.events.map((e) => ({
      event_id: e.eventId ?? timeOrderedUuid(),
      type: e.type,
      schema_version: e.schemaVersion,
      data: e.data,
      metadata: e.metadata,
      recorded_at: e.recordedAt.toISOString(),
    })),
  }));
  return sql<AppendRow>`/* prepared:append_streams */ SELECT s.i::int AS request, a.outcome, a.stream_version, a.position, a.event_id
    FROM jsonb_array_elements(${JSON.stringify(payload)}::jsonb) WITH ORDINALITY AS s(x, i)
    CROSS JOIN LATERAL append_events(s.x->>'stream_id', (s.x->>'expected')::bigint, s.x->'events')
      WITH ORDINALITY AS a(outcome, stream_version, position, event_id, j)
    ORDER BY s.i, a.j`;
}

/**
 * Appends new events, one per stream (newEventsOnly), with the transaction's commit: the statement goes in
 * the commit's round trip (database/round-trips.ts, withCommit), so a batch of reports' append costs no
 * round trip of its own. Resolves once the statement is queued, to the promise of each append's event,
 * in order, which the commit's answer brings. A concurrent writer taking a version fails the commit
 * (STREAM_VERSION_TAKEN) and the caller runs again, as after appendToStreams' wrong_expected_version.
 */
export async function appendNewWithCommit(trx: Kysely<Tables>, appends: readonly StreamAppend[]): Promise<{ events: Promise<AppendedEvent[]> }> {
  if (!newEventsOnly(appends)) throw new Error('appendNewWithCommit takes one new event per stream');
  const { rows } = await withCommit(trx, { compile: () => newEventsQuery(appends).compile(trx) });
  return { events: rows.then((r) => r.map((row) => ({ eventId: row.event_id!, streamVersion: row.stream_version!, position: row.position! }))) };
}

export const STREAM_VERSION_TAKEN = 'events_stream_version_unique';
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
  return (await appendToStreams(db, [{ streamId, expected, events }]))[0]!;
}

/**
 * Appends to several streams in one round trip, with appendToStream's outcome for each. A stream refused
 * with a typed error writes nothing, but the others are written: the caller rolls back if it wants all or
 * nothing. A conflict that aborts the caller's transaction (see appendToStream) is reported for every stream
 * of the call, since the statement stopped as a whole.
 */
export async function appendToStreams(db: Kysely<Tables>, appends: readonly StreamAppend[]): Promise<AppendResult[]> {
  const results: AppendResult[] = appends.map(() => ({ ok: true, duplicate: false, events: [] }));
  const sent = appends.flatMap((a, i) => (a.events.length > 0 ? [i] : []));
  if (sent.length === 0) return results;
  let rows: AppendRow[];
  try {
    rows = (await appendQuery(sent.map((i) => appends[i]!)).execute(db)).rows;
  } catch (e) {
    const { constraint } = e as { constraint?: string };
    if (constraint !== STREAM_VERSION_TAKEN && constraint !== EVENT_ID_TAKEN) throw e;
    return appends.map(({ streamId, expected }) => ({
      ok: false,
      error:
        constraint === STREAM_VERSION_TAKEN
          ? { type: 'wrong_expected_version', streamId, expected, actual: null }
          : { type: 'event_id_conflict', streamId },
    }));
  }
  const byRequest = new Map<number, AppendRow[]>();
  for (const row of rows) {
    const group = byRequest.get(row.request);
    if (group) group.push(row);
    else byRequest.set(row.request, [row]);
  }
  // Requests are numbered from 1, in the order sent.
  sent.forEach((i, k) => {
    results[i] = outcomeOf(appends[i]!, byRequest.get(k + 1)!);
  });
  return results;
}

function outcomeOf({ streamId, expected }: StreamAppend, rows: AppendRow[]): AppendResult {
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
