import type { EventMetadata } from '@fleetplane/core';
import { sql, type Kysely } from 'kysely';
import { prepared, rowsWithCommit } from '../database/transaction-plan.ts';
import { timeOrderedUuid } from '../time-ordered-id.ts';
import type { Tables } from '../database/tables.ts';

/** A version number the stream must be at (0: must not exist yet), or 'any'. */
export type ExpectedVersion = number | 'any';

/** Any event the log can hold: decisions append Fleetplane's events (FleetEvent), tools and tests others. */
export interface EventToAppend {
  /** Absent: a new event, given its id by the store (it cannot be a replay of one already stored). */
  eventId?: string;
  type: string;
  schemaVersion: number;
  data: object;
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
 * version (a batch of reports) are one statement of the stored function `append_new_events`: nothing to
 * check, only each stream's head to move and chain on. Any other append goes through the stored function
 * `append_events`, which checks, chains and inserts each stream's events in the order given.
 */
export function appendQuery(appends: readonly StreamAppend[]) {
  return newEventsOnly(appends) ? newEventsQuery(appends) : checkedQuery(appends);
}

/** The append as a prepared statement: its text is fixed (the events are its parameter), so it is parsed and planned once per connection. */
function preparedAppend(db: Kysely<Tables>, appends: readonly StreamAppend[]) {
  return prepared(newEventsOnly(appends) ? 'append_new' : 'append_streams', { compile: () => appendQuery(appends).compile(db) });
}

/** One new event per stream, each at any version: an append nothing can refuse short of two transactions creating a stream at once. */
function newEventsOnly(appends: readonly StreamAppend[]): boolean {
  return appends.every(isNewOnly) && new Set(appends.map((a) => a.streamId)).size === appends.length;
}

const isNewOnly = (a: StreamAppend) => a.expected === 'any' && a.events.length === 1 && a.events[0]!.eventId === undefined;

/** One new event per stream: the stored function `append_new_events` moves each stream's head and chains on it. */
function newEventsQuery(appends: readonly StreamAppend[]) {
  const payload = appends.map((a, i) => {
    const e = a.events[0]!;
    return { i: i + 1, event_id: timeOrderedUuid(), stream_id: a.streamId, type: e.type, schema_version: e.schemaVersion, data: e.data, metadata: e.metadata, recorded_at: e.recordedAt.toISOString() };
  });
  return sql<AppendRow>`SELECT * FROM append_new_events(${JSON.stringify(payload)}::jsonb)`;
}

function checkedQuery(appends: readonly StreamAppend[]) {
  const payload = appends.map((a) => ({
    stream_id: a.streamId,
    expected: a.expected === 'any' ? null : a.expected,
    events: a.events.map((e) => ({
      event_id: e.eventId ?? timeOrderedUuid(),
      // Only an id the caller gave can be one the store already holds.
      ...(e.eventId !== undefined ? { given: true } : {}),
      type: e.type,
      schema_version: e.schemaVersion,
      data: e.data,
      metadata: e.metadata,
      recorded_at: e.recordedAt.toISOString(),
    })),
  }));
  return sql<AppendRow>`SELECT s.i::int AS request, a.outcome, a.stream_version, a.position, a.event_id
    FROM jsonb_array_elements(${JSON.stringify(payload)}::jsonb) WITH ORDINALITY AS s(x, i)
    CROSS JOIN LATERAL append_events(s.x->>'stream_id', (s.x->>'expected')::bigint, s.x->'events')
      WITH ORDINALITY AS a(outcome, stream_version, position, event_id, j)
    ORDER BY s.i, a.j`;
}

/**
 * Appends nothing can refuse: every stream at any version, every event new (no id given). Neither a version
 * nor a known id can turn such an append away; only two transactions creating one stream at once can, and
 * the stored functions make the second wait for the first.
 */
export function unrefusable(appends: readonly StreamAppend[]): boolean {
  return appends.every((a) => a.expected === 'any' && a.events.every((e) => e.eventId === undefined));
}

/**
 * Appends that nothing can refuse (unrefusable) with the transaction's commit: the statement goes in the
 * commit's round trip (database/transaction-plan.ts, withCommit), or ahead of the transaction's next
 * statement, so the append costs no round trip of its own. Resolves once the statement is queued, to the
 * promise of every event's place, in the order given, which the answer of the round trip that carried it
 * brings. Another transaction creating one of the streams at the same time without the stored functions fails
 * the commit (STREAM_VERSION_TAKEN) and the caller runs again, as after appendToStreams' wrong_expected_version.
 */
export async function appendWithCommit(trx: Kysely<Tables>, appends: readonly StreamAppend[]): Promise<{ events: Promise<AppendedEvent[]> }> {
  if (!unrefusable(appends)) throw new Error('appendWithCommit takes appends at any version of new events only');
  const { rows } = await rowsWithCommit(trx, preparedAppend(trx, appends));
  return { events: rows.then((r) => r.map((row) => ({ eventId: row.event_id!, streamVersion: row.stream_version!, position: row.position! }))) };
}

/** A stream's first events, appended by two transactions at once: the second fails on the head's key. */
export const STREAM_VERSION_TAKEN = 'stream_heads_pkey';

/**
 * Appends events to one stream. Re-appending known event ids returns their original positions and writes
 * nothing; a stream not at the expected version, or ids partly known, returns a typed error and writes nothing.
 * An appender at an expected version that waited for another one of the stream sees its events, and is
 * refused if they moved the stream. Only the first events of a new stream, appended by two transactions at
 * once without the stored function, abort the caller's transaction (reported as wrong_expected_version):
 * the caller must roll back.
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
    const toSend = sent.map((i) => appends[i]!);
    rows = await db.executeQuery(preparedAppend(db, toSend).compile()).then((r) => r.rows);
  } catch (e) {
    if ((e as { constraint?: string }).constraint !== STREAM_VERSION_TAKEN) throw e;
    return appends.map(({ streamId, expected }) => ({ ok: false, error: { type: 'wrong_expected_version', streamId, expected, actual: null } }));
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
