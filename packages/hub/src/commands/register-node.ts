import { decideRegister, nodeStream, ok, type Registration } from '@fleetplane/core';
import type { Command } from './pipeline.ts';
import { reconcileJob } from '../reconcile/queues.ts';
import { lockNode } from './load-node.ts';

export function registerNode(registration: Registration): Command<Awaited<ReturnType<typeof lockNode>>, null> {
  return {
    name: 'RegisterNode',
    load: (trx) => lockNode(trx, registration.node_id),
    decide: (node) =>
      ok({
        events: decideRegister(node, registration),
        // A first registration must create the stream; a concurrent one re-runs and finds the node.
        expectedVersions: node === null ? { [nodeStream(registration.node_id)]: 0 } : {},
        // SPEC C7, D2: registration wakes the node's pending intents (ambiguous ones wait for a report).
        jobs: [reconcileJob(registration.node_id)],
        result: null,
      }),
  };
}
