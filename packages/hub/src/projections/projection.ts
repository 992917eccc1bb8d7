import type { RecordedEvent } from '@fleetplane/core';
import type { Compilable, Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';

/** A query evolve builds and the runner executes: `db.insertInto(…)…`, never run by evolve itself. */
export type ProjectionQuery = Compilable & { execute(): Promise<unknown> };

/**
 * A read model derived from events only. `evolve` is pure: given one event and a query builder bound to
 * the schema being written (live, or a fresh one during rebuild), it returns the statements that apply
 * the event. It reads nothing, so replaying the log in position order reproduces the live tables.
 */
export interface Projection {
  name: string;
  /** Tables it owns, each with the columns that identify a row (for verify's row-by-row diff). */
  tables: Partial<Record<keyof Tables, readonly string[]>>;
  handles: readonly string[];
  evolve(event: RecordedEvent, db: Kysely<Tables>): ProjectionQuery[];
}

/** The statements that apply one event: every projection that handles it, in projection order. */
export function projectionQueries(projections: readonly Projection[], db: Kysely<Tables>, event: RecordedEvent): ProjectionQuery[] {
  return projections.flatMap((p) => (p.handles.includes(event.type) ? p.evolve(event, db) : []));
}

/** Applies every projection that handles the event, inside the caller's transaction. */
export async function applyProjections(projections: readonly Projection[], db: Kysely<Tables>, event: RecordedEvent) {
  for (const q of projectionQueries(projections, db, event)) await q.execute();
}
