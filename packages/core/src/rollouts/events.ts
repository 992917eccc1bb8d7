import type { GateEvidence, HealthGate } from './health-gate.ts';
import type { Selector } from './targets.ts';

export const rolloutStream = (rolloutId: string): string => `rollout:${rolloutId}`;

/** rollout: many nodes; apply and rollback: the node-level routes, single-node rollouts (SPEC G4). */
export type RolloutKind = 'rollout' | 'apply' | 'rollback';
export const ROLLOUT_STATES = ['applying', 'paused', 'converged', 'cancelled', 'rolled_back'] as const;
export type RolloutStateName = (typeof ROLLOUT_STATES)[number];
export const TARGET_STATES = ['waiting', 'applying', 'converged', 'failed', 'cancelled'] as const;
export type TargetStateName = (typeof TARGET_STATES)[number];

export const TERMINAL_ROLLOUT_STATES: readonly RolloutStateName[] = ['converged', 'cancelled', 'rolled_back'];

export interface RolloutCreatedData {
  rollout_id: string;
  kind: RolloutKind;
  config_version: string;
  batch_size: number;
  /** The selector as given, for the record; the targets below are what it resolved to, pinned (F4). */
  selector: Selector | null;
  targets: Array<{ node_id: string; batch: number }>;
  approval_id: string | null;
  rollback_of: string | null;
  /** Its health gate (SPEC L3); absent in rollouts created before gates, and in those without one. */
  health?: HealthGate | null;
}

/** A batch's targets get their configuration intents (opened by the same decision). */
export interface RolloutBatchStartedData {
  rollout_id: string;
  batch: number;
  intents: Array<{ node_id: string; intent_id: string }>;
}

export interface RolloutTargetConvergedData {
  rollout_id: string;
  node_id: string;
  intent_id: string;
}

export interface RolloutTargetFailedData {
  rollout_id: string;
  node_id: string;
  intent_id: string;
  failure_class: string | null;
  code: string | null;
  message: string | null;
  /** The correlation id of the failed attempt's intent: where to look in the history. */
  correlation_id: string | null;
}

/** A target taken out of a live rollout because its node was retired: it is cancelled and no batch waits for it. */
export interface RolloutTargetRemovedData {
  rollout_id: string;
  node_id: string;
  reason: 'node_retired';
}

export interface RolloutPausedData {
  rollout_id: string;
  reason: 'operator' | 'target_failed' | 'health_gate' | 'approval_required';
}

/** Resuming re-applies the batch's failed targets with new intents: a blocked intent needs a new generation (C2). */
export interface RolloutResumedData {
  rollout_id: string;
  intents: Array<{ node_id: string; intent_id: string }>;
}

export interface RolloutCancelledData {
  rollout_id: string;
}

export interface RolloutConvergedData {
  rollout_id: string;
}

export interface RolloutRolledBackData {
  rollout_id: string;
  /** The rollout that takes the targets back to an earlier version. */
  rolled_back_by: string;
  config_version: string;
}

/** Every target of the batch converged: its health gate watches them until `until` (SPEC L3). */
export interface RolloutGateSoakingData {
  rollout_id: string;
  batch: number;
  until: string;
}

/** The batch stayed converged and healthy for the whole soak. */
export interface RolloutGatePassedData {
  rollout_id: string;
  batch: number;
}

/** More targets than the gate allows counted against the batch during its soak: why, target by target (L4). */
export interface RolloutGateFailedData {
  rollout_id: string;
  batch: number;
  on_unhealthy: HealthGate['on_unhealthy'];
  evidence: GateEvidence[];
}

/**
 * The health executor's terminal for a failed gate (SPEC L7-L9): restores opened on `nodes`, or none
 * (`skipped`: every changed target already restoring; `approval_required`: the rollback needs one, H9;
 * `failed`: refused, with its code). `skipped` names targets left to the restore already running.
 */
export interface RolloutHealthExecutedData {
  rollout_id: string;
  batch: number;
  outcome: 'opened' | 'skipped' | 'approval_required' | 'failed';
  nodes: string[];
  skipped: string[];
  code: string | null;
  message: string | null;
}
