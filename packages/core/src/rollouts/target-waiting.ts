import { holdingTargets, type TargetRecovery } from '../recovery/target-recovery.ts';
import { waiting, type WaitingOn } from '../reconcile/waiting.ts';
import type { RolloutStateName, TargetStateName } from './events.ts';
import type { RolloutState } from './rollout.ts';

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
  /** The health gate of the batch it last watched (SPEC L3), as the rollout holds it. */
  gateStatus: RolloutState['gateStatus'];
  targets: readonly WaitingTarget[];
}

/**
 * What each target of a rollout waits on (issue 22): an applying target, what its configuration intent waits
 * on (`intentWait`, null once the intent converged: then the rollout's pass that settles it); a target whose
 * batch has not started, the pause, a recovery hold (I5) or the current batch (G1). Settled targets wait on
 * nothing. What a target that has not started waits on is the same for all of them: it is worked out once
 * per rollout, so a view of every target of a large rollout reads its targets once, not once per target.
 * A converged batch whose health gate soaks holds the next one until the soak's end (L3), not a queued pass.
 */
export function targetWaits(rollout: WaitingRollout): (target: WaitingTarget, intentWait: WaitingOn | null) => WaitingOn | null {
  let notStarted: ((target: WaitingTarget) => WaitingOn) | undefined;
  return (target, intentWait) => {
    if (target.state !== 'applying' && target.state !== 'waiting') return null;
    if (rollout.state !== 'applying' && rollout.state !== 'paused') return null;
    if (target.state === 'applying' && intentWait) return intentWait;
    if (rollout.state === 'paused') {
      return waiting('rollout_paused', `the rollout is paused${rollout.pausedReason ? ` (${rollout.pausedReason})` : ''}: resume it to go on`);
    }
    if (target.state === 'applying') {
      return waiting('job', `the rollout's pass is queued: it settles node ${target.nodeId}, whose intent converged`, { nodeId: target.nodeId });
    }
    notStarted ??= batchNotStarted(rollout);
    return notStarted(target);
  };
}

/**
 * What the targets of an applying rollout whose batch has not started wait on: the targets it takes reading
 * all of them for are found once.
 */
function batchNotStarted(rollout: WaitingRollout): (target: WaitingTarget) => WaitingOn {
  const [holder] = holdingTargets(rollout.targets);
  if (holder !== undefined) {
    const held = rollout.targets.find((t) => t.nodeId === holder)!;
    const what = held.recovery.phase === 'restoring' ? 'a restore in flight' : `a ${held.recovery.claim} recovery claim`;
    const hold = waiting('recovery_hold', `${what} on node ${holder} holds the rollout: no new batch starts until it settles`, {
      nodeId: holder,
      intentId: held.recoveryIntentId,
    });
    return () => hold;
  }
  const open = rollout.targets.find((t) => t.batch === rollout.currentBatch && t.state !== 'cancelled' && t.state !== 'converged');
  if (!open) {
    const gate = rollout.gateStatus;
    if (gate?.batch === rollout.currentBatch && gate.state === 'soaking' && gate.until !== null) {
      const soak = waiting(
        'health_gate',
        `batch ${rollout.currentBatch + 1} converged and its health gate soaks until ${gate.until}: the next batch starts once it has stayed healthy that long`,
        { at: new Date(gate.until) },
      );
      return () => soak;
    }
    const pass = waiting('job', `batch ${rollout.currentBatch + 1} converged: the rollout's pass that starts the next one is queued`);
    return () => pass;
  }
  return (target) => waiting('batch', `batch ${target.batch + 1} starts once batch ${rollout.currentBatch + 1} has converged; node ${open.nodeId} is ${open.state}`, { nodeId: open.nodeId });
}
