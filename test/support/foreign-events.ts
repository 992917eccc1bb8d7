import type { FleetEvent, NewEvent, RecordedEvent } from '@fleetplane/core';
import type { Kysely } from 'kysely';
import type { Tables } from '../../packages/hub/src/database/tables.ts';
import type { Projection, ProjectionQuery } from '../../packages/hub/src/projections/projection.ts';

/**
 * An event of a type Fleetplane does not define, for tests of the pipeline and the log that want events no
 * product projection handles. Commands decide Fleetplane's events only; these pass where those go.
 */
export const foreignEvent = (streamId: string, type: string, data: object = {}): FleetEvent => ({ streamId, type, data }) satisfies NewEvent as unknown as FleetEvent;

/** A projection of a test's own, of foreign events: the pipeline runs it like Fleetplane's. */
export const foreignProjection = (p: {
  name: string;
  handles: readonly string[];
  evolve(event: RecordedEvent<string, Record<string, unknown>>, db: Kysely<Tables>): ProjectionQuery[];
}): Projection => ({ tables: {}, ...p }) as unknown as Projection;
