import { decideLeaseExpiry, ok, type ExpiredAttempt, type ReportMark } from '@fleetplane/core';
import type { Command } from '../commands/pipeline.ts';
import { rolloutJob } from '../rollouts/queues.ts';
import { toAttempt } from './load.ts';
import { reconcileJob } from './queues.ts';

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
        .leftJoin('nodes as n', 'n.node_id', 'a.node_id')
        .selectAll('a')
        .select(['i.state as intent_state', 'i.rollout_id', 'n.report_boot_id', 'n.last_report_seq'])
        .where('a.state', '=', 'dispatched')
        .where('a.lease_expires_at', '<=', now)
        .orderBy('a.lease_expires_at')
        .limit(limit)
        .forUpdate(['a', 'i'])
        .skipLocked()
        .execute();
      return rows.map((r) => ({
        ...toAttempt(r),
        rolloutId: r.rollout_id,
        intentState: r.intent_state,
        nodeReport: r.report_boot_id !== null ? { bootId: r.report_boot_id, seq: r.last_report_seq ?? 0 } : null,
        dispatchReport: dispatchReport(r.dispatch_report_boot_id, r.dispatch_report_seq),
      }));
    },
    decide(expired, now) {
      const events = decideLeaseExpiry(expired, now);
      // A configuration attempt gone ambiguous may settle a restore or a target of its rollout.
      const rollouts = new Set(expired.flatMap((a) => (a.rolloutId === null ? [] : [a.rolloutId])));
      // An intent reopened at once (a newer report came while the lease ran) wants its node reconciled.
      const reopened = new Set(events.filter((e) => e.type === 'IntentReopened').map((e) => expired.find((a) => a.intentId === (e.data as { intent_id: string }).intent_id)!.nodeId));
      return ok({
        events,
        jobs: [...[...rollouts].map((r) => rolloutJob(r)), ...[...reopened].map((n) => reconcileJob(n))],
        result: { expired: events.filter((e) => e.type === 'AttemptAmbiguous').length },
      });
    },
  };
}

/** The mark kept at dispatch: see db/migrations/0008_attempt_dispatch_report.sql. */
function dispatchReport(bootId: string | null, seq: number | string | null): ReportMark | null | undefined {
  if (bootId !== null) return { bootId, seq: Number(seq) };
  return seq === null ? undefined : null;
}
