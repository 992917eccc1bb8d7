/**
 * How far a rollout's targets (or a batch's) got, as the CLI and the console say it: `2/3 converged`, with
 * `, 1 cancelled` when targets left it unfinished (the rollout was cancelled or rolled back, or their node
 * retired). A rollout that converged on every target left shows why some are not converged.
 */
export function targetProgress(targets: readonly { state: string }[]): string {
  const converged = targets.filter((t) => t.state === 'converged').length;
  const cancelled = targets.filter((t) => t.state === 'cancelled').length;
  return `${converged}/${targets.length} converged${cancelled > 0 ? `, ${cancelled} cancelled` : ''}`;
}
