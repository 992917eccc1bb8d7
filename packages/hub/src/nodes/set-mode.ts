import { decideGlobalMode, decideNodeMode, ok, type Mode, type NodeState } from '@fleetplane/core';
import { globalMode, nodesWithWork } from '../reconcile/load.ts';
import { reconcileJob } from '../reconcile/queues.ts';
import { lockNode } from './load-node.ts';
import type { Command } from '../commands/pipeline.ts';

/** PUT /nodes/{id}/mode: a per-node override (null follows the global mode). The node is reconciled under it. */
export function setNodeMode(nodeId: string, mode: Mode | null): Command<NodeState | null, null> {
  return {
    name: 'SetNodeMode',
    locksNode: nodeId,
    load: (trx) => lockNode(trx, nodeId),
    decide(node) {
      const decided = decideNodeMode(node, nodeId, mode);
      if (!decided.ok) return decided;
      return ok({ events: decided.value, jobs: decided.value.length ? [reconcileJob(nodeId)] : [], result: null });
    },
  };
}

interface Loaded {
  current: Mode;
  nodes: string[];
}

/** PUT /settings/reconciliation: the global mode. Every node with work waiting is reconciled under it. */
export function setGlobalMode(mode: Mode, configured: Mode): Command<Loaded, null> {
  return {
    name: 'SetGlobalMode',
    async load(trx) {
      // First, under the mode lock: concurrent changes serialize, and a lease or reconcile in flight commits
      // under the mode it read before this change does.
      const current = await globalMode(trx, configured, 'change');
      // Nodes with intents to dispatch, and with attempts queued and not handed out (a switch back from
      // observe offers them to the node's channel at once, instead of at its next poll).
      return { current, nodes: await nodesWithWork(trx) };
    },
    decide({ current, nodes }) {
      const events = decideGlobalMode(current, mode);
      return ok({ events, jobs: events.length ? nodes.map((n) => reconcileJob(n)) : [], result: null });
    },
  };
}
