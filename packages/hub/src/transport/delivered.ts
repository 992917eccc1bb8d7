import { z } from 'zod';
import type { LeasedAttempt } from '../reconcile/lease-attempts.ts';

/** An attempt as an agent receives it, by long poll or pushed to its control endpoint (docs/agent-protocol.md). */
export const DeliveredAttempt = z.object({
  attempt_id: z.string(),
  intent_id: z.string(),
  operation: z.string(),
  stream_id: z.string().nullable(),
  generation: z.number(),
  config_version: z.string().nullable(),
  spec: z.record(z.string(), z.unknown()),
  action_id: z.string().nullable(),
  lease_expires_at: z.string(),
  /** A split placement's start or restart: the node's index and count, and every peer's data address (SPEC E3). */
  placement: z.object({ index: z.number(), count: z.number(), peers: z.array(z.object({ node_id: z.string(), data_address: z.string().nullable() })) }).nullable(),
  flags: z.record(z.string(), z.boolean()),
});
export type DeliveredAttempt = z.infer<typeof DeliveredAttempt>;

export const deliveredAttempt = (a: LeasedAttempt): DeliveredAttempt => ({
  attempt_id: a.attemptId,
  intent_id: a.intentId,
  operation: a.operation,
  stream_id: a.streamId,
  generation: a.generation,
  config_version: a.configVersion,
  spec: a.spec,
  action_id: a.actionId,
  lease_expires_at: a.leaseExpiresAt.toISOString(),
  placement: a.placement,
  // SPEC I1: a configuration apply first captures a recovery point on the node.
  flags: a.operation === 'config_apply' ? { capture_recovery: true } : {},
});
