import type { ApprovalState } from '@fleetplane/core';
import type { Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';

/** An approval request as decisions read it; locked when the caller will decide it. */
export async function loadApproval(trx: Kysely<Tables>, approvalId: string, lock: boolean): Promise<ApprovalState | null> {
  const query = trx.selectFrom('config_approvals').selectAll().where('approval_id', '=', approvalId);
  const row = await (lock ? query.forUpdate() : query).executeTakeFirst();
  if (!row) return null;
  return {
    approvalId: row.approval_id,
    kind: row.kind,
    configVersion: row.config_version,
    selector: row.selector,
    nodes: row.nodes,
    batchSize: row.batch_size,
    health: row.health_gate,
    status: row.status,
    submittedBy: row.submitted_by,
    expiresAt: row.expires_at,
    rolloutId: row.rollout_id,
  };
}
