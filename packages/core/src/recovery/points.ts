/**
 * The ref of the recovery point a configuration attempt captures on its node: one per attempt, so a
 * repeated delivery captures once, and the Hub can name the point a rollout's apply left without asking.
 */
export function recoveryRef(attemptId: string): string {
  return `${RECOVERY_REF_PREFIX}${attemptId}`;
}

/** What a recovery ref puts before its attempt's id: what a query matching refs to attempts joins on. */
export const RECOVERY_REF_PREFIX = 'rp_';

export interface RecoveryPoint {
  ref: string;
  /** The version that was applied when the point was captured: the version a restore brings back. */
  config_version: string;
}
