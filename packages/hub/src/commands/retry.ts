import type { Result } from '@fleetplane/core';
import { stalePlan } from '../database/connection.ts';
import { STREAM_VERSION_TAKEN } from '../event-store/append.ts';
import type { Actor, Command, Committed } from './command.ts';
import type { PipelineDeps } from './pipeline.ts';
import { runInTransaction, type Item } from './transaction.ts';
import { ConcurrencyError } from './writes.ts';

/** Why PostgreSQL or the event store asked for a command to run again. */
export type RerunReason = 'deadlock' | 'serialization_failure' | 'stream_moved' | 'idempotency_key_claimed' | 'statement_changed';

const MAX_ATTEMPTS = 8;
// PostgreSQL asks for the transaction to be run again.
const RERUN_SQLSTATES: Record<string, RerunReason> = { '40001': 'serialization_failure', '40P01': 'deadlock' };

/**
 * Runs one command in a transaction of its own: lock and load, decide, append, project, enqueue, commit.
 * A job exists if and only if the transaction committed. Serialization failures, deadlocks and a stream
 * moved by a concurrent writer re-run the whole command on fresh state, after a short random pause.
 */
export async function runCommand<S, R>(deps: PipelineDeps, actor: Actor, command: Command<S, R>): Promise<Result<Committed<R>>> {
  const item = { actor, command } as unknown as Item;
  for (let attempt = 1; ; attempt++) {
    try {
      const [outcome] = await runInTransaction(deps, [item]);
      if (outcome!.ok && outcome!.value.events.length > 0) deps.onAppended?.();
      return outcome as Result<Committed<R>>;
    } catch (e) {
      const reason = rerunReason(e);
      if (attempt >= MAX_ATTEMPTS || !reason) throw e;
      deps.onRerun?.(command.name, reason, false);
      await new Promise((r) => setTimeout(r, Math.random() * 5 * attempt));
    }
  }
}

/** Why a failed transaction may succeed if run again, or null if it would fail the same way. */
export function rerunReason(e: unknown): RerunReason | null {
  if (e instanceof ConcurrencyError) return e.error.type === 'wrong_expected_version' ? 'stream_moved' : null;
  const { code, constraint } = e as { code?: string; constraint?: string };
  // A concurrent request claimed the same Idempotency-Key: re-run, and find its claim.
  if (constraint === 'idempotency_keys_pkey') return 'idempotency_key_claimed';
  // A concurrent writer took a version an append sent with the commit wanted (appendWithCommit).
  if (constraint === STREAM_VERSION_TAKEN) return 'stream_moved';
  // A statement prepared before a migration changed its table: its connection is closed, and a new one prepares it anew.
  if (stalePlan(e)) return 'statement_changed';
  return RERUN_SQLSTATES[code ?? ''] ?? null;
}
