import type { Kysely } from 'kysely';
import { verifyArchive, type ArchiveProblem, type ArchiveReport, type VerifyArchiveOptions } from './archive/verify-archive.ts';
import { checkStoredCheckpoint, type CheckpointCheck } from './checkpoints/recorded.ts';
import type { Tables } from './database/tables.ts';
import { verifyChain, type ChainProblem } from './event-store/verify-chain.ts';
import type { Projection } from './projections/projection.ts';
import { verifyProjections, type ProjectionDifference } from './projections/verify.ts';

/** What `fleetplane verify` found: nothing wrong when every list is empty and the checkpoint has no problem. */
export interface HistoryReport {
  chain: ChainProblem[];
  checkpoint: CheckpointCheck;
  projections: ProjectionDifference[];
  /** Present when the archive was verified too (`--archive`). */
  archive?: ArchiveReport;
}

/**
 * Proves the history as `fleetplane verify` does (SPEC J2, J3): every stream's hash chain in the hot log from
 * where the archived history ends, the stored checkpoint against the log's record of it, and a rebuild of every
 * projection from that checkpoint diffed with the live tables; with `archive`, every archived file too
 * (verifyArchive), reading it where `archive.open` says.
 */
export async function verifyHistory(
  db: Kysely<Tables>,
  projections: readonly Projection[],
  options: { archive?: VerifyArchiveOptions } = {},
): Promise<HistoryReport> {
  const chain = await verifyChain(db);
  const checkpoint = await checkStoredCheckpoint(db);
  const differences = await verifyProjections(db, projections);
  const archive = options.archive ? await verifyArchive(db, options.archive) : null;
  return { chain, checkpoint, projections: differences, ...(archive ? { archive } : {}) };
}

/** Everything the report finds wrong, in one list: empty when the history (and the archive, if verified) holds. */
export function historyProblems(report: HistoryReport): Array<ChainProblem | CheckpointCheck | ProjectionDifference | ArchiveProblem> {
  return [...report.chain, ...(report.checkpoint.problem === null ? [] : [report.checkpoint]), ...report.projections, ...(report.archive?.problems ?? [])];
}
