import { StreamHealth } from '@fleetplane/core';
import { z } from 'zod';

/** One row of GET /drift (the SQL view `drift`): a stream on a node, a stale node, or a node's configuration. */
export const DriftItem = z.object({
  node_id: z.string(),
  stream_id: z.string().nullable(),
  /** `unhealthy`: at its desired generation and state, but its executor reports it exited or restarted (SPEC L2). */
  kind: z.enum(['generation_mismatch', 'unhealthy', 'stale_node', 'config_drift']),
  desired_generation: z.number().nullable(),
  desired_state: z.string().nullable(),
  observed_generation: z.number().nullable(),
  observed_state: z.string().nullable(),
  last_seen_at: z.string().nullable(),
  desired_config_version: z.string().nullable(),
  applied_config_version: z.string().nullable(),
  /** The stream's health as its node last reported it (null: none reported). */
  health: StreamHealth.nullable(),
});
export type DriftItem = z.infer<typeof DriftItem>;
