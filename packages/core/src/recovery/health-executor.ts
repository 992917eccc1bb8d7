import type { ConfigTarget } from '../config/intents.ts';
import { fleetEvent, type FleetEvent } from '../events/fleet-event.ts';
import { checkApprovalGate } from '../rollouts/gate.ts';
import { rolloutStream, type RolloutHealthExecutedData } from '../rollouts/events.ts';
import { changedTarget, type RolloutState } from '../rollouts/rollout.ts';
import type { RecoveryPoint } from './points.ts';
import { decideRestore } from './recovery.ts';

/** The principal the health executor acts as: its events name it, not an operator (SPEC L7). */
export const HEALTH_EXECUTOR = 'health-executor';

type GateOutcome = Pick<RolloutState, 'state' | 'gate' | 'gateStatus'> & { gateAction: string | null };

/** A failed gate that asked for a rollback and has no terminal of the executor yet (a resume starts a new gate). */
const unanswered = (r: GateOutcome): boolean => r.gate?.on_unhealthy === 'rollback' && r.gateStatus?.state === 'failed' && r.gateAction === null;

/** Whether a rollout's failed gate waits for the health executor: it asked for a rollback and nothing was done yet. */
export const awaitsHealthExecutor = (r: GateOutcome): boolean => r.state === 'paused' && unanswered(r);

/** An operator cancelled or rolled back the rollout before its executor ran: nothing is restored there, and that is recorded. */
const endedFirst = (r: GateOutcome): boolean => (r.state === 'cancelled' || r.state === 'rolled_back') && unanswered(r);

/**
 * The health executor (SPEC L7-L9): with `on_unhealthy: rollback`, a failed gate restores the failed batch's
 * changed targets, as an operator's rollback by scope would (I2), skipping a target whose restore is already
 * running or whose node a recovery claim holds (I12). Under the approval gate it follows the operator's exemption (H9): every node it affects must have
 * applied the version it goes back to; otherwise it opens nothing and says it needs an approval. Every exit
 * records its terminal (`RolloutHealthExecuted`): opened, skipped, approval_required, or failed; `skipped`
 * with `rollout_ended` too when an operator cancelled or rolled back the rollout before the executor ran.
 */
export function decideHealthRollback(
  rollout: RolloutState & { gateAction: string | null },
  points: ReadonlyMap<string, RecoveryPoint | null>,
  configTargets: ReadonlyMap<string, ConfigTarget>,
  approvalRequired: boolean,
  appliedBefore: ReadonlySet<string>,
  held: ReadonlySet<string>,
): { events: FleetEvent[]; nodes: string[] } {
  if (!awaitsHealthExecutor(rollout) && !endedFirst(rollout)) return { events: [], nodes: [] };
  const batch = rollout.gateStatus!.batch;
  const terminal = (outcome: RolloutHealthExecutedData['outcome'], opened: string[], skipped: string[], code: string | null = null, message: string | null = null) =>
    fleetEvent(rolloutStream(rollout.rolloutId), 'RolloutHealthExecuted', { rollout_id: rollout.rolloutId, batch, outcome, nodes: opened, skipped, code, message });
  if (endedFirst(rollout)) return { events: [terminal('skipped', [], [], 'rollout_ended', `the rollout was ${rollout.state} before the health executor ran: nothing was restored`)], nodes: [] };
  const changed = rollout.targets.filter((t) => t.batch === batch && changedTarget(t));
  // An automated actor opens nothing on a node a recovery claim holds (I12): that is the operator's to decide.
  const skip = (t: (typeof changed)[number]) => t.recovery.phase === 'restoring' || held.has(t.nodeId);
  const skipped = changed.filter(skip).map((t) => t.nodeId);
  const nodes = changed.filter((t) => !skip(t)).map((t) => t.nodeId);
  if (nodes.length === 0) return { events: [terminal('skipped', [], skipped, null, 'every changed target of the batch is already restoring or held by a recovery claim')], nodes: [] };
  // Each node goes back to the version its recovery point holds: the exemption asks that it applied it before.
  const gate = checkApprovalGate(approvalRequired, 'rollback', nodes, appliedBefore);
  if (!gate.ok) {
    const paused = fleetEvent(rolloutStream(rollout.rolloutId), 'RolloutPaused', { rollout_id: rollout.rolloutId, reason: 'approval_required' });
    return { events: [terminal('approval_required', [], skipped, gate.error.code, gate.error.message), paused], nodes: [] };
  }
  // The batch's nodes are this running rollout's: no other rollout can hold them or have changed them since (one per node).
  const decided = decideRestore(rollout, { scope: 'nodes', nodes }, points, new Map(), new Map(), configTargets);
  if (!decided.ok) return { events: [terminal('failed', [], skipped, decided.error.code, decided.error.message)], nodes: [] };
  return { events: [...decided.value.events, terminal('opened', decided.value.nodes, skipped)], nodes: decided.value.nodes };
}
