import { z } from 'zod';
import { NewLabels } from '../nodes/labels.ts';

const NodeId = z.string().min(1).max(200);

/** Equality on every pair: a node matches when it carries each key with exactly that value (SPEC F3). */
export const Selector = NewLabels.refine((m) => Object.keys(m).length > 0, { message: 'a selector needs at least one label' });
export type Selector = z.infer<typeof Selector>;

/** Explicit nodes or a selector, never both (SPEC F3); an explicit list is non-empty and has no duplicates (G3). */
export const Targets = z
  .object({
    nodes: z
      .array(NodeId)
      .min(1)
      .max(10_000)
      .refine((n) => new Set(n).size === n.length, { message: 'target nodes must be distinct' })
      .optional(),
    selector: Selector.optional(),
  })
  .strict()
  .refine((t) => (t.nodes === undefined) !== (t.selector === undefined), { message: 'targets take either nodes or a selector, not both and not neither' });
export type Targets = z.infer<typeof Targets>;

export const MAX_BATCH_SIZE = 256;
export const BatchSize = z.number().int().min(1).max(MAX_BATCH_SIZE).default(1);

/** Targets in resolution order, batch by batch: the i-th node goes to batch ⌊i / batch_size⌋. */
export function assignBatches(nodes: readonly string[], batchSize: number): Array<{ node_id: string; batch: number }> {
  return nodes.map((node_id, i) => ({ node_id, batch: Math.floor(i / batchSize) }));
}
