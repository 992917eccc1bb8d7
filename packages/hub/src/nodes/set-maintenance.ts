import { decideMaintenance, type NodeState } from '@fleetplane/core';
import { reconcileJob } from '../reconcile/queues.ts';
import { lockNode } from './load-node.ts';
import type { Command } from '../commands/pipeline.ts';

/** POST /nodes/{id}/drain and /undrain. Undrain wakes the node's reconciliation at its current generations (D2). */
export function setMaintenance(nodeId: string, draining: boolean): Command<NodeState | null, null> {
  return {
    name: draining ? 'DrainNode' : 'UndrainNode',
    locksNode: nodeId,
    load: (trx) => lockNode(trx, nodeId),
    decide(node) {
      const decided = decideMaintenance(node, nodeId, draining);
      if (!decided.ok) return decided;
      return { ok: true, value: { events: decided.value, jobs: draining ? [] : [reconcileJob(nodeId)], result: null } };
    },
  };
}
