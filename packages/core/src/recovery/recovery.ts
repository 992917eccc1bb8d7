import { openConfigIntent, type ConfigTarget } from '../config/intents.ts';
import { fleetEvent, type EventDataByType, type FleetEvent, type FleetEventType } from '../events/fleet-event.ts';
import { fail, ok, type Result } from '../result.ts';
import { rolloutStream } from '../rollouts/events.ts';
import { changedTarget, refusesRollback, refusesSuperseded, type BusyNodes, type LatestChanges, type RolloutState, type RolloutTarget } from '../rollouts/rollout.ts';
import { NODE_AHEAD_OF_LOG } from '../reconcile/ahead.ts';
import { classifyRestoreFailure, holds, type ClaimClass } from './classify.ts';
import type { RolloutRecoveryClaimRetiredData, RolloutRecoveryCompletedData, RolloutRecoveryFailedData, RolloutRestoreOpenedData } from './events.ts';
import type { RecoveryPoint } from './points.ts';
import { live, type TargetRecovery } from './target-recovery.ts';

export type RestoreScope = { scope: 'target'; node_id: string } | { scope: 'failed' } | { scope: 'all_changed' } | { scope: 'nodes'; nodes: readonly string[] };

const event = <T extends FleetEventType>(rolloutId: string, type: T, data: EventDataByType[T]) => fleetEvent(rolloutStream(rolloutId), type, data);

/**
 * SPEC I2: a rollback by scope restores, on each target in scope, the recovery point this rollout's apply
 * captured there. One restore per target: when any target in scope is restoring, nothing opens (409). A
 * target whose node never reported that point is refused at once, pre-mutation (no restore was sent). A node
 * in another live rollout (`busy`) is refused, as a new rollout on it is: one rollout per node at a time; so
 * is a scope with a node another rollout changed after this one (`latest`, refusesSuperseded).
 * `configTargets` holds the nodes still in the fleet: a target of a node retired since is out of every scope.
 * A cancelled target (its rollout cancelled while it applied) is out of scope too: its claim would hold
 * nothing (I6), so a restore there that failed after moving the node would leave it unheld.
 */
