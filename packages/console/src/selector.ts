import type { NodeView } from './hub-api.ts';
import type { Labels } from './labels.ts';

/**
 * The nodes a selector resolves to, as the Hub resolves it at creation (SPEC F3, F5): every pair must be
 * equal, and drained, stale or offline nodes that carry the labels count. A preview: the Hub decides.
 */
export function resolveSelector(nodes: readonly Pick<NodeView, 'node_id' | 'labels'>[], selector: Labels): string[] {
  const pairs = Object.entries(selector);
  if (pairs.length === 0) return [];
  return nodes
    .filter((n) => pairs.every(([k, v]) => n.labels[k] === v))
    .map((n) => n.node_id)
    .sort();
}
