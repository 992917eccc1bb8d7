/**
 * Exponential backoff with equal jitter, capped: attempt n (1-based) waits a random time in
 * [base·2^(n-1) / 2, base·2^(n-1)], never more than `max`. `unit` is a random number in [0, 1) supplied by
 * the caller, so the decision stays pure and a test can pin it.
 */
export function retryDelayMs(retryCount: number, baseMs: number, maxMs: number, unit: number): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, retryCount - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * Math.min(Math.max(unit, 0), 1));
}
