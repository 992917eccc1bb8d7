import type { ClaimClass } from './classify.ts';

/** A restore opened on a target: its intent puts back the recovery point its rollout's apply captured. */
export interface RolloutRestoreOpenedData {
  rollout_id: string;
  node_id: string;
  intent_id: string;
  recovery_ref: string;
  config_version: string;
}

/** A restore's terminal: the target is back (success evidence), with the claim, if any, retired. */
export interface RolloutRecoveryCompletedData {
  rollout_id: string;
  node_id: string;
  intent_id: string | null;
}

/**
 * A restore's failing terminal, classified (I3). `claim` is the target's claim afterwards: a pre-mutation
 * refusal defers to an earlier moved claim, which keeps its class (I7).
 */
export interface RolloutRecoveryFailedData {
  rollout_id: string;
  node_id: string;
  intent_id: string | null;
  class: ClaimClass;
  claim: ClaimClass;
  /** The configuration generation the resulting claim is about (kept from an earlier claim a refusal defers to). */
  generation: number;
  code: string | null;
  message: string | null;
}

/** A claim retired by evidence: success (a report at the expected version, or a successful apply), or for a pre-mutation claim a later failure. */
export interface RolloutRecoveryClaimRetiredData {
  rollout_id: string;
  node_id: string;
  evidence: 'converged' | 'succeeded' | 'failed';
  intent_id: string;
}
