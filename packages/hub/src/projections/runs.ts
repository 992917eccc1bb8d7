import type { FleetEventType, RecordedFleetEvent } from '@fleetplane/core';
import type { Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';
import { applyProjections, type Projection } from './projection.ts';

export interface RunsApplier {
  /** The next page of the replay, in position order. */
  add(page: readonly RecordedFleetEvent[]): Promise<void>;
  /** Applies the run still carried; the replay is then complete. */
  finish(): Promise<void>;
}

/**
 * Applies a replay's pages as applyProjections would apply each, except that a run of events of one type that
 * reaches the end of a page is carried into the next, condensed, while every projection handling that type can
 * condense it (Projection.condense), and is applied once it ends. A fleet's log interleaves its nodes' reports:
 * applied page by page, every page updated most nodes' rows again, and in a replay's one long transaction no
 * old row version can be pruned, so each update found its row behind all of its versions before it. Carried
 * runs update each node's row once per run, however many pages the run spans.
 */
export function runsApplier(projections: readonly Projection[], db: Kysely<Tables>): RunsApplier {
  const condensers = new Map<FleetEventType, ((events: readonly RecordedFleetEvent[]) => RecordedFleetEvent[]) | null>();
  /** How a run of `type` condenses; null when some projection handling it cannot condense (or none handles it). */
  const condenserOf = (type: FleetEventType) => {
    if (!condensers.has(type)) {
      const handlers = projections.filter((p) => p.handles.includes(type));
      const able = handlers.length > 0 && handlers.every((p) => p.condense && p.evolveMany);
      condensers.set(type, able ? (events) => keptByAny(handlers, events) : null);
    }
    return condensers.get(type)!;
  };
  let carried: RecordedFleetEvent[] = [];
  // Condensed again once it has doubled: condensing at every page would cost the carried run's length each time.
  let condensedLength = 0;
  const carry = (events: readonly RecordedFleetEvent[]) => {
    for (const e of events) carried.push(e);
    if (carried.length >= 2 * Math.max(condensedLength, 1000)) {
      carried = condenserOf(carried[0]!.type)!(carried);
      condensedLength = carried.length;
    }
  };
  const flush = async () => {
    const run = carried;
    carried = [];
    condensedLength = 0;
    if (run.length > 0) await applyProjections(projections, db, condenserOf(run[0]!.type)!(run));
  };
  return {
    async add(page) {
      let from = 0;
      if (carried.length > 0) {
        const type = carried[0]!.type;
        while (from < page.length && page[from]!.type === type) from++;
        carry(page.slice(0, from));
        if (from === page.length) return;
        await flush();
      }
      if (from === page.length) return;
      const type = page.at(-1)!.type;
      let to = page.length;
      if (condenserOf(type)) while (to > from && page[to - 1]!.type === type) to--;
      if (to > from) await applyProjections(projections, db, page.slice(from, to));
      carry(page.slice(to));
    },
    finish: flush,
  };
}

/** The events any of the projections keeps when it condenses them, in position order. */
function keptByAny(projections: readonly Projection[], events: readonly RecordedFleetEvent[]): RecordedFleetEvent[] {
  if (projections.length === 1) return projections[0]!.condense!(events);
  const kept = new Set(projections.flatMap((p) => p.condense!(events)));
  return events.filter((e) => kept.has(e));
}