export function decideRestore(
  rollout: RolloutState,
  scope: RestoreScope,
  points: ReadonlyMap<string, RecoveryPoint | null>,
  busy: BusyNodes,
  latest: LatestChanges,
  configTargets: ReadonlyMap<string, ConfigTarget>,
): Result<{ events: FleetEvent[]; nodes: string[] }> {
  const terminal = refusesRollback(rollout);
  if (!terminal.ok) return terminal;
  let inScope: RolloutTarget[];
  if (scope.scope === 'target') {
    const target = rollout.targets.find((t) => t.nodeId === scope.node_id);
    if (!target) return fail('unknown_nodes', `node ${scope.node_id} is not a target of rollout ${rollout.rolloutId}`, { nodes: [scope.node_id] });
    inScope = [target];
  } else if (scope.scope === 'nodes') {
    inScope = rollout.targets.filter((t) => scope.nodes.includes(t.nodeId));
  } else {
    inScope = rollout.targets.filter(scope.scope === 'failed' ? (t) => t.state === 'failed' : changedTarget);
  }
  // A target whose node was not loaded is of a retired node: nothing is left to restore there.
  const retired = inScope.filter((t) => !configTargets.has(t.nodeId)).map((t) => t.nodeId);
  const cancelled = inScope.filter((t) => configTargets.has(t.nodeId) && t.state === 'cancelled').map((t) => t.nodeId);
  inScope = inScope.filter((t) => configTargets.has(t.nodeId) && t.state !== 'cancelled');
  if (inScope.length === 0) {
    const why =
      retired.length > 0
        ? `${retired.join(', ')} retired: nothing is left to restore there`
        : cancelled.length > 0
          ? `${cancelled.join(', ')} was cancelled with its rollout: roll the node back with its node-level rollback`
          : `no target of rollout ${rollout.rolloutId} is in scope ${scope.scope}`;
    return fail('nothing_to_restore', why, { scope: scope.scope, ...(retired.length > 0 ? { retired } : {}), ...(cancelled.length > 0 ? { cancelled } : {}) });
  }
  const restoring = inScope.filter((t) => t.recovery.phase === 'restoring').map((t) => t.nodeId);
  if (restoring.length > 0) {
    return fail('rollback_in_progress', `a restore is already in flight on ${restoring.join(', ')}: one restore per target at a time`, { nodes: restoring });
  }
  const superseded = refusesSuperseded(rollout, inScope.map((t) => t.nodeId), latest);
  if (!superseded.ok) return superseded;
  // A restore is a configuration change like an apply: it would supersede another live rollout's intent there.
  const taken = inScope.map((t) => t.nodeId).filter((n) => busy.has(n) && busy.get(n) !== rollout.rolloutId);
  if (taken.length > 0) {
    return fail('target_in_rollout', `nodes ${taken.join(', ')} are in another live rollout: pause and cancel it, or roll it back, first`, {
      nodes: Object.fromEntries(taken.map((n) => [n, busy.get(n)])),
    });
  }
  const events: FleetEvent[] = [];
  const nodes: string[] = [];
  for (const t of inScope) {
    const point = points.get(t.nodeId) ?? null;
    const target = configTargets.get(t.nodeId)!;
    if (!point) {
      const message = 'the node reported no recovery point captured by this rollout: no restore was sent';
      events.push(failed(rollout.rolloutId, t, null, target.configGeneration, 'pre_mutation', 'no_recovery_point', message));
      continue;
    }
    const opened = openConfigIntent(target, point.config_version, point.ref, rollout.rolloutId, false);
    const data: RolloutRestoreOpenedData = {
      rollout_id: rollout.rolloutId,
      node_id: t.nodeId,
      intent_id: opened.opened.intentId,
      recovery_ref: point.ref,
      config_version: point.config_version,
    };
    events.push(event(rollout.rolloutId, 'RolloutRestoreOpened', data), ...opened.events);
    nodes.push(t.nodeId);
  }
  return ok({ events, nodes });
}

/** A failing terminal. A pre-mutation refusal defers to an earlier moved claim, which keeps its class (I7). */
function failed(
  rolloutId: string,
  t: RolloutTarget,
  intentId: string | null,
  generation: number,
  cls: ClaimClass,
  code: string | null,
  message: string | null,
): FleetEvent {
  const defer = cls === 'pre_mutation' && holds(t.recovery.claim);
  const data: RolloutRecoveryFailedData = {
    rollout_id: rolloutId,
    node_id: t.nodeId,
    intent_id: intentId,
    class: cls,
    claim: defer ? t.recovery.claim! : cls,
    generation: defer ? (t.recovery.claimGeneration ?? generation) : generation,
    code,
    message,
  };
  return event(rolloutId, 'RolloutRecoveryFailed', data);
}

/**
 * Settles recovery from evidence (level-triggered; part of every progression pass). A restore in flight
 * gets its terminal once its intent or attempt has one (I3, I9); one that did not run (`busy`,
 * `node_unreachable`) stays in flight. A claim is never touched while a restore is in flight (I8);
 * otherwise success evidence after the claim (the node's newest configuration intent converged, or its
 * attempt succeeded) retires it, and a later failure retires a pre-mutation claim too (I7).
 */
