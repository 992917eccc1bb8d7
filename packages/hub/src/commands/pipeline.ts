import { currentSchemaVersion, recordedFleetEvent, type EventMetadata, type EventSource, type FleetEvent, type RecordedFleetEvent, type Result, type Role } from '@fleetplane/core';
import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import type { JobInsert, PgBoss } from 'pg-boss';
import type { Clock } from '../clock.ts';
import { together, withCommit } from '../database/transaction-plan.ts';
import type { Tables } from '../database/tables.ts';
import { holdPassBarrier } from '../jobs/pass-barrier.ts';
import {
  appendNewWithCommit,
  appendToStreams,
  newEventsOnly,
  STREAM_VERSION_TAKEN,
  type AppendError,
  type EventToAppend,
  type ExpectedVersion,
  type StreamAppend,
} from '../event-store/append.ts';
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
  /** The node whose row `load` locks, if it locks one: a shared transaction locks them all first (lockNodesOf). */
  locksNode?: string;
}

/**
 * Commands of one kind that a shared transaction loads together: one `loadMany` locks and reads the rows of
 * all of them, one query per table, instead of one `load` each. Commands of a kind with different keys lock,
 * read and change disjoint rows, so deciding them all on one load equals running them one after another.
 * `loadMany` returns a state for every key and depends on nothing but its arguments (any command of the
 * kind may be the one whose loadMany runs).
 */
export interface BulkLoad<S> {
  kind: string;
  key: string;
  loadMany(trx: Kysely<Tables>, keys: readonly string[], now: Date): Promise<Map<string, S>>;
}

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

/** Why PostgreSQL or the event store asked for a command to run again. */
export type RerunReason = 'deadlock' | 'serialization_failure' | 'stream_moved' | 'idempotency_key_claimed';

export interface Committed<R> {
  result: R;
  events: RecordedFleetEvent[];
}

export class ConcurrencyError extends Error {
  readonly error: AppendError;
  constructor(error: AppendError) {
    super(`concurrent change to stream ${error.streamId}: ${error.type}`);
    this.error = error;
  }
}

const MAX_ATTEMPTS = 8;
/** The queue of commands without a load: blind appends, which read nothing before they write. */
const BLIND = 'blind';
// PostgreSQL asks for the transaction to be run again.
const RERUN_SQLSTATES: Record<string, RerunReason> = { '40001': 'serialization_failure', '40P01': 'deadlock' };

