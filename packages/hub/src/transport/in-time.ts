import type { Logger } from '../logger.ts';
import type { LeasedAttempt } from '../reconcile/lease-attempts.ts';

/**
 * The leased attempts that may still leave the Hub: those with at least half their lease left at `now`. A Hub
 * held between the lease and the send (its process stopped, its VM paused, a stall) can find the lease run
 * out, the attempt swept ambiguous by another Hub and its intent reopened by the node's next report, with a
 * second attempt already at the node (C4, C5): sent now, the work would run twice, since an agent does not
 * judge a lease by its own clock. Half the lease leaves the node time to execute and answer within it. An
 * attempt held back stays dispatched until its lease runs out and is then ambiguous, as a delivery lost on
 * the way; a `warn` line names it.
 */
export function inTime(attempts: readonly LeasedAttempt[], now: Date, leaseMs: number, logger: Logger, fields: Record<string, unknown>): LeasedAttempt[] {
  return attempts.filter((a) => {
    const leftMs = a.leaseExpiresAt.getTime() - now.getTime();
    if (leftMs >= leaseMs / 2) return true;
    logger.warn('attempt not sent: this Hub was held between its lease and its sending (stopped or stalled) until less than half the lease was left; it becomes ambiguous when the lease runs out, and the node\'s next report settles its intent', {
      ...fields,
      attempt_id: a.attemptId,
      lease_expires_at: a.leaseExpiresAt.toISOString(),
      lease_left_ms: leftMs,
    });
    return false;
  });
}
