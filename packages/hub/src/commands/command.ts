import type { EventSource, FleetEvent, RecordedFleetEvent, Result, Role } from '@fleetplane/core';
import type { Compilable, Kysely } from 'kysely';
import type { JobInsert } from 'pg-boss';
import type { Tables } from '../database/tables.ts';
import type { ExpectedVersion } from '../event-store/append.ts';

/** Who runs a command, and in answer to what. Written into every event the command appends. */
export interface Actor {
  principal: string;
  role: Role;
  source: EventSource;
  correlationId: string;
  causationId?: string | null;
}

export interface JobRequest {
  queue: string;
  data: object;
  options?: Pick<JobInsert, 'startAfter' | 'singletonKey' | 'heartbeatSeconds'>;
  /** The pass must see this command even if one already queued for its key takes its place (jobs/pass-barrier.ts). */
  barrier?: boolean;
}

/** What a decision asks for: events to append (in order), the versions their streams must be at, jobs. */
export interface Decision<R> {
  events: FleetEvent[];
  /** Per stream; streams not named append at any version (the command's row locks serialize them). */
  expectedVersions?: Record<string, ExpectedVersion>;
  jobs?: JobRequest[];
  /** Claims an Idempotency-Key in the same transaction: a concurrent request with the key re-runs and finds it. */
  idempotencyKey?: IdempotencyClaim;
  /**
   * Rows the command keeps besides the projections, written in its transaction after its events are appended
   * and projected (the archive's chain heads and checkpoint, which no event holds whole).
   */
  writes?: (trx: Kysely<Tables>) => Promise<void>;
  result: R;
}

export interface IdempotencyClaim {
  principal: string;
  route: string;
  key: string;
  bodySha256: string;
}

/**
 * One command: `load` locks the rows it will change (SELECT … FOR UPDATE) and reads what the decision
 * needs; `decide` is pure (usually a function of packages/core). Both get the command's time as an argument.
 * A command whose decision needs no state (an audit record) has no `load` and decides on `undefined`.
 */
export interface Command<S, R> {
  name: string;
  load?(trx: Kysely<Tables>, now: Date): Promise<S>;
  decide(state: S, now: Date): Result<Decision<R>>;
  /** Declared by commands that a batch loads together (reports): see BulkLoad. */
  bulk?: BulkLoad<S>;
  /** The node whose row `load` locks, if it locks one: a shared transaction locks them all first (commands/transaction.ts). */
  locksNode?: string;
  /**
   * A read the caller answers with, of rows the command changes: sent in the commit's round trip, after every
   * write of the command, so that the answer costs no round trip of its own. Its rows are `Committed.readBack`.
   */
  readBack?(trx: Kysely<Tables>): Compilable<unknown>;
}

/**
 * Commands of one kind that a shared transaction loads together: one `loadMany` locks and reads the rows of
 * all of them, one query per table, instead of one `load` each. Commands of a kind with different scopes lock,
 * read and change disjoint rows, so deciding them all on one load equals running them one after another.
 * `loadMany` returns a state for every key whose command it can decide on that load, and depends on nothing
 * but its arguments (any command of the kind may be the one whose loadMany runs). A key it leaves out is one
 * whose rows another key's decision may change (reconcile passes sharing a split placement): that command
 * runs after the others, on a `load` of its own that sees their writes (commands/transaction.ts).
 */
export interface BulkLoad<S> {
  kind: string;
  /** What `loadMany` loads the command's state by. */
  key: string;
  /**
   * The rows the command changes, by name: commands of a kind load together only while their scopes differ.
   * The key when absent (a report's node is both).
   */
  scope?: string;
  loadMany(trx: Kysely<Tables>, keys: readonly string[], now: Date): Promise<Map<string, S>>;
}

/** A command that committed: its result, and the events it appended. */
export interface Committed<R> {
  result: R;
  events: RecordedFleetEvent[];
  /** The rows of the command's `readBack`, as its writes left them; absent for a command without one. */
  readBack?: unknown[];
}

/** The state a command decides on: what its load reads, or nothing for a command without one. */
export function loadState<S>(command: Command<S, unknown>, trx: Kysely<Tables>, now: Date): Promise<S> {
  return command.load ? command.load(trx, now) : Promise.resolve(undefined as S);
}
