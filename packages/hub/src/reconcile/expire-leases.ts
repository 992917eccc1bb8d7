import { decideLeaseExpiry, ok, type ExpiredAttempt } from '@fleetplane/core';
import { sql } from 'kysely';
import type { Command } from '../commands/pipeline.ts';
import { rolloutJob } from '../rollouts/queues.ts';
import { toAttempt } from './load.ts';

/**
 * The lease sweeper (and boot reclassification): dispatched attempts whose lease ran out become ambiguous.
 * SKIP LOCKED lets several Hubs sweep at once without waiting on each other.
 */
export function expireLeases(limit = 500): Command<Array<ExpiredAttempt & { rolloutId: string | null }>, { expired: number }> {
  return {
    name: 'ExpireLeases',
    async load(trx, now) {
      const rows = await trx
        .selectFrom('attempts as a')
        .innerJoin('intents as i', 'i.intent_id', 'a.intent_id')
        .innerJoin('nodes as n', 'n.node_id', 'a.node_id')
        .selectAll('a')
        .select(['i.state as intent_state', 'i.rollout_id', 'n.report_boot_id', 'n.last_report_seq'])
        .where('a.state', '=', 'dispatched')
        .where('a.lease_expires_at', '<=', now)
        .orderBy('a.lease_expires_at')
        .limit(limit)
        .forUpdate(['a', 'i'])
        .skipLocked()
        // The node's report mark, held still: a report in flight (it holds its node's row) would otherwise
        // be taken for one received after the expiry. Such an attempt is swept on a later pass.
        .modifyEnd(sql`FOR SHARE OF n SKIP LOCKED`)
        .execute();
      return rows.map((r) => ({
        ...toAttempt(r),
        rolloutId: r.rollout_id,
        intentState: r.intent_state,
        nodeReport: r.report_boot_id !== null ? { bootId: r.report_boot_id, seq: r.last_report_seq ?? 0 } : null,
      }));
    },
    decide(expired, now) {
      const events = decideLeaseExpiry(expired, now);
      // A configuration attempt gone ambiguous may settle a restore or a target of its rollout.
      const rollouts = new Set(expired.flatMap((a) => (a.rolloutId === null ? [] : [a.rolloutId])));
      return ok({ events, jobs: [...rollouts].map((r) => rolloutJob(r)), result: { expired: events.length } });
    },
  };
}
