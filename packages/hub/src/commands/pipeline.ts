import { randomUUID } from 'node:crypto';
import { currentSchemaVersion, type EventMetadata, type EventSource, type NewEvent, type RecordedEvent, type Result, type Role } from '@fleetplane/core';
import type { Kysely } from 'kysely';
import { fromKysely, type PgBoss, type SendOptions } from 'pg-boss';
import type { Clock } from '../clock.ts';
import type { Tables } from '../database/tables.ts';
import { appendToStream, type AppendError, type ExpectedVersion } from '../event-store/append.ts';
import { applyProjections, type Projection } from '../projections/projection.ts';

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
  options?: Omit<SendOptions, 'db'>;
}

/** What a decision asks for: events to append (in order), the versions their streams must be at, jobs. */
export interface Decision<R> {
  events: NewEvent[];
  /** Per stream; streams not named append at any version (the command's row locks serialize them). */
  expectedVersions?: Record<string, ExpectedVersion>;
  jobs?: JobRequest[];
  /** Claims an Idempotency-Key in the same transaction: a concurrent request with the key re-runs and finds it. */
  idempotencyKey?: IdempotencyClaim;
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
 */
export interface Command<S, R> {
  name: string;
  load(trx: Kysely<Tables>, now: Date): Promise<S>;
  decide(state: S, now: Date): Result<Decision<R>>;
}

export interface PipelineDeps {
  db: Kysely<Tables>;
  boss: PgBoss | null;
  clock: Clock;
  projections: readonly Projection[];
  /** Called after each commit that appended events (wakes log followers). */
  onAppended?: () => void;
}

export interface Committed<R> {
  result: R;
  events: RecordedEvent[];
}

export class ConcurrencyError extends Error {
  readonly error: AppendError;
  constructor(error: AppendError) {
    super(`concurrent change to stream ${error.streamId}: ${error.type}`);
    this.error = error;
  }
}

const MAX_ATTEMPTS = 8;
// serialization_failure, deadlock_detected: PostgreSQL asks for the transaction to be run again.
const RETRYABLE_SQLSTATES = new Set(['40001', '40P01']);

/**
 * Runs one command in a transaction of its own: lock and load, decide, append, project, enqueue, commit.
 * A job exists if and only if the transaction committed. Serialization failures, deadlocks and a stream
 * moved by a concurrent writer re-run the whole command on fresh state.
 */
export async function runCommand<S, R>(
  deps: PipelineDeps,
  actor: Actor,
  command: Command<S, R>,
): Promise<Result<Committed<R>>> {
  for (let attempt = 1; ; attempt++) {
    try {
      const outcome = await deps.db.transaction().execute((trx) => runOnce(deps, trx, actor, command));
      if (outcome.ok && outcome.value.events.length > 0) deps.onAppended?.();
      return outcome;
    } catch (e) {
      if (attempt >= MAX_ATTEMPTS || !retryable(e)) throw e;
      await new Promise((r) => setTimeout(r, Math.random() * 5 * attempt));
    }
  }
}

export interface Pipeline {
  run<S, R>(actor: Actor, command: Command<S, R>): Promise<Result<Committed<R>>>;
}

export interface GroupCommitOptions {
  /**
   * Transactions in flight at once, each on a connection of its own. Measured on a 2-core machine, 2 lanes
   * beat 1 (PostgreSQL uses both cores) and 4 (batches get too small to share their commit).
   */
  lanes?: number;
  /** Commands sharing one transaction at most. */
  maxBatch?: number;
}

interface Queued {
  actor: Actor;
  command: Command<unknown, unknown>;
  resolve(outcome: Result<Committed<unknown>>): void;
  reject(error: unknown): void;
}

/**
 * The command pipeline with group commit. Commands that arrive while every lane is busy share the next
 * transaction: each still locks, decides, appends, projects and enqueues, in arrival order, seeing the
 * effects of the ones before it, and one commit makes them all durable. A command that arrives at an idle
 * lane runs at once, alone. If a shared transaction fails, every command in it runs again alone, so one
 * command's failure is never another's.
 */
export function createPipeline(deps: PipelineDeps, options: GroupCommitOptions = {}): Pipeline {
  const lanes = options.lanes ?? 2;
  const maxBatch = options.maxBatch ?? 64;
  const queue: Queued[] = [];
  let busy = 0;

  const runAlone = (item: Queued) => runCommand(deps, item.actor, item.command).then(item.resolve, item.reject);

  async function runBatch(batch: Queued[]): Promise<void> {
    if (batch.length === 1) return runAlone(batch[0]!);
    let outcomes: Result<Committed<unknown>>[];
    try {
      outcomes = await deps.db.transaction().execute(async (trx) => {
        const done: Result<Committed<unknown>>[] = [];
        for (const item of batch) done.push(await runOnce(deps, trx, item.actor, item.command));
        return done;
      });
    } catch {
      await Promise.all(batch.map(runAlone));
      return;
    }
    if (outcomes.some((o) => o.ok && o.value.events.length > 0)) deps.onAppended?.();
    batch.forEach((item, i) => item.resolve(outcomes[i]!));
  }

  async function lane(): Promise<void> {
    busy++;
    try {
      while (queue.length > 0) await runBatch(queue.splice(0, maxBatch));
    } finally {
      busy--;
    }
  }

  return {
    run<S, R>(actor: Actor, command: Command<S, R>) {
      return new Promise<Result<Committed<R>>>((resolve, reject) => {
        queue.push({ actor, command, resolve, reject } as unknown as Queued);
        if (busy < lanes) void lane();
      });
    },
  };
}

async function runOnce<S, R>(
  deps: PipelineDeps,
  trx: Kysely<Tables>,
  actor: Actor,
  command: Command<S, R>,
): Promise<Result<Committed<R>>> {
  const now = deps.clock.now();
  const state = await command.load(trx, now);
  const decided = command.decide(state, now);
  if (!decided.ok) return decided;
  const decision = decided.value;
  const metadata: EventMetadata = {
    actor: actor.principal,
    role: actor.role,
    correlation_id: actor.correlationId,
    causation_id: actor.causationId ?? null,
    source: actor.source,
  };

  const recorded: RecordedEvent[] = [];
  for (const [streamId, events] of byStream(decision.events)) {
    const toAppend = events.map((e) => ({
      eventId: e.eventId ?? randomUUID(),
      type: e.type,
      schemaVersion: e.schemaVersion ?? currentSchemaVersion(e.type),
      data: e.data as Record<string, unknown>,
      metadata,
      recordedAt: now,
    }));
    const appended = await appendToStream(trx, streamId, decision.expectedVersions?.[streamId] ?? 'any', toAppend);
    if (!appended.ok) throw new ConcurrencyError(appended.error);
    // A duplicate append (known event ids) was projected when it was first stored.
    if (appended.duplicate) continue;
    appended.events.forEach((a, i) => {
      const e = toAppend[i]!;
      recorded.push({ ...a, streamId, type: e.type, schemaVersion: e.schemaVersion, data: e.data, metadata, recordedAt: now });
    });
  }
  for (const event of recorded.sort((a, b) => a.position - b.position)) {
    await applyProjections(deps.projections, trx, event);
  }
  if (decision.idempotencyKey) {
    const c = decision.idempotencyKey;
    // status 0 until the route stores the answer it sent, right after this commit.
    await trx
      .insertInto('idempotency_keys')
      .values({ principal: c.principal, route: c.route, key: c.key, body_sha256: c.bodySha256, status: 0, response: 'null', headers: '{}', created_at: now })
      .execute();
  }
  if (decision.jobs?.length) {
    if (!deps.boss) throw new Error(`${command.name} enqueues jobs but this Hub has no job queue`);
    const db = fromKysely(trx);
    // Every job carries the correlation id of the command that asked for it, so the worker's events do too.
    for (const job of decision.jobs) {
      await deps.boss.send(job.queue, { ...job.data, correlation_id: actor.correlationId }, { ...job.options, db });
    }
  }
  return { ok: true, value: { result: decision.result, events: recorded } };
}

function byStream(events: NewEvent[]): Map<string, NewEvent[]> {
  const groups = new Map<string, NewEvent[]>();
  for (const e of events) groups.set(e.streamId, [...(groups.get(e.streamId) ?? []), e]);
  return groups;
}

function retryable(e: unknown): boolean {
  if (e instanceof ConcurrencyError) return e.error.type === 'wrong_expected_version';
  const { code, constraint } = e as { code?: string; constraint?: string };
  // A concurrent request claimed the same Idempotency-Key: re-run, and find its claim.
  return RETRYABLE_SQLSTATES.has(code ?? '') || constraint === 'idempotency_keys_pkey';
}
