/**
 * The ref of the recovery point a configuration attempt captures on its node: one per attempt, so a
 * repeated delivery captures once, and the Hub can name the point a rollout's apply left without asking.
 */
export function recoveryRef(attemptId: string): string {
  return `rp_${attemptId}`;
}

export interface RecoveryPoint {
  ref: string;
  /** The version that was applied when the point was captured: the version a restore brings back. */
  config_version: string;
}
