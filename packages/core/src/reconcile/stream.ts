import { z } from 'zod';

export const DesiredState = z.enum(['running', 'stopped']);
export type DesiredState = z.infer<typeof DesiredState>;

const NodeId = z.string().min(1).max(200);

/**
 * Where a stream runs: one node, the same stream on each of several nodes, or (split) one stream divided
 * across several nodes, which then exchange data (SPEC E: every node needs `network_shuffle` and a data address).
 */
export const Placement = z
  .object({ nodes: z.array(NodeId).min(1).max(256), split: z.boolean().default(false) })
  .strict()
  .refine((p) => new Set(p.nodes).size === p.nodes.length, { message: 'placement nodes must be distinct' })
  .refine((p) => !p.split || p.nodes.length >= 2, { message: 'a split placement needs at least two nodes' });
export type Placement = z.infer<typeof Placement>;

/** A node's share of a split placement, as its `job_start` carries it (SPEC E3). */
export interface PlacementShare {
  /** The node's position in the placement's `nodes`, from 0. */
  index: number;
  count: number;
  /** Every node of the placement, in its order, this one included, with its data address. */
  peers: Array<{ node_id: string; data_address: string | null }>;
}

/** What the agent runs; the process executor reads command, args and env. Other keys pass through. */
export const StreamSpec = z
  .object({
    command: z.string().min(1).max(4096).optional(),
    args: z.array(z.string().max(4096)).max(256).optional(),
    env: z.record(z.string().min(1).max(256), z.string().max(4096)).optional(),
  })
  .catchall(z.unknown())
  .refine((s) => JSON.stringify(s).length <= 65_536, { message: 'spec must be at most 64 KiB of JSON' });
export type StreamSpec = z.infer<typeof StreamSpec>;

export const DesiredStream = z
  .object({ desired_state: DesiredState, spec: StreamSpec.default({}), placement: Placement })
  .strict();
export type DesiredStream = z.infer<typeof DesiredStream>;

/** A stream as the streams projection holds it. */
export interface StreamState {
  streamId: string;
  generation: number;
  desiredState: DesiredState;
  spec: StreamSpec;
  placement: Placement;
  actionId: string | null;
}
