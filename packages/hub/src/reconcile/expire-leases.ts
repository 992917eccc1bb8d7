import { decideLeaseExpiry, ok, type ExpiredAttempt, type ReportMark } from '@fleetplane/core';
import { sql, type Selectable } from 'kysely';
import type { Command } from '../commands/pipeline.ts';
import type { AttemptsTable, IntentsTable, NodesTable } from '../database/tables.ts';
import { together } from '../database/transaction-plan.ts';
import { rolloutJob } from '../rollouts/queues.ts';
import { toAttempt } from './load.ts';

type Expired = { intent_state: IntentsTable['state']; rollout_id: string | null };
type NodeMark = Pick<Selectable<NodesTable>, 'report_boot_id' | 'last_report_seq'>;

/**
 * The lease sweeper (and boot reclassification): dispatched attempts whose lease ran out become ambiguous.
 * SKIP LOCKED lets several Hubs sweep at once without waiting on each other.
 */
export function expireLeases(limit = 500): Command<Array<ExpiredAttempt & { rolloutId: string | null }>, { expired: number }> {
  return {
    name: 'ExpireLeases',
    async load(trx, now) {
      const expired = trx
        .selectFrom('attempts as a')
        .innerJoin('intents as i', 'i.intent_id', 'a.intent_id')
        .selectAll('a')
        .select(['i.state as intent_state', 'i.rollout_id'])
        .where('a.state', '=', 'dispatched')
        .where('a.lease_expires_at', '<=', now)
        .orderBy('a.lease_expires_at')
        .limit(limit)
        .forUpdate(['a', 'i'])
        .skipLocked();
      const [reporting, retired] = await together<[Selectable<AttemptsTable> & Expired & NodeMark, Selectable<AttemptsTable> & Expired]>(trx, [
        expired
          .innerJoin('nodes as n', 'n.node_id', 'a.node_id')
          .select(['n.report_boot_id', 'n.last_report_seq'])
          // The node's report mark, held still: a report in flight (it holds its node's row) would otherwise
          // be taken for one received after the expiry. Such an attempt is swept on a later pass.
          .modifyEnd(sql`FOR SHARE OF n SKIP LOCKED`),
        // A retired node's (its row gone): no report will come, and its lease runs out all the same.
        expired.where(({ not, exists, selectFrom }) => not(exists(selectFrom('nodes as n').whereRef('n.node_id', '=', 'a.node_id')))),
      ]);
      const attempt = (r: Selectable<AttemptsTable> & Expired, nodeReport: ReportMark | null) => ({ ...toAttempt(r), rolloutId: r.rollout_id, intentState: r.intent_state, nodeReport });
      return [
        ...reporting.map((r) => attempt(r, r.report_boot_id !== null ? { bootId: r.report_boot_id, seq: r.last_report_seq ?? 0 } : null)),
        ...retired.map((r) => attempt(r, null)),
      ];
    },
    decide(expired, now) {
      const events = decideLeaseExpiry(expired, now);
      // A configuration attempt gone ambiguous may settle a restore or a target of its rollout.
      const rollouts = new Set(expired.flatMap((a) => (a.rolloutId === null ? [] : [a.rolloutId])));
      return ok({ events, jobs: [...rollouts].map((r) => rolloutJob(r)), result: { expired: events.length } });
    },
  };
}
