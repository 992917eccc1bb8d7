import { decideResult, ok, type AttemptResult, type AttemptState, type IntentState, type RetryPolicy } from '@fleetplane/core';
import type { Command } from '../commands/pipeline.ts';
import { toAttempt, toIntent } from './load.ts';
import { rolloutJob } from '../rollouts/queues.ts';
import { reconcileJob } from './queues.ts';

interface Loaded {
  attempt: AttemptState | null;
  intent: IntentState | null;
}

/** POST /agent/attempts/{id}/result: the agent's answer, from the attempt's own node only. */
export function recordResult(
  attemptId: string,
  nodeId: string,
  result: AttemptResult,
  policy: RetryPolicy,
  jitter: number,
): Command<Loaded, { retryAt: Date | null }> {
  return {
    name: 'RecordResult',
    async load(trx) {
      const row = await trx.selectFrom('attempts').selectAll().where('attempt_id', '=', attemptId).executeTakeFirst();
      if (!row) return { attempt: null, intent: null };
      const intent = await trx.selectFrom('intents').selectAll().where('intent_id', '=', row.intent_id).forUpdate().executeTakeFirstOrThrow();
      const attempt = await trx.selectFrom('attempts').selectAll().where('attempt_id', '=', attemptId).forUpdate().executeTakeFirstOrThrow();
      return { attempt: toAttempt(attempt), intent: toIntent(intent) };
    },
    decide({ attempt, intent }, now) {
      // Another node's attempt is answered like an unknown one: nothing about it leaks.
      if (!attempt || !intent || attempt.nodeId !== nodeId) {
        return { ok: false, error: { code: 'attempt_not_found', message: `no attempt ${attemptId} for node ${nodeId}` } };
      }
      const decided = decideResult(attempt, intent, result, now, policy, jitter);
      if (!decided.ok) return decided;
      const { events, retryAt } = decided.value;
      // A failure may settle its rollout's target, and a restore's answer its recovery (the job re-reads and
      // decides). A configuration apply's success settles nothing: the report that proves it runs the job.
      const settles = events.some((e) => e.type === 'AttemptFailed') || attempt.operation === 'restore';
      const jobs = [...(retryAt ? [reconcileJob(nodeId, retryAt)] : []), ...(intent.rolloutId !== null && settles ? [rolloutJob(intent.rolloutId)] : [])];
      return ok({ events, jobs, result: { retryAt } });
    },
  };
}
