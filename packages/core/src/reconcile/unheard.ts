/**
 * A node whose last report was recorded before the Hub's database went back in time (a restore, a point-in-time
 * recovery, a failover that lost commits: log/identity.ts) may hold what the lost writes did, which the log no
 * longer shows. Nothing is sent to it, of any kind, until it reports: its report says what it holds, and from
 * then on the rules that read reports apply (a node ahead of the log, ahead.ts; a stream past its generation).
 * The time the database was found restored while the node has not reported since, else null.
 */
export function unheardSince(restoredAt: Date | null, lastReportAt: Date | null): Date | null {
  return restoredAt !== null && (lastReportAt === null || lastReportAt.getTime() < restoredAt.getTime()) ? restoredAt : null;
}

/** Why nothing is sent to such a node: what an intent on it, or a rollout target there, waits on. */
export const unheardMessage = (nodeId: string, restoredAt: Date): string =>
  `the Hub's database was restored at ${restoredAt.toISOString()} (its identity changed: a restore, a point-in-time recovery or a failover) ` +
  `and node ${nodeId} has not reported since: nothing is sent to it until it reports what it holds`;
