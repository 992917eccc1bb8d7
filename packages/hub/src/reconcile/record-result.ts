import { decideResult, ok, type AttemptResult, type AttemptState, type IntentState, type ReportMark, type RetryPolicy } from '@fleetplane/core';
import type { Command } from '../commands/pipeline.ts';
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
    async load(trx) {
      // The attempt's intent, and its node's report mark held still (nodes before intents, the order reports
      // lock in): an attempt whose lease ran out waits for a report newer than the last one accepted by now.
      const row = await trx
        .selectFrom('attempts as a')
        .innerJoin('nodes as n', 'n.node_id', 'a.node_id')
        .select(['a.intent_id', 'n.report_boot_id', 'n.last_report_seq'])
        .where('a.attempt_id', '=', attemptId)
        .forShare(['n'])
        .executeTakeFirst();
      if (!row) return { attempt: null, intent: null, nodeReport: null };
      const intent = await trx.selectFrom('intents').selectAll().where('intent_id', '=', row.intent_id).forUpdate().executeTakeFirstOrThrow();
      const attempt = await trx.selectFrom('attempts').selectAll().where('attempt_id', '=', attemptId).forUpdate().executeTakeFirstOrThrow();
      const nodeReport = row.report_boot_id !== null ? { bootId: row.report_boot_id, seq: row.last_report_seq ?? 0 } : null;
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
