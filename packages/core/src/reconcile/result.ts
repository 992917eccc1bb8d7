import { z } from 'zod';
import type { FleetEvent } from '../events/fleet-event.ts';
import { fail, ok, type Result } from '../result.ts';
import { classifyRestoreFailure } from '../recovery/classify.ts';
import type { AttemptState } from './attempt.ts';
import { retryDelayMs } from './backoff.ts';
import { intentStream, type AttemptFailedData, type AttemptSucceededData, type FailureClass } from './events.ts';
import type { IntentState, IntentStateName, ReportMark } from './intent.ts';
import { decideLeaseExpiry } from './lease.ts';
import { MAX_AGENT_TEXT } from './observed.ts';

export const AttemptResult = z
  .object({
    outcome: z.enum(['succeeded', 'failed']),
    generation: z.number().int().min(0),
    failure_class: z.enum(['temporary', 'permanent', 'stale_generation']).nullable().default(null),
    code: z.string().max(200).nullable().default(null),
    message: z.string().max(MAX_AGENT_TEXT).nullable().default(null),
    mutation: z.enum(['pre_mutation', 'post_mutation']).nullable().default(null),
  })
  .strict()
  .refine((r) => r.outcome === 'succeeded' || r.failure_class !== null, { message: 'a failed result needs a failure_class' });
export type AttemptResult = z.infer<typeof AttemptResult>;

export interface RetryPolicy {
  baseMs: number;
  maxMs: number;
}

/**
 * An agent's answer for one attempt. Success is transport state, not convergence (SPEC A12): the intent
 * converges only when a report proves it. A temporary failure schedules a retry with backoff and keeps the
 * desired state (C1); a permanent one blocks the intent until a new generation (C2); a stale generation
 * supersedes it (C3). A restore is the exception: it is retried only when it did not run. A result for an
 * attempt that already ended (a repeat, or after its lease expired) is recorded but moves nothing.
 * `nodeReport` is the node's last accepted report: the mark an attempt whose lease ran out before its
 * result came waits beyond, as if the sweeper had reached it first (C4, C5).
 */
export function decideResult(
  attempt: AttemptState,
  intent: IntentState,
  nodeReport: ReportMark | null,
  result: AttemptResult,
  now: Date,
  policy: RetryPolicy,
  jitter: number,
): Result<{ events: FleetEvent[]; retryAt: Date | null }> {
  result = unconfirmedRestore(attempt, result);
  if (result.generation !== attempt.generation && result.failure_class !== 'stale_generation') {
    return fail('generation_mismatch', `attempt ${attempt.attemptId} is for generation ${attempt.generation}, not ${result.generation}`);
  }
  if (attempt.state === 'succeeded' || attempt.state === 'failed') return ok({ events: [], retryAt: null });
  // A lease runs out at its time, not when a sweep notices: a result after it is a late one.
  const expired = decideLeaseExpiry([{ ...attempt, intentState: intent.state, nodeReport }], now);
  if (expired.length > 0) {
    const late = decideResult({ ...attempt, state: 'ambiguous' }, intent, nodeReport, result, now, policy, jitter);
    return late.ok ? ok({ events: [...expired, ...late.value.events], retryAt: null }) : late;
  }
  const current = attempt.state === 'dispatched' && intent.state === 'converging';
  const streamId = intentStream(attempt.intentId);
  if (result.outcome === 'succeeded') {
    const data: AttemptSucceededData = { attempt_id: attempt.attemptId, intent_id: attempt.intentId, current };
    return ok({ events: [{ streamId, type: 'AttemptSucceeded', data }], retryAt: null });
  }
  const failureClass = result.failure_class as FailureClass;
  let intentState: IntentStateName = intent.state;
  let retryCount = intent.retryCount;
  let retryAt: Date | null = null;
  if (current) {
    // A restore is retried only when it did not run (its node was busy, or never reached): any other
    // failure is the restore's terminal (SPEC I3, I8), and only an operator's next rollback opens another.
    const retries = attempt.operation === 'restore' ? classifyRestoreFailure(result) === 'not_run' : failureClass === 'temporary';
    if (retries) {
      intentState = 'retrying';
      retryCount += 1;
      retryAt = new Date(now.getTime() + retryDelayMs(retryCount, policy.baseMs, policy.maxMs, jitter));
    } else {
      intentState = failureClass === 'stale_generation' ? 'superseded' : 'blocked';
    }
  }
  const data: AttemptFailedData = {
    attempt_id: attempt.attemptId,
    intent_id: attempt.intentId,
    failure_class: failureClass,
    code: result.code,
    message: result.message,
    mutation: result.mutation,
    intent_state: intentState,
    retry_count: retryCount,
    next_retry_at: retryAt?.toISOString() ?? null,
    current,
  };
  return ok({ events: [{ streamId, type: 'AttemptFailed', data }], retryAt });
}

/**
 * SPEC I3: a restore answered with success for another generation restored something, but not provably
 * what was asked: it is recorded as a failure that may have moved the target (`unconfirmed`).
 */
function unconfirmedRestore(attempt: AttemptState, result: AttemptResult): AttemptResult {
  if (attempt.operation !== 'restore' || result.outcome !== 'succeeded' || result.generation === attempt.generation) return result;
  return {
    outcome: 'failed',
    generation: attempt.generation,
    failure_class: 'permanent',
    code: 'unconfirmed',
    message: `the node answered success for generation ${result.generation}, not ${attempt.generation}`,
    mutation: 'post_mutation',
  };
}
