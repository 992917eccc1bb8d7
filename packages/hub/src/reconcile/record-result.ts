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
      const row = await trx.selectFrom('attempts').select(['intent_id', 'node_id']).where('attempt_id', '=', attemptId).executeTakeFirst();
      if (!row) return { attempt: null, intent: null, nodeReport: null };
      // The node's report mark, held still (nodes before intents, the order reports lock in): an attempt whose
      // lease ran out waits for a report newer than the last one accepted when the result came.
      const node = await trx
        .selectFrom('nodes')
        .select(['report_boot_id', 'last_report_seq'])
        .where('node_id', '=', row.node_id)
        .forShare()
        .executeTakeFirst();
      const intent = await trx.selectFrom('intents').selectAll().where('intent_id', '=', row.intent_id).forUpdate().executeTakeFirstOrThrow();
      const attempt = await trx.selectFrom('attempts').selectAll().where('attempt_id', '=', attemptId).forUpdate().executeTakeFirstOrThrow();
      const nodeReport = node && node.report_boot_id !== null ? { bootId: node.report_boot_id, seq: node.last_report_seq ?? 0 } : null;
      return { attempt: toAttempt(attempt), intent: toIntent(intent), nodeReport };
    },
    decide({ attempt, intent, nodeReport }, now) {
      // Another node's attempt is answered like an unknown one: nothing about it leaks.
      if (!attempt || !intent || attempt.nodeId !== nodeId) {
        return { ok: false, error: { code: 'attempt_not_found', message: `no attempt ${attemptId} for node ${nodeId}` } };
      }
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
