import type { FleetEventType, RecordedFleetEvent } from '@fleetplane/core';
import type { Compilable, Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';
import { withCommit } from '../database/transaction-plan.ts';

/** A query evolve builds and the runner executes: `db.insertInto(…)…`, never run by evolve itself. */
export type ProjectionQuery = Compilable & { execute(): Promise<unknown> };

/**
 * A read model derived from events only. `evolve` is pure: given one event and a query builder bound to
 * the schema being written (live, or a fresh one during rebuild), it returns the statements that apply
 * the event. It reads nothing, so replaying the log in position order reproduces the live tables.
 * Projections write disjoint rows or columns, so the order in which two of them apply an event is free, but
 * for one: IntentHistoryPruned removes attempts before the intents they reference (projections/all.ts).
 */
export interface Projection<T extends FleetEventType = FleetEventType> {
  name: string;
  /** Tables it owns, each with the columns that identify a row (for verify's row-by-row diff). */
  tables: Partial<Record<keyof Tables, readonly string[]>>;
  /**
   * The event types it applies: evolve is given events of these types only (projectionQueries checks `type`
   * against this list), which is why a projection of some types may stand in a list of projections of any.
   */
  handles: readonly T[];
  evolve(event: RecordedFleetEvent<T>, db: Kysely<Tables>): ProjectionQuery[];
  /**
   * Optional: the statements for a run of events of one type, in position order, with the same effect as
   * evolve on each in turn but fewer statements (a batch of reports: one UPDATE instead of one per report).
   */
  evolveMany?(events: readonly RecordedFleetEvent<T>[], db: Kysely<Tables>): ProjectionQuery[];
  /**
   * Optional, with evolveMany: the events of a run of one type that evolveMany needs to have the effect of the
   * whole run, in position order (a run of reports: per node, its last changed report and its last report).
   * A replay carries such a run from page to page, condensed, and applies it once it ends (projections/runs.ts).
   */
  condense?(events: readonly RecordedFleetEvent<T>[]): RecordedFleetEvent<T>[];
  /**
   * Optional: the statements that count again, from the rows they summarize, the summaries evolve keeps by
   * increments (a rollout's targets by state). A rebuild ends with them, so a rebuilt table's summaries are
   * counts, not the same increments again: verify then proves the live increments against a count, and a
   * checkpoint written before a summary existed rebuilds with it.
   */
  recount?(db: Kysely<Tables>): ProjectionQuery[];
}

/**
 * The statements that apply events, in position order: every projection that handles each, in projection
 * order. Consecutive events of one type go to each projection together, for those that evolve many at once.
 */
export function projectionQueries(projections: readonly Projection[], db: Kysely<Tables>, events: readonly RecordedFleetEvent[]): ProjectionQuery[] {
  const queries: ProjectionQuery[] = [];
  for (let from = 0; from < events.length; ) {
    const type = events[from]!.type;
    let to = from + 1;
    while (to < events.length && events[to]!.type === type) to++;
    const run = events.slice(from, to);
    for (const p of projections) {
      if (!p.handles.includes(type)) continue;
      queries.push(...(p.evolveMany ? p.evolveMany(run, db) : run.flatMap((e) => p.evolve(e, db))));
    }
    from = to;
  }
  return queries;
}

/**
 * Applies events' projections inside the caller's transaction: all their statements as one script, run in
 * order (evolve reads nothing back, so nothing waits on an earlier statement's answer). In a transaction
 * they go with its commit, or with its next statement if one comes first (database/transaction-plan.ts).
 */
export async function applyProjections(projections: readonly Projection[], db: Kysely<Tables>, events: readonly RecordedFleetEvent[]) {
  const queries = projectionQueries(projections, db, events);
  await withCommit(db, queries);
}

/** A projection whose event types are those it handles: evolve narrows on `type` among them. */
export const projection = <T extends FleetEventType>(p: Projection<T>): Projection<T> => p;
