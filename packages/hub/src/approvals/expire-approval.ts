import { decideExpiry, ok, type ApprovalState } from '@fleetplane/core';
import type { Command } from '../commands/pipeline.ts';
import { loadApproval } from './load.ts';
import { approvalExpiryJob } from './queues.ts';

/**
 * The expiry job's body: level-triggered, a no-op unless the request is still pending past its time. The
 * job queue runs on the database's clock and expiry on the Hub's: a job that comes while the request is
 * pending but not yet due by the Hub's clock arms another for the time left, counted from the database's.
 */
export function expireApproval(approvalId: string): Command<{ approval: ApprovalState | null }, { expired: boolean }> {
  return {
    name: 'ExpireApproval',
    async load(trx) {
      return { approval: await loadApproval(trx, approvalId, true) };
    },
    decide({ approval }, now) {
      const events = approval ? decideExpiry(approval, now) : [];
      const early = approval !== null && approval.status === 'pending' && events.length === 0;
      const jobs = early ? [approvalExpiryJob(approvalId, Math.ceil((approval.expiresAt.getTime() - now.getTime()) / 1000))] : [];
      return ok({ events, jobs, result: { expired: events.length > 0 } });
    },
  };
}
