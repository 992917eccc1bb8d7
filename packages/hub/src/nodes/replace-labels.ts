import { decideReplaceLabels, type Labels } from '@fleetplane/core';
import type { Command } from '../commands/pipeline.ts';
import { lockNode } from './load-node.ts';

export function replaceLabels(nodeId: string, labels: Labels): Command<Awaited<ReturnType<typeof lockNode>>, null> {
  return {
    name: 'ReplaceLabels',
    locksNode: nodeId,
    load: (trx) => lockNode(trx, nodeId),
    decide: (node) => {
      const decided = decideReplaceLabels(node, nodeId, labels);
      return decided.ok ? { ok: true, value: { events: decided.value, result: null } } : decided;
    },
  };
}
