import type { AttemptStateName } from '../reconcile/attempt.ts';
import type { IntentStateName } from '../reconcile/intent.ts';
import type { TargetStateName } from '../rollouts/events.ts';
import { holds, type ClaimClass } from './classify.ts';

export type RecoveryPhase = 'restoring' | 'complete' | 'failed';

interface AttemptOutcome {
  state: AttemptStateName;
  code: string | null;
  message: string | null;
  mutation: string | null;
}

/** A target's recovery as decisions read it. */
export interface TargetRecovery {
  phase: RecoveryPhase | null;
  claim: ClaimClass | null;
  /** The node's configuration generation the claim is about. */
  claimGeneration: number | null;
  /** The target's latest restore intent, with its generation and last attempt. */
  restore: { intentId: string; generation: number; state: IntentStateName; attempt: AttemptOutcome | null } | null;
  /** The node's newest configuration intent, with its last attempt: the evidence that retires a claim. */
  newest: { intentId: string; generation: number; state: IntentStateName; attempt: AttemptOutcome | null } | null;
}

export const NO_RECOVERY: TargetRecovery = { phase: null, claim: null, claimGeneration: null, restore: null, newest: null };

/** A target still part of its rollout: a cancelled one holds nothing (I6). */
export const live = (t: { state: TargetStateName }): boolean => t.state !== 'cancelled';

type RecoveringTarget = { state: TargetStateName; recovery: Pick<TargetRecovery, 'phase' | 'claim'> };

/** SPEC I5, I6: the rollout's recovery, derived from its live targets, never stored. */
export function rolloutRecovery(targets: readonly RecoveringTarget[]): 'none' | 'restoring' | 'recovery_required' {
  targets = targets.filter(live);
  if (targets.some((t) => t.recovery.phase === 'restoring')) return 'restoring';
  return targets.some((t) => holds(t.recovery.claim)) ? 'recovery_required' : 'none';
}

/** The live targets that hold their rollout: a restore in flight, or a claim that may have moved them. */
export function holdingTargets(targets: ReadonlyArray<RecoveringTarget & { nodeId: string }>): string[] {
  return targets.filter((t) => live(t) && (t.recovery.phase === 'restoring' || holds(t.recovery.claim))).map((t) => t.nodeId);
}
