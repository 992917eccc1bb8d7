import type { DesiredState } from './stream.ts';

/** Every state an intent can be in (gauges show each, at 0 when no intent is in it). */
export const INTENT_STATES = ['pending', 'converging', 'retrying', 'converged', 'blocked', 'superseded', 'ambiguous'] as const;
export type IntentStateName = (typeof INTENT_STATES)[number];

/** States in which an intent still wants something; converged and superseded are done. */
export const LIVE_STATES: readonly IntentStateName[] = ['pending', 'converging', 'retrying', 'ambiguous', 'blocked'];

export type Operation = 'job_start' | 'job_stop' | 'job_restart' | 'config_apply' | 'restore';

/** A lifecycle intent targets a stream on a node; a configuration intent targets the node's configuration. */
export type IntentKind = 'lifecycle' | 'configuration';

export interface ReportMark {
  bootId: string;
  seq: number;
}

/** An intent as the intents projection holds it: what a decision reads. */
export interface IntentState {
  intentId: string;
  kind: IntentKind;
  /** Lifecycle: the stream and its desired state. Null for a configuration intent. */
  streamId: string | null;
  nodeId: string;
  generation: number;
  desiredState: DesiredState | null;
  actionId: string | null;
  /** Configuration: the version the node must apply. Null for a lifecycle intent. */
  configVersion: string | null;
  /** The rollout that opened a configuration intent. */
  rolloutId: string | null;
  /** A restore: the recovery point it puts back. */
  recoveryRef: string | null;
  state: IntentStateName;
  retryCount: number;
  nextRetryAt: Date | null;
  /** Set while ambiguous: the node's last report when the lost attempt was dispatched. */
  awaiting: ReportMark | null;
  /** When the desired write that opened it was made. */
  openedAt: Date;
  /** Opened by an operator's write made with `override_hold`: it goes to a held node (SPEC I13). */
  overridesHold: boolean;
}

export function operationFor(intent: Pick<IntentState, 'kind' | 'desiredState' | 'actionId' | 'recoveryRef'>): Operation {
  if (intent.kind === 'configuration') return intent.recoveryRef === null ? 'config_apply' : 'restore';
  if (intent.desiredState === 'stopped') return 'job_stop';
  return intent.actionId ? 'job_restart' : 'job_start';
}

export function kindOf(operation: Operation): IntentKind {
  return operation === 'config_apply' || operation === 'restore' ? 'configuration' : 'lifecycle';
}

/** A report is newer than a mark when the node has restarted since, or counted on in the same boot. */
export function isNewerReport(report: ReportMark, than: ReportMark | null): boolean {
  return than === null || report.bootId !== than.bootId || report.seq > than.seq;
}