interface Item {
  actor: Actor;
  command: Command<unknown, unknown>;
}

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
  const item = { actor, command } as unknown as Item;
  for (let attempt = 1; ; attempt++) {
    try {
      const [outcome] = await execute(deps, [item]);
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

export interface Pipeline {
  run<S, R>(actor: Actor, command: Command<S, R>): Promise<Result<Committed<R>>>;
}

export interface GroupCommitOptions {
  /**
   * Transactions in flight at once per queue, each on a connection of its own. Measured on a 2-core
   * machine, 2 lanes beat 1 (PostgreSQL uses both cores) and 4 (batches get too small to share their commit).
   * Commands without a load always have one lane (see createPipeline).
   */
  lanes?: number;
  /** Commands sharing one transaction at most. */
  maxBatch?: number;
}

interface Queued extends Item {
  resolve(outcome: Result<Committed<unknown>>): void;
  reject(error: unknown): void;
}

/**
 * The command pipeline with group commit. Commands that arrive while every lane is busy share the next
 * transaction: each still locks, decides, appends, projects and enqueues, in arrival order, seeing the
 * effects of the ones before it, and one commit makes them all durable. A command that arrives at an idle
 * lane runs at once, alone. If a shared transaction fails, every command in it runs again alone, so one
 * command's failure is never another's.
 * Bulk commands of each kind queue apart, on lanes of their own: a burst of reports never delays an
 * operator's command, and their batches hold nothing but reports to load together.
 * Commands without a load queue apart too, on a single lane: they wait on no lock, and a batch of them is
 * one append call, so a second lane would only halve the batches (measured at 8 clients on 2 cores: one
 * lane 3,000-4,500 appends/s, two 3,100-3,450, four 3,000).
 */
export function createPipeline(deps: PipelineDeps, options: GroupCommitOptions = {}): Pipeline {
  const lanes = options.lanes ?? 2;
  const maxBatch = options.maxBatch ?? 64;
  const queues = new Map<string, { waiting: Queued[]; busy: number }>();

  const runAlone = (item: Queued) => runCommand(deps, item.actor, item.command).then(item.resolve, item.reject);

  async function runShared(batch: Queued[]): Promise<void> {
    if (batch.length === 1) return runAlone(batch[0]!);
    let outcomes: Result<Committed<unknown>>[];
    try {
      outcomes = await execute(deps, batch);
    } catch (e) {
      const reason = rerunReason(e) ?? 'error';
      for (const item of batch) deps.onRerun?.(item.command.name, reason, true);
      await Promise.all(batch.map(runAlone));
      return;
    }
    if (outcomes.some((o) => o.ok && o.value.events.length > 0)) deps.onAppended?.();
    batch.forEach((item, i) => item.resolve(outcomes[i]!));
  }

  async function lane(queue: { waiting: Queued[]; busy: number }): Promise<void> {
    queue.busy++;
    try {
      while (queue.waiting.length > 0) await runShared(queue.waiting.splice(0, maxBatch));
    } finally {
      queue.busy--;
    }
  }

  return {
    run<S, R>(actor: Actor, command: Command<S, R>) {
      return new Promise<Result<Committed<R>>>((resolve, reject) => {
        const kind = command.bulk?.kind ?? (command.load ? '' : BLIND);
        let queue = queues.get(kind);
        if (!queue) queues.set(kind, (queue = { waiting: [], busy: 0 }));
        queue.waiting.push({ actor, command, resolve, reject } as unknown as Queued);
        if (queue.busy < (kind === BLIND ? 1 : lanes)) void lane(queue);
      });
    },
  };
}

/**
 * Runs a batch in one transaction. A batch whose whole work is one statement runs it without BEGIN and
 * COMMIT: PostgreSQL makes a single statement atomic, and on this work the two round trips would cost more
 * than the statement (see docs/decisions.md, "Event store"). That is a batch of commands without a load
 * whose decisions append at any version and ask for no projection, job or idempotency claim: audit records.
 */
async function execute(deps: PipelineDeps, items: readonly Item[]): Promise<Result<Committed<unknown>>[]> {
  if (items.every((i) => !i.command.load)) {
    const now = deps.clock.now();
    const decided = items.map((i) => i.command.decide(undefined, now));
    if (decided.every((d) => !d.ok || appendsOnly(deps.projections, d.value))) return write(deps, deps.db, items, decided, now);
  }
  const placing: Promise<void>[] = [];
  const outcomes = await deps.db.transaction().execute((trx) => runBatch(deps, trx, items, placing));
  await Promise.all(placing);
  return outcomes;
}

/** A decision whose only statement is its append, which can neither half-succeed nor need a retry. */
function appendsOnly(projections: readonly Projection[], d: Decision<unknown>): boolean {
  return (
    !d.expectedVersions &&
    !d.jobs?.length &&
    !d.idempotencyKey &&
    !d.writes &&
    d.events.every((e) => !projections.some((p) => p.handles.includes(e.type)))
  );
}

/** Runs commands in order inside one transaction, each part of the batch seeing the effects of those before. */
async function runBatch(
  deps: PipelineDeps,
  trx: Kysely<Tables>,
  items: readonly Item[],
  placing: Promise<void>[],
): Promise<Result<Committed<unknown>>[]> {
  if (items.length > 1) await lockNodesOf(trx, items);
  const outcomes: Result<Committed<unknown>>[] = [];
  for (const part of loadedTogether(items)) outcomes.push(...(await runPart(deps, trx, part, placing)));
  return outcomes;
}

/**
 * A shared transaction's node rows, locked before anything else in one statement, in id order, as a batch
 * of reports locks its nodes. One by one, in the order its commands arrived, they deadlocked with another
 * transaction locking some of the same nodes in another order (measured in the reconcile benchmark: 10-12
 * deadlocks in 11 s, each holding both transactions for deadlock_timeout and re-running one's commands
 * alone, among reconcile passes and attempt leases sharing transactions). First, before its commands' other
 * locks: every command locks a node's row before the node's intents and attempts (docs/decisions.md).
 */
async function lockNodesOf(trx: Kysely<Tables>, items: readonly Item[]): Promise<void> {
  const nodes = [...new Set(items.flatMap((i) => i.command.locksNode ?? []))];
  if (nodes.length === 0) return;
  await together(trx, [trx.selectFrom('nodes').select('node_id').where('node_id', 'in', nodes).orderBy('node_id').forUpdate()]);
}

/**
 * Splits a batch into its parts: consecutive bulk commands of one kind with distinct keys, consecutive
 * commands without a load (nothing they decide on can change), else one command.
 */
function loadedTogether(items: readonly Item[]): Item[][] {
  const parts: Item[][] = [];
  let keys = new Set<string>();
  for (const item of items) {
    const { bulk, load } = item.command;
    const last = parts.at(-1)?.[0]?.command;
    const sameBulk = bulk && last?.bulk?.kind === bulk.kind && !keys.has(bulk.key);
    const bothBlind = !load && last && !last.load;
    if (sameBulk || bothBlind) {
      parts.at(-1)!.push(item);
    } else {
      parts.push([item]);
      keys = new Set();
    }
    if (bulk) keys.add(bulk.key);
  }
  return parts;
}

/**
 * One part of a batch: lock and load (one loadMany for a bulk part), decide each command, write. The clock is
 * read again once the state is locked: a load may wait on a lock while another command commits, and a decision
 * (its events' time, a lease, a retry) is never dated before the state it was made on.
 */
async function runPart(
  deps: PipelineDeps,
  trx: Kysely<Tables>,
  items: readonly Item[],
  placing: Promise<void>[],
): Promise<Result<Committed<unknown>>[]> {
  const loadedAt = deps.clock.now();
  const states = await load(trx, items, loadedAt);
  const now = new Date(Math.max(loadedAt.getTime(), deps.clock.now().getTime()));
  return write(deps, trx, items, items.map((item, i) => item.command.decide(states[i], now)), now, placing);
}

/**
 * What the decisions ask for: every decision's events appended with one call, idempotency keys claimed,
 * events projected in position order, jobs enqueued (in a transaction the last two go with its commit).
 * In a transaction (`placing` given), new events only, one per stream (a batch of reports), are appended
 * with the commit too: they are projected in the order appended, which is their positions' order, and get
 * their places when the commit answers, before the transaction's commands are answered.
 */
async function write(
  deps: PipelineDeps,
  trx: Kysely<Tables>,
  items: readonly Item[],
  decided: readonly Result<Decision<unknown>>[],
  now: Date,
  placing?: Promise<void>[],
): Promise<Result<Committed<unknown>>[]> {
  const appends: (StreamAppend & { owner: number })[] = [];
  decided.forEach((d, owner) => {
    if (!d.ok) return;
    const metadata = metadataOf(items[owner]!.actor);
    for (const [streamId, events] of byStream(d.value.events)) {
      const toAppend: EventToAppend[] = events.map((e) => ({
        eventId: e.eventId,
        type: e.type,
        schemaVersion: e.schemaVersion ?? currentSchemaVersion(e.type),
        data: e.data,
        metadata,
        recordedAt: now,
      }));
      appends.push({ owner, streamId, expected: d.value.expectedVersions?.[streamId] ?? 'any', events: toAppend });
    }
  });
  const recorded: RecordedFleetEvent[][] = items.map(() => []);
  let appended: RecordedFleetEvent[];
  if (placing && appends.length > 0 && newEventsOnly(appends)) {
    appended = appends.map(({ owner, streamId, events: [e] }) => {
      const event = recordedFleetEvent({ eventId: '', streamVersion: 0, position: 0, streamId, type: e!.type, schemaVersion: e!.schemaVersion, data: e!.data, metadata: e!.metadata, recordedAt: now });
      recorded[owner]!.push(event);
      return event;
    });
    const { events } = await appendNewWithCommit(trx, appends);
    const placed = events.then((places) => places.forEach((place, k) => Object.assign(appended[k]!, place)));
    // A failed commit is what the caller sees; this promise is then never awaited.
    placed.catch(() => {});
    placing.push(placed);
  } else {
    (await appendToStreams(trx, appends)).forEach((result, k) => {
      if (!result.ok) throw new ConcurrencyError(result.error);
      // A duplicate append (known event ids) was projected when it was first stored.
      if (result.duplicate) return;
      const { owner, streamId, events } = appends[k]!;
      result.events.forEach((a, i) => {
        const e = events[i]!;
        recorded[owner]!.push(recordedFleetEvent({ ...a, streamId, type: e.type, schemaVersion: e.schemaVersion, data: e.data, metadata: e.metadata, recordedAt: now }));
      });
    });
    appended = recorded.flat().sort((a, b) => a.position - b.position);
  }

  const claims = decided.flatMap((d) => (d.ok && d.value.idempotencyKey ? [{ claim: d.value.idempotencyKey, result: d.value.result }] : []));
  if (claims.length > 0) {
    // status 0 until the route stores the answer it sent, right after this commit; the result lets a retry
    // rebuild that answer if it is never stored.
    await trx
      .insertInto('idempotency_keys')
      .values(
        claims.map(({ claim: c, result }) => ({
          principal: c.principal,
          route: c.route,
          key: c.key,
          body_sha256: c.bodySha256,
          status: 0,
          response: 'null',
          headers: '{}',
          result: JSON.stringify(result ?? null),
          created_at: now,
        })),
      )
      .execute();
  }
  // In a transaction, the projections, barriers and job inserts go with the commit (database/transaction-plan.ts).
  await applyProjections(deps.projections, trx, appended);
  // One INSERT per queue for the whole part (a rollout's batch asks for hundreds of jobs). Every job carries
  // the correlation id of the command that asked for it, so the worker's events do too.
  const jobs = new Map<string, JobInsert[]>();
  const barriers = new Map<string, Compilable>();
  for (const [i, d] of decided.entries()) {
    if (!d.ok || !d.value.jobs?.length) continue;
    const { actor, command } = items[i]!;
    if (!deps.boss) throw new Error(`${command.name} enqueues jobs but this Hub has no job queue`);
    for (const job of d.value.jobs) {
      const insert: JobInsert = { ...job.options, data: { ...job.data, correlation_id: actor.correlationId } };
      const queued = jobs.get(job.queue);
      if (queued) queued.push(insert);
      else jobs.set(job.queue, [insert]);
      const key = job.options?.singletonKey;
      if (job.barrier && key) barriers.set(`${job.queue}\u0000${key}`, holdPassBarrier(trx, job.queue, key));
    }
  }
  await withCommit(trx, [...barriers.values()]);
  for (const [queue, inserts] of jobs) await deps.boss!.insert(queue, inserts, { db: insertsWithCommit(trx) });
  for (const d of decided) if (d.ok && d.value.writes) await d.value.writes(trx);
  return decided.map((d, i) => (d.ok ? { ok: true, value: { result: d.value.result, events: recorded[i]! } } : d));
}

/** The state a command decides on: what its load reads, or nothing for a command without one. */
export function loadState<S>(command: Command<S, unknown>, trx: Kysely<Tables>, now: Date): Promise<S> {
  return command.load ? command.load(trx, now) : Promise.resolve(undefined as S);
}

/** The part's states: its one command's load, one loadMany for a bulk part, nothing for commands without a load. */
async function load(trx: Kysely<Tables>, items: readonly Item[], now: Date): Promise<unknown[]> {
  const first = items[0]!.command;
  if (!first.load) return items.map(() => undefined);
  if (items.length === 1 || !first.bulk) return [await first.load(trx, now)];
  const keys = items.map((i) => i.command.bulk!.key);
  const loaded = await first.bulk.loadMany(trx, keys, now);
  return keys.map((k) => loaded.get(k));
}

function metadataOf(actor: Actor): EventMetadata {
  return {
    actor: actor.principal,
    role: actor.role,
    correlation_id: actor.correlationId,
    causation_id: actor.causationId ?? null,
    source: actor.source,
  };
}

function byStream(events: FleetEvent[]): Map<string, FleetEvent[]> {
  const groups = new Map<string, FleetEvent[]>();
  for (const e of events) groups.set(e.streamId, [...(groups.get(e.streamId) ?? []), e]);
  return groups;
}

function rerunReason(e: unknown): RerunReason | null {
  if (e instanceof ConcurrencyError) return e.error.type === 'wrong_expected_version' ? 'stream_moved' : null;
  const { code, constraint } = e as { code?: string; constraint?: string };
  // A concurrent request claimed the same Idempotency-Key: re-run, and find its claim.
  if (constraint === 'idempotency_keys_pkey') return 'idempotency_key_claimed';
  // A concurrent writer took a version an append sent with the commit wanted (appendNewWithCommit).
  if (constraint === STREAM_VERSION_TAKEN) return 'stream_moved';
  return RERUN_SQLSTATES[code ?? ''] ?? null;
}

/** A database adapter for pg-boss whose statements (job inserts, which read nothing back) go with the commit. */
function insertsWithCommit(db: Kysely<Tables>) {
  return {
    async executeSql(text: string, values?: unknown[]) {
      await withCommit(db, [{ compile: () => CompiledQuery.raw(text, values ?? []) }]);
      return { rows: [] };
    },
  };
}
