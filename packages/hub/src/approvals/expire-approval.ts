import { decideExpiry, ok, type ApprovalState } from '@fleetplane/core';
import type { Command } from '../commands/pipeline.ts';
import { loadApproval } from './load.ts';

/** The expiry job's body: level-triggered, a no-op unless the request is still pending past its time. */
export function expireApproval(approvalId: string): Command<{ approval: ApprovalState | null }, { expired: boolean }> {
  return {
    name: 'ExpireApproval',
    async load(trx) {
      return { approval: await loadApproval(trx, approvalId, true) };
    },
    decide({ approval }, now) {
      const events = approval ? decideExpiry(approval, now) : [];
      return ok({ events, result: { expired: events.length > 0 } });
    },
  };
}
