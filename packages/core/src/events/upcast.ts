import { upcastReportedV1 } from '../reconcile/reported.ts';

/**
 * Event versioning. An event type changes shape by bumping its schema version and adding an upcaster
 * from the old version; the log keeps what was written, and every reader upcasts on read, so evolve and
 * decide only ever see the current shape and old logs keep replaying (test/fixtures/events).
 */
export interface Upcaster {
  type: string;
  /** The version it lifts from, to `from + 1`. */
  from: number;
  up(data: Record<string, unknown>): Record<string, unknown>;
}

export const UPCASTERS: readonly Upcaster[] = [
  // v2 came with configuration intents: their version, rollout and recovery point are explicit (null for a lifecycle intent).
  { type: 'IntentOpened', from: 1, up: (d) => ({ config_version: null, rollout_id: null, recovery_ref: null, ...d }) },
  // v2: a configuration attempt names its version (null for lifecycle attempts).
  { type: 'AttemptQueued', from: 1, up: (d) => ({ config_version: null, ...d }) },
  // v2: a report keeps only what cannot be derived (reconcile/reported.ts).
  { type: 'NodeReported', from: 1, up: upcastReportedV1 },
];

/** The version new events of this type are written with. */
export function currentSchemaVersion(type: string): number {
  return 1 + UPCASTERS.filter((u) => u.type === type).length;
}

/** Lifts data written at `version` to the current shape of its type. */
export function upcast(type: string, version: number, data: Record<string, unknown>): { schemaVersion: number; data: Record<string, unknown> } {
  let current = { schemaVersion: version, data };
  for (;;) {
    const next = UPCASTERS.find((u) => u.type === type && u.from === current.schemaVersion);
    if (!next) return current;
    current = { schemaVersion: next.from + 1, data: next.up(current.data) };
  }
}
