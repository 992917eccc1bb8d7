import type { TargetStateName } from './events.ts';

/** How many of a rollout's targets (or a batch's) are in each state: what a list of rollouts carries instead of the targets. */
export type TargetCounts = Record<TargetStateName, number>;

export function countTargets(targets: readonly { state: TargetStateName }[]): TargetCounts {
  const counts: TargetCounts = { waiting: 0, applying: 0, converged: 0, failed: 0, cancelled: 0 };
  for (const t of targets) counts[t.state]++;
  return counts;
}

export const totalTargets = (c: TargetCounts): number => c.waiting + c.applying + c.converged + c.failed + c.cancelled;

/**
 * How far a rollout's targets (or a batch's) got, as the CLI and the console say it: `2/3 converged`, with
 * `, 1 cancelled` when targets left it unfinished (the rollout was cancelled or rolled back, or their node
 * retired). A rollout that converged on every target left shows why some are not converged.
 */
export function targetProgress(c: TargetCounts): string {
  return `${c.converged}/${totalTargets(c)} converged${c.cancelled > 0 ? `, ${c.cancelled} cancelled` : ''}`;
}
