import { currentSchemaVersion, recordedFleetEvent, type EventMetadata, type FleetEvent, type RecordedFleetEvent, type Result } from '@fleetplane/core';
import type { Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';
import { preparedByText, rowsWithCommit, withCommit } from '../database/transaction-plan.ts';
import { appendToStreams, appendWithCommit, unrefusable, type AppendError, type EventToAppend, type StreamAppend } from '../event-store/append.ts';
import { projectionQueries } from '../projections/projection.ts';
import type { Actor, Committed, Decision } from './command.ts';
import { jobStatements } from './job-inserts.ts';
import type { PipelineDeps } from './pipeline.ts';
import type { Item } from './transaction.ts';

/** An append refused because its stream moved: the command runs again on fresh state (commands/retry.ts). */
export class ConcurrencyError extends Error {
  readonly error: AppendError;
  constructor(error: AppendError) {
    super(`concurrent change to stream ${error.streamId}: ${error.type}`);
    this.error = error;
  }
}

/**
 * What a part's decisions ask for: every decision's events appended with one call, idempotency keys claimed,
 * then, planned with the commit (database/transaction-plan.ts), the events' projections in position order and
 * the job inserts, both prepared by their text; then the rows commands keep besides (Decision.writes); last,
 * the reads their callers answer with (Command.readBack), planned with the commit too.
 * In a transaction (`placing` given), appends nothing can refuse (at any version, new events: a batch of
 * reports, most desired writes) go with the commit too: they are projected in the order appended, which is
 * their positions' order, and get their places when the commit answers, before the transaction's commands
 * are answered.
 */
export async function write(
  deps: PipelineDeps,
  trx: Kysely<Tables>,
  items: readonly Item[],
  decided: readonly Result<Decision<unknown>>[],
  now: Date,
  placing?: Promise<void>[],
): Promise<Result<Committed<unknown>>[]> {
  const appends = appendsOf(items, decided, now);
  const recorded: RecordedFleetEvent[][] = items.map(() => []);
  let appended: RecordedFleetEvent[];
  if (placing && appends.length > 0 && unrefusable(appends)) {
    appended = appends.flatMap(({ owner, streamId, events }) =>
      events.map((e) => {
        const event = recordedFleetEvent({ eventId: '', streamVersion: 0, position: 0, streamId, type: e.type, schemaVersion: e.schemaVersion, data: e.data, metadata: e.metadata, recordedAt: now });
        recorded[owner]!.push(event);
        return event;
      }),
    );
    const { events } = await appendWithCommit(trx, appends);
    const placed = events.then((places) => places.forEach((place, k) => Object.assign(appended[k]!, place)));
    // A failed commit is what the caller sees; this promise is then never awaited.
    placed.catch(() => {});
    placing.push(placed);
  } else {
    (await appendToStreams(trx, appends)).forEach((result, k) => {
      if (!result.ok) throw new ConcurrencyError(result.error);
      // A duplicate append (known event ids) was projected when it was first stored.
      if (result.duplicate) return;
      const { owner, streamId, events } = appends[k]!;
      result.events.forEach((a, i) => {
        const e = events[i]!;
        recorded[owner]!.push(recordedFleetEvent({ ...a, streamId, type: e.type, schemaVersion: e.schemaVersion, data: e.data, metadata: e.metadata, recordedAt: now }));
      });
    });
    appended = recorded.flat().sort((a, b) => a.position - b.position);
  }
  await claimIdempotencyKeys(trx, decided, now);
  // A projection's statements recur with each event of their kind: prepared, they are planned once per session.
  const projected = projectionQueries(deps.projections, trx, appended).map((q) => preparedByText('projection', q));
  await withCommit(trx, [...projected, ...(await jobStatements(deps.boss, trx, items, decided))]);
  for (const d of decided) if (d.ok && d.value.writes) await d.value.writes(trx);
  const outcomes = decided.map((d, i): Result<Committed<unknown>> => (d.ok ? { ok: true, value: { result: d.value.result, events: recorded[i]! } } : d));
  for (const [i, item] of items.entries()) {
    const outcome = outcomes[i]!;
    if (!outcome.ok || !item.command.readBack) continue;
    const { rows } = await rowsWithCommit(trx, item.command.readBack(trx));
    const read = rows.then((r) => void (outcome.value.readBack = r));
    // Outside a transaction the read ran at once; in one, its rows come with the commit's answer.
    if (placing) {
      read.catch(() => {});
      placing.push(read);
    } else await read;
  }
  return outcomes;
}

/** Each decision's events, one append per stream, with the metadata of the command that decided them. */
function appendsOf(items: readonly Item[], decided: readonly Result<Decision<unknown>>[], now: Date): (StreamAppend & { owner: number })[] {
  const appends: (StreamAppend & { owner: number })[] = [];
  decided.forEach((d, owner) => {
    if (!d.ok) return;
    const metadata = metadataOf(items[owner]!.actor);
    for (const [streamId, events] of byStream(d.value.events)) {
      const toAppend: EventToAppend[] = events.map((e) => ({
        eventId: e.eventId,
        type: e.type,
        schemaVersion: e.schemaVersion ?? currentSchemaVersion(e.type),
        data: e.data,
        metadata,
        recordedAt: now,
      }));
      appends.push({ owner, streamId, expected: d.value.expectedVersions?.[streamId] ?? 'any', events: toAppend });
    }
  });
  return appends;
}

/**
 * Claims the decisions' Idempotency-Keys: status 0 until the route stores the answer it sent, right after this
 * commit; the result lets a retry rebuild that answer if it is never stored.
 */
async function claimIdempotencyKeys(trx: Kysely<Tables>, decided: readonly Result<Decision<unknown>>[], now: Date): Promise<void> {
  const claims = decided.flatMap((d) => (d.ok && d.value.idempotencyKey ? [{ claim: d.value.idempotencyKey, result: d.value.result }] : []));
  if (claims.length === 0) return;
  await trx
    .insertInto('idempotency_keys')
    .values(
      claims.map(({ claim: c, result }) => ({
        principal: c.principal,
        route: c.route,
        key: c.key,
        body_sha256: c.bodySha256,
        status: 0,
        response: 'null',
        headers: '{}',
        result: JSON.stringify(result ?? null),
        created_at: now,
      })),
    )
    .execute();
}

function metadataOf(actor: Actor): EventMetadata {
  return {
    actor: actor.principal,
    role: actor.role,
    correlation_id: actor.correlationId,
    causation_id: actor.causationId ?? null,
    source: actor.source,
  };
}

function byStream(events: FleetEvent[]): Map<string, FleetEvent[]> {
  const groups = new Map<string, FleetEvent[]>();
  for (const e of events) groups.set(e.streamId, [...(groups.get(e.streamId) ?? []), e]);
  return groups;
}
