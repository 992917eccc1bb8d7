import type { FleetEvent } from '../events/fleet-event.ts';
import { nodeStream } from '../events/streams.ts';
import { fail, ok, type Result } from '../result.ts';
import type { NodeLabelsReplacedData, NodeRegisteredData } from './events.ts';
import { canonicalLabels, type Labels } from './labels.ts';
import type { NodeState } from './node.ts';

export type Registration = NodeRegisteredData;

/**
 * An agent (re)registers at every start. Registration carries what the agent knows about itself and never
 * the operator-owned labels (SPEC F2). Repeating the current registration exactly records nothing.
 */
export function decideRegister(node: NodeState | null, registration: Registration): FleetEvent[] {
  const unchanged =
    node !== null &&
    node.bootId === registration.boot_id &&
    node.agentVersion === registration.agent_version &&
    node.dataAddress === registration.data_address &&
    node.controlAddress === registration.control_address &&
    sameMembers(node.capabilities, registration.capabilities);
  if (unchanged) return [];
  const data: NodeRegisteredData = { ...registration, capabilities: [...new Set(registration.capabilities)].sort() };
  return [{ streamId: nodeStream(registration.node_id), type: 'NodeRegistered', data }];
}

/** Labels are replaced whole; every replacement is recorded with the map before and after (SPEC F1, F2). */
export function decideReplaceLabels(node: NodeState | null, nodeId: string, labels: Labels): Result<FleetEvent[]> {
  if (node === null) return fail('node_not_found', `node ${nodeId} is not registered`, { node_id: nodeId });
  const data: NodeLabelsReplacedData = { node_id: nodeId, before: node.labels, after: canonicalLabels(labels) };
  return ok([{ streamId: nodeStream(nodeId), type: 'NodeLabelsReplaced', data }]);
}

function sameMembers(a: string[], b: string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}