export function decideRecovery(rollout: RolloutState): FleetEvent[] {
  const events: FleetEvent[] = [];
  for (const t of rollout.targets) {
    const r = t.recovery;
    // A restore gets its terminal even on a target cancelled meanwhile: it was sent, and what it did is
    // recorded (the claim of a cancelled target holds nothing, I6).
    if (r.phase === 'restoring') {
      const restore = r.restore;
      if (!restore) continue;
      const attempt = restore.attempt;
      if (restore.state === 'converged' || attempt?.state === 'succeeded') {
        const data: RolloutRecoveryCompletedData = { rollout_id: rollout.rolloutId, node_id: t.nodeId, intent_id: restore.intentId };
        events.push(event(rollout.rolloutId, 'RolloutRecoveryCompleted', data));
      } else if (attempt?.state === 'failed' && classifyRestoreFailure(attempt) !== 'not_run') {
        const cls = classifyRestoreFailure(attempt) as ClaimClass;
        events.push(failed(rollout.rolloutId, t, restore.intentId, restore.generation, cls, attempt.code, attempt.message));
      } else if (attempt?.state === 'ambiguous') {
        events.push(failed(rollout.rolloutId, t, restore.intentId, restore.generation, 'post_mutation', 'lease_expired', 'the restore was sent and its answer never came'));
      } else if (restore.state === 'superseded' && (attempt === null || attempt.state === 'superseded' || attempt.state === 'failed')) {
        // Withdrawn before it was sent, or while it waited to run again: nothing moved (I9).
        events.push(failed(rollout.rolloutId, t, restore.intentId, restore.generation, 'pre_mutation', 'restore_not_sent', 'the restore was withdrawn before it was sent'));
      } else if (restore.state === 'blocked' && (attempt === null || attempt.state === 'superseded' || attempt.state === 'failed')) {
        // Blocked with no run of its own (a failed one ended above): decided before its node reported a
        // version the log does not know, it was not sent (reconcile/ahead.ts).
        events.push(failed(rollout.rolloutId, t, restore.intentId, restore.generation, 'pre_mutation', NODE_AHEAD_OF_LOG, 'the restore was not sent: its node reports a configuration version the log does not know'));
      }
      continue;
    }
    if (!live(t)) continue;
    const evidence = r.claim !== null && r.claimGeneration !== null ? claimEvidence(r, r.claimGeneration) : null;
    if (evidence) {
      const data: RolloutRecoveryClaimRetiredData = { rollout_id: rollout.rolloutId, node_id: t.nodeId, evidence, intent_id: r.newest!.intentId };
      events.push(event(rollout.rolloutId, 'RolloutRecoveryClaimRetired', data));
    }
  }
  return events;
}

/**
 * Evidence comes from the claim's own generation (a failed restore that a report later proves) or from a
 * newer one: its convergence or a succeeded attempt retire any claim; its failure retires a pre-mutation one.
 */
function claimEvidence(r: TargetRecovery, claimGeneration: number): RolloutRecoveryClaimRetiredData['evidence'] | null {
  const n = r.newest;
  if (!n || n.generation < claimGeneration) return null;
  if (n.generation === claimGeneration) return n.intentId === r.restore?.intentId && n.state === 'converged' ? 'converged' : null;
  if (n.state === 'converged') return 'converged';
  if (n.attempt?.state === 'succeeded') return 'succeeded';
  return r.claim === 'pre_mutation' && n.attempt?.state === 'failed' ? 'failed' : null;
}

/**
 * SPEC I10, at Hub start: a restore still marked in flight whose answer can no longer come (its attempt
 * went ambiguous while no Hub watched, or its intent is gone) is interrupted: it may have moved the target.
 */
export function decideInterrupted(rollout: RolloutState): FleetEvent[] {
  return rollout.targets
    .filter((t) => live(t) && t.recovery.phase === 'restoring' && (t.recovery.restore === null || t.recovery.restore.attempt?.state === 'ambiguous'))
    .map((t) => {
      const restore = t.recovery.restore;
      return failed(rollout.rolloutId, t, restore?.intentId ?? null, restore?.generation ?? t.recovery.claimGeneration ?? 0, 'unknown', 'interrupted', 'the restore was in flight when the Hub stopped');
    });
}

/**
 * SPEC I11, I12: the nodes whose hold these recovery events may have retired (a claim retired, a restore
 * completed). Each is reconciled at once: its pass reads the holds again and queues what waited.
 */
export function releasedNodes(events: readonly FleetEvent[]): string[] {
  const nodes = events.flatMap((e) => (e.type === 'RolloutRecoveryClaimRetired' || e.type === 'RolloutRecoveryCompleted' ? [e.data.node_id] : []));
  return [...new Set(nodes)];
}
