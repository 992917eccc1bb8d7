import type { PgBoss } from 'pg-boss';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Tables } from '../database/tables.ts';
import type { Projection } from '../projections/projection.ts';
import type { RerunReason } from './retry.ts';

/**
 * The command pipeline, by concern (a desired write's path through it is drawn in docs/architecture.md):
 * - commands/command.ts: what a command is (load, decide) and what its decision asks for;
 * - commands/group-commit.ts: queues and lanes; commands arriving together share a transaction;
 * - commands/retry.ts: one command alone, run again when PostgreSQL or the event store asks;
 * - commands/transaction.ts: the transaction that locks, loads and decides a batch;
 * - commands/writes.ts, commands/job-inserts.ts: what the decisions write, most of it with the commit.
 */
export interface PipelineDeps {
  db: Kysely<Tables>;
  boss: PgBoss | null;
  clock: Clock;
  projections: readonly Projection[];
  /** Called after each commit that appended events (wakes log followers). */
  onAppended?: () => void;
  /**
   * Called when a command runs again: its own transaction failed for `reason` (shared false), or the shared
   * transaction it was part of failed and it runs again alone (shared true; `error` when the cause is one
   * a command alone would not re-run for, such as another command's fault at commit).
   */
  onRerun?: (command: string, reason: RerunReason | 'error', shared: boolean) => void;
}

export type { Actor, BulkLoad, Command, Committed, Decision, IdempotencyClaim, JobRequest } from './command.ts';
export { loadState } from './command.ts';
export { createPipeline, type GroupCommitOptions, type Pipeline } from './group-commit.ts';
export { runCommand, type RerunReason } from './retry.ts';
