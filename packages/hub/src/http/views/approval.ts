import { APPROVAL_STATUSES, HealthGate } from '@fleetplane/core';
import type { Selectable } from 'kysely';
import { z } from 'zod';
import type { ConfigApprovalsTable } from '../../database/tables.ts';

export const ApprovalView = z.object({
  approval_id: z.string(),
  kind: z.enum(['rollout', 'apply', 'rollback']),
  config_version: z.string(),
  nodes: z.array(z.string()),
  selector: z.record(z.string(), z.string()).nullable(),
  batch_size: z.number(),
  health: HealthGate.nullable(),
  status: z.enum(APPROVAL_STATUSES),
  submitted_by: z.string(),
  decided_by: z.string().nullable(),
  decided_at: z.string().nullable(),
  reason: z.string().nullable(),
  rollout_id: z.string().nullable(),
  expires_at: z.string(),
  republished_from: z.string().nullable(),
  correlation_id: z.string(),
  created_at: z.string(),
}).meta({ id: 'ApprovalView' });

export type ApprovalView = z.infer<typeof ApprovalView>;

export const approvalView = (r: Selectable<ConfigApprovalsTable>): z.infer<typeof ApprovalView> => ({
  approval_id: r.approval_id,
  kind: r.kind,
  config_version: r.config_version,
  nodes: r.nodes,
  selector: r.selector,
  batch_size: r.batch_size,
  health: r.health_gate,
  status: r.status,
  submitted_by: r.submitted_by,
  decided_by: r.decided_by,
  decided_at: r.decided_at?.toISOString() ?? null,
  reason: r.reason,
  rollout_id: r.rollout_id,
  expires_at: r.expires_at.toISOString(),
  republished_from: r.republished_from,
  correlation_id: r.correlation_id,
  created_at: r.created_at.toISOString(),
});
