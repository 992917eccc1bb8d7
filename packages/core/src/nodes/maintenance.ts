import type { FleetEvent } from '../events/fleet-event.ts';
import { nodeStream, settingsStream } from '../events/streams.ts';
import { fail, ok, type Result } from '../result.ts';
import type { Mode } from '../reconcile/mode.ts';
import type { NodeState } from './node.ts';

/**
 * Drain changes availability, not intent (SPEC D1-D3): the node gets no new attempts and keeps its desired
 * streams. Draining a draining node (or undraining an active one) records nothing.
 */
export function decideMaintenance(node: NodeState | null, nodeId: string, draining: boolean): Result<FleetEvent[]> {
  if (node === null) return fail('node_not_found', `node ${nodeId} is not registered`, { node_id: nodeId });
  if ((node.maintenance === 'draining') === draining) return ok([]);
  return ok([{ streamId: nodeStream(nodeId), type: draining ? 'NodeDrained' : 'NodeUndrained', data: { node_id: nodeId } }]);
}

/** A per-node reconciliation mode (null: follow the global one), recorded with the one it replaced (B3). */
export function decideNodeMode(node: NodeState | null, nodeId: string, mode: Mode | null): Result<FleetEvent[]> {
  if (node === null) return fail('node_not_found', `node ${nodeId} is not registered`, { node_id: nodeId });
  if (node.modeOverride === mode) return ok([]);
  return ok([{ streamId: nodeStream(nodeId), type: 'NodeModeSet', data: { node_id: nodeId, mode, previous: node.modeOverride } }]);
}

/** The global reconciliation mode, recorded with the one it replaced (B3). */
export function decideGlobalMode(current: Mode, mode: Mode): FleetEvent[] {
  if (current === mode) return [];
  return [{ streamId: settingsStream, type: 'ReconciliationModeSet', data: { mode, previous: current } }];
}
