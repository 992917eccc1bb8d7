import { holdingTargets, type TargetRecovery } from '../recovery/target-recovery.ts';
import { waiting, type WaitingOn } from '../reconcile/waiting.ts';
import type { RolloutStateName, TargetStateName } from './events.ts';

export interface WaitingTarget {
  nodeId: string;
  batch: number;
  state: TargetStateName;
  recovery: Pick<TargetRecovery, 'phase' | 'claim'>;
  /** The target's restore intent, if it has one. */
  recoveryIntentId: string | null;
}

export interface WaitingRollout {
  state: RolloutStateName;
  pausedReason: string | null;
  currentBatch: number;
  targets: readonly WaitingTarget[];
}

/**
 * What a rollout target waits on (issue 22): an applying target, what its configuration intent waits on
 * (`intentWait`, null once the intent converged: then the rollout's pass that settles it); a target whose
 * batch has not started, the pause, a recovery hold (I5) or the current batch (G1). Settled targets wait
 * on nothing.
 */
export function targetWaitsOn(rollout: WaitingRollout, target: WaitingTarget, intentWait: WaitingOn | null): WaitingOn | null {
  if (target.state !== 'applying' && target.state !== 'waiting') return null;
  if (rollout.state !== 'applying' && rollout.state !== 'paused') return null;
  if (target.state === 'applying' && intentWait) return intentWait;
  if (rollout.state === 'paused') {
    return waiting('rollout_paused', `the rollout is paused${rollout.pausedReason ? ` (${rollout.pausedReason})` : ''}: resume it to go on`);
  }
  if (target.state === 'applying') {
    return waiting('job', `the rollout's pass is queued: it settles node ${target.nodeId}, whose intent converged`, { nodeId: target.nodeId });
  }
  const [holder] = holdingTargets(rollout.targets);
  if (holder !== undefined) {
    const held = rollout.targets.find((t) => t.nodeId === holder)!;
    const what = held.recovery.phase === 'restoring' ? 'a restore in flight' : `a ${held.recovery.claim} recovery claim`;
    return waiting('recovery_hold', `${what} on node ${holder} holds the rollout: no new batch starts until it settles`, {
      nodeId: holder,
      intentId: held.recoveryIntentId,
    });
  }
  const current = rollout.targets.filter((t) => t.batch === rollout.currentBatch && t.state !== 'cancelled');
  const open = current.find((t) => t.state !== 'converged');
  if (!open) return waiting('job', `batch ${rollout.currentBatch + 1} converged: the rollout's pass that starts the next one is queued`);
  return waiting('batch', `batch ${target.batch + 1} starts once batch ${rollout.currentBatch + 1} has converged; node ${open.nodeId} is ${open.state}`, { nodeId: open.nodeId });
}
