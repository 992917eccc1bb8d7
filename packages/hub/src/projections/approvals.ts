import { projection, type ProjectionQuery } from './projection.ts';

/** The `config_approvals` table: each approval request, pinned, with its decision. */
export const approvalsProjection = projection({
  name: 'config_approvals',
  tables: { config_approvals: ['approval_id'] },
  handles: ['ApprovalSubmitted', 'ApprovalApproved', 'ApprovalRejected', 'ApprovalExpired'],
  evolve(event, db): ProjectionQuery[] {
    const at = event.recordedAt;
    const approvalId = event.data.approval_id;
    const update = db.updateTable('config_approvals').where('approval_id', '=', approvalId);
    switch (event.type) {
      case 'ApprovalSubmitted': {
        const d = event.data;
        return [
          db.insertInto('config_approvals').values({
            approval_id: d.approval_id,
            kind: d.kind,
            config_version: d.config_version,
            nodes: JSON.stringify(d.nodes),
            selector: d.selector ? JSON.stringify(d.selector) : null,
            batch_size: d.batch_size,
            health_gate: d.health ? JSON.stringify(d.health) : null,
            status: 'pending',
            submitted_by: event.metadata.actor,
            expires_at: d.expires_at,
            republished_from: d.republished_from,
            correlation_id: event.metadata.correlation_id,
            created_at: at,
            updated_at: at,
          }),
        ];
      }
      case 'ApprovalApproved': {
        const d = event.data;
        return [update.set({ status: 'approved', rollout_id: d.rollout_id, decided_by: event.metadata.actor, decided_at: at, updated_at: at })];
      }
      case 'ApprovalRejected': {
        const d = event.data;
        return [update.set({ status: 'rejected', reason: d.reason, decided_by: event.metadata.actor, decided_at: at, updated_at: at })];
      }
      case 'ApprovalExpired':
        return [update.set({ status: 'expired', updated_at: at })];
      default:
        return [];
    }
  },
});
