import type { IntentKind, IntentStateName, Operation, ReportMark } from './intent.ts';
import type { ObservedStream } from './observed.ts';
import type { DesiredState, Placement, PlacementShare, StreamSpec } from './stream.ts';

/** Stream ids of reconciliation: a stream's desired state on `stream:<id>`, each intent's life on `intent:<id>`. */
export const streamStream = (streamId: string): string => `stream:${streamId}`;
export const intentStream = (intentId: string): string => `intent:${intentId}`;

export interface StreamDesiredData {
  stream_id: string;
  generation: number;
  desired_state: DesiredState;
  spec: StreamSpec;
  placement: Placement;
  action_id: string | null;
  /** Written with `override_hold`: its intents go to held nodes (SPEC I13). Absent otherwise. */
  override_hold?: true;
  /**
   * A node reported this generation of the stream, past the Hub's own (a log restored from a backup lost the
   * writes that made it): `generation` went past it. Absent otherwise.
   */
  reported_generation?: number;
}

/**
 * DELETE /streams/{id}: the stream is wanted stopped everywhere (the StreamDesired of `generation`, appended
 * with it) and is removed once every registered node it has intents on reports it stopped.
 */
export interface StreamDeletionRequestedData {
  stream_id: string;
  generation: number;
}

/** Every node observed the deletion's stop: the stream leaves the listings. A later PUT creates it again, at the next generation. */
export interface StreamRemovedData {
  stream_id: string;
  generation: number;
}

export interface IntentOpenedData {
  intent_id: string;
  kind: IntentKind;
  /** Lifecycle intents only. */
  stream_id: string | null;
  node_id: string;
  generation: number;
  desired_state: DesiredState | null;
  action_id: string | null;
  /** Configuration intents only (schema version 2; the upcaster fills in nulls for version 1). */
  config_version: string | null;
  rollout_id: string | null;
  /** A restore's recovery point. */
  recovery_ref: string | null;
  /** Opened by a write made with `override_hold` (SPEC I13). Absent otherwise. */
  override_hold?: true;
}

export interface IntentSupersededData {
  intent_id: string;
  superseded_by: string | null;
  /** Its queued attempts, withdrawn with it (SPEC A5). Dispatched ones stay in flight and end on their own. */
  withdrawn_attempts: string[];
}

export interface IntentBlockedData {
  intent_id: string;
  failure_class: 'permanent' | 'placement';
  code: string;
  message: string;
}

export interface AttemptQueuedData {
  attempt_id: string;
  intent_id: string;
  node_id: string;
  stream_id: string | null;
  generation: number;
  operation: Operation;
  action_id: string | null;
  /** A configuration attempt's version; its spec holds the content, format and digest (schema version 2). */
  config_version: string | null;
  spec: StreamSpec;
  /** Queued to a held node as an operator's explicit action (SPEC I13). Absent otherwise. */
  override_hold?: true;
  /** A split placement's start or restart: the node's share and its peers (SPEC E3). Absent otherwise. */
  placement?: PlacementShare;
}

export interface AttemptDispatchedData {
  attempt_id: string;
  intent_id: string;
  node_id: string;
  lease_expires_at: string;
}

export type FailureClass = 'temporary' | 'permanent' | 'stale_generation';

export interface AttemptSucceededData {
  attempt_id: string;
  intent_id: string;
  /** False when the result arrived after the attempt had already become ambiguous or been replaced. */
  current: boolean;
}

export interface AttemptFailedData {
  attempt_id: string;
  intent_id: string;
  failure_class: FailureClass;
  code: string | null;
  message: string | null;
  mutation: 'pre_mutation' | 'post_mutation' | null;
  /** The intent's next state, decided with the failure: retrying, blocked or superseded (or unchanged). */
  intent_state: IntentStateName;
  retry_count: number;
  next_retry_at: string | null;
  current: boolean;
}

export interface AttemptAmbiguousData {
  attempt_id: string;
  intent_id: string;
  reason: 'lease_expired';
  /** The intent waits for a report newer than this one before it gets another attempt (SPEC C4, C5). */
  awaiting: ReportMark | null;
  /** False when the intent has moved on (superseded): only the attempt is marked. */
  intent_waits: boolean;
}

export interface IntentConvergedData {
  intent_id: string;
  report: ReportMark;
}

export interface IntentReopenedData {
  intent_id: string;
  report: ReportMark;
}
