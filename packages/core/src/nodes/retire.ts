import { supersede } from '../config/intents.ts';
import { fleetEvent, type FleetEvent } from '../events/fleet-event.ts';
import { nodeStream } from '../events/streams.ts';
import type { LiveIntent } from '../reconcile/desired.ts';
import { fail, ok, type Result } from '../result.ts';
import { rolloutStream } from '../rollouts/events.ts';
import type { NodeState } from './node.ts';

/** What retiring a node reads: the node (null once retired or never registered), its live intents, its running rollouts. */
export interface RetiringNode {
  node: NodeState | null;
  /** When the node was retired already, for the refusal's message. */
  retiredAt: Date | null;
  live: readonly LiveIntent[];
  /** Applying or paused rollouts that target the node. */
  rollouts: readonly string[];
  /** Ended rollouts whose target on the node holds a recovery claim or restores (SPEC I5): nothing can settle it once the node is gone. */
  claimed: readonly string[];
}

/**
 * DELETE /nodes/{id} (issue 22). A node still in a running rollout, or with live intents, is refused with a
 * stable code unless forced. Forced, it ends them: its live intents are superseded (queued attempts
 * withdrawn; a dispatched one runs out its lease), and it is removed from each running rollout as a cancelled
 * target, so no batch waits for it. A target whose claim or restore in flight holds its rollout leaves too
 * (an ended rollout's forced or not): no evidence can come from a node that is gone. Retirement never sends the node anything: what runs on
 * the machine is the operator's to stop first (docs/decisions.md, "Retiring a node").
 */
export function decideRetire(state: RetiringNode, nodeId: string, force: boolean): Result<FleetEvent[]> {
  const { node, live, rollouts, claimed } = state;
  if (node === null) {
    const why = state.retiredAt ? `was retired at ${state.retiredAt.toISOString()}` : 'is not registered';
    return fail('node_not_found', `node ${nodeId} ${why}`, { node_id: nodeId, ...(state.retiredAt && { retired_at: state.retiredAt.toISOString() }) });
  }
  if (!force && rollouts.length > 0) {
    return fail('node_in_running_rollout', `node ${nodeId} is a target of running rollouts ${rollouts.join(', ')}: cancel them, or retire with force`, {
      node_id: nodeId,
      rollouts: [...rollouts],
    });
  }
  if (!force && live.length > 0) {
    const ids = live.map((i) => i.intentId);
    return fail('node_has_live_intents', `node ${nodeId} has ${ids.length} live intents: move its streams off it first, or retire with force`, {
      node_id: nodeId,
      intents: ids,
    });
  }
  return ok([
    ...live.map((i) => supersede(i, null)),
    ...[...rollouts, ...claimed].map((r) => fleetEvent(rolloutStream(r), 'RolloutTargetRemoved', { rollout_id: r, node_id: nodeId, reason: 'node_retired' })),
    fleetEvent(nodeStream(nodeId), 'NodeRetired', { node_id: nodeId, forced: force, superseded_intents: live.map((i) => i.intentId), rollouts: [...rollouts, ...claimed] }),
  ]);
}

/** What a retired node's agent is answered, whatever it asks (403, audited): its credential works no more. */
export function retiredRefusal(nodeId: string, retiredAt: Date): Result<never> {
  return fail('node_retired', `node ${nodeId} was retired at ${retiredAt.toISOString()}: its credential is refused; a machine that comes back joins as a new node`, {
    node_id: nodeId,
    retired_at: retiredAt.toISOString(),
  });
}
