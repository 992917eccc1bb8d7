import type { AttemptQueuedData, IntentOpenedData } from '../reconcile/events.ts';
import { upcastReportedV1 } from '../reconcile/reported.ts';
import type { RecordedEvent } from './envelope.ts';
import type { EventDataByType, FleetEventType, RecordedFleetEvent } from './fleet-event.ts';

/**
 * Event versioning. An event type changes shape by bumping its schema version and adding an upcaster
 * from the old version; the log keeps what was written, and every reader upcasts on read, so evolve and
 * decide only ever see the current shape and old logs keep replaying (test/fixtures/events).
 */
export interface Upcaster<T extends FleetEventType, Old, New> {
  type: T;
  /** The version it lifts from, to `from + 1`. */
  from: number;
  up(data: Old): New;
}

/** An upcaster from `Old` to the type's current data: the last one of its type. */
const toCurrent = <T extends FleetEventType, Old>(u: Upcaster<T, Old, EventDataByType[T]>) => u;

/** Version 1 of IntentOpened, before configuration intents. */
export type IntentOpenedDataV1 = Omit<IntentOpenedData, 'config_version' | 'rollout_id' | 'recovery_ref'>;
/** Version 1 of AttemptQueued, before configuration attempts. */
export type AttemptQueuedDataV1 = Omit<AttemptQueuedData, 'config_version'>;

export const UPCASTERS = [
  // v2 came with configuration intents: their version, rollout and recovery point are explicit (null for a lifecycle intent).
  toCurrent({ type: 'IntentOpened', from: 1, up: (d: IntentOpenedDataV1) => ({ config_version: null, rollout_id: null, recovery_ref: null, ...d }) }),
  // v2: a configuration attempt names its version (null for lifecycle attempts).
  toCurrent({ type: 'AttemptQueued', from: 1, up: (d: AttemptQueuedDataV1) => ({ config_version: null, ...d }) }),
  // v2: a report keeps only what cannot be derived (reconcile/reported.ts).
  toCurrent({ type: 'NodeReported', from: 1, up: upcastReportedV1 }),
] as const;

/** The version new events of this type are written with. */
export function currentSchemaVersion(type: string): number {
  return 1 + UPCASTERS.filter((u) => u.type === type).length;
}

/**
 * Lifts data written at `version` to the current shape of its type. The log holds each type's data at the
 * version it was written with, so the data read at `from` is what that version's upcaster takes.
 */
export function upcast(type: string, version: number, data: object): { schemaVersion: number; data: object } {
  let current = { schemaVersion: version, data };
  for (;;) {
    const next: { from: number; up(data: never): object } | undefined = UPCASTERS.find((u) => u.type === type && u.from === current.schemaVersion);
    if (!next) return current;
    current = { schemaVersion: next.from + 1, data: next.up(current.data as never) };
  }
}

/**
 * A stored event as readers see it: its data upcast to its type's current shape, typed by its type. The log
 * holds only what decisions made, each type's data at a version its upcasters lift: this is the one place
 * where data read back is taken to be its type's, rather than parsed again on every read.
 */
export function recordedFleetEvent(stored: RecordedEvent<string, object>): RecordedFleetEvent {
  const { schemaVersion, data } = upcast(stored.type, stored.schemaVersion, stored.data);
  return { ...stored, schemaVersion, data } as RecordedFleetEvent;
}
