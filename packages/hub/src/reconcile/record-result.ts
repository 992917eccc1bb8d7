import { decideResult, ok, type AttemptResult, type AttemptState, type IntentState, type ReportMark, type RetryPolicy } from '@fleetplane/core';
import type { Selectable } from 'kysely';
import type { Command } from '../commands/pipeline.ts';
import { together } from '../database/transaction-plan.ts';
import type { AttemptsTable, IntentsTable, NodesTable } from '../database/tables.ts';
import { toAttempt, toIntent } from './load.ts';
import { rolloutJob } from '../rollouts/queues.ts';
import { reconcileJob } from './queues.ts';

interface Loaded {
  attempt: AttemptState | null;
  intent: IntentState | null;
  nodeReport: ReportMark | null;
}

/** The refusal of an answer for another node's attempt (the route answers it as `attempt_not_found`). */
export const FOREIGN_ATTEMPT = 'foreign_attempt';

/** POST /agent/attempts/{id}/result: the agent's answer, from the attempt's own node only. */
export function recordResult(
  attemptId: string,
  nodeId: string,
  result: AttemptResult,
  policy: RetryPolicy,
  jitter: number,
): Command<Loaded, { retryAt: Date | null; leaseExpired: boolean }> {
  return {
    name: 'RecordResult',
    // The caller's node: the attempt's, unless the attempt is another node's, which is refused.
    locksNode: nodeId,
    async load(trx) {
      // One round trip, BEGIN included. The attempt's node's report mark held still (nodes before intents, the
      // order reports lock in): an attempt whose lease ran out waits for a report newer than the last one
      // accepted by now. Then its intent and the attempt, locked.
      const [[mark], [intent], [attempt]] = await together<
        [Pick<Selectable<NodesTable>, 'report_boot_id' | 'last_report_seq'>, Selectable<IntentsTable>, Selectable<AttemptsTable>]
      >(trx, [
        trx
          .selectFrom('attempts as a')
          .innerJoin('nodes as n', 'n.node_id', 'a.node_id')
          .select(['n.report_boot_id', 'n.last_report_seq'])
          .where('a.attempt_id', '=', attemptId)
          .forShare(['n']),
        trx
          .selectFrom('intents')
          .selectAll()
          .where('intent_id', '=', (eb) => eb.selectFrom('attempts').select('intent_id').where('attempt_id', '=', attemptId))
          .forUpdate(),
        trx.selectFrom('attempts').selectAll().where('attempt_id', '=', attemptId).forUpdate(),
      ]);
      if (!mark || !intent || !attempt) return { attempt: null, intent: null, nodeReport: null };
      const nodeReport = mark.report_boot_id !== null ? { bootId: mark.report_boot_id, seq: mark.last_report_seq ?? 0 } : null;
      return { attempt: toAttempt(attempt), intent: toIntent(intent), nodeReport };
    },
    decide({ attempt, intent, nodeReport }, now) {
      if (!attempt || !intent) return { ok: false, error: { code: 'attempt_not_found', message: `no attempt ${attemptId} for node ${nodeId}` } };
      // Told apart here so the route can audit it; the caller is answered as for an unknown attempt.
      if (attempt.nodeId !== nodeId) return { ok: false, error: { code: FOREIGN_ATTEMPT, message: `no attempt ${attemptId} for node ${nodeId}` } };
      const decided = decideResult(attempt, intent, nodeReport, result, now, policy, jitter);
      if (!decided.ok) return decided;
      const { events, retryAt } = decided.value;
      const leaseExpired = events.some((e) => e.type === 'AttemptAmbiguous');
      // A failure may settle its rollout's target, and a restore's answer its recovery (the job re-reads and
      // decides); so may a configuration attempt gone ambiguous. A configuration apply's success settles
      // nothing: the report that proves it runs the job.
      const settles = leaseExpired || events.some((e) => e.type === 'AttemptFailed') || attempt.operation === 'restore';
      const jobs = [...(retryAt ? [reconcileJob(nodeId, retryAt)] : []), ...(intent.rolloutId !== null && settles ? [rolloutJob(intent.rolloutId)] : [])];
      return ok({ events, jobs, result: { retryAt, leaseExpired } });
    },
  };
}
