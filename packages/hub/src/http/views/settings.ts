import { z } from 'zod';
import { Mode } from '../../config.ts';

/** The global reconciliation mode; `source` is `file` while no operator has set one (`reconciliation.mode`). */
export const ReconciliationSettings = z.object({ mode: Mode, source: z.enum(['operator', 'file']) }).meta({ id: 'ReconciliationSettings' });
export type ReconciliationSettings = z.infer<typeof ReconciliationSettings>;

/**
 * The approval gate (`control_api.approval_required`, SPEC H2): when on, every new rollout, apply and rollback
 * to new content goes through an approval request, which expires after `approval_ttl_ms` undecided.
 */
export const ApprovalSettings = z.object({ approval_required: z.boolean(), approval_ttl_ms: z.number().int() }).meta({ id: 'ApprovalSettings' });
export type ApprovalSettings = z.infer<typeof ApprovalSettings>;
