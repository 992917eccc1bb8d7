import type { Result } from '@fleetplane/core';
import type { Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';
import { withCommit } from '../database/transaction-plan.ts';
import type { Projection } from '../projections/projection.ts';
import type { Actor, Command, Committed, Decision } from './command.ts';
import type { PipelineDeps } from './pipeline.ts';
import { write } from './writes.ts';

/** A command and who runs it, as a transaction takes it. */
export interface Item {
  actor: Actor;
  command: Command<unknown, unknown>;
}

/**
 * Runs commands in one transaction, in order, each seeing the effects of those before: lock, load, decide,
 * then the writes their decisions ask for (commands/writes.ts), most of them planned with the commit.
 * A batch whose whole work is one statement runs it without BEGIN and COMMIT: PostgreSQL makes a single
 * statement atomic, and on this work the two round trips would cost more than the statement
 * (docs/decisions.md, "Event store"). That is a batch of commands without a load whose decisions append at
 * any version and ask for no projection, job or idempotency claim: audit records.
 */
export async function runInTransaction(deps: PipelineDeps, items: readonly Item[]): Promise<Result<Committed<unknown>>[]> {
  if (items.every((i) => !i.command.load)) {
    const now = deps.clock.now();
    const decided = items.map((i) => i.command.decide(undefined, now));
    if (decided.every((d) => !d.ok || appendsOnly(deps.projections, d.value))) return write(deps, deps.db, items, decided, now);
  }
  const placing: Promise<void>[] = [];
  const outcomes = await deps.db.transaction().execute(async (trx) => {
    if (items.length > 1) await lockNodesOf(trx, items);
    const done: Result<Committed<unknown>>[] = [];
    for (const part of loadedTogether(items)) done.push(...(await runPart(deps, trx, part, placing)));
    return done;
  });
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

/**
 * A shared transaction's node rows, locked before anything else in one statement, in id order, as a batch
 * of reports locks its nodes. One by one, in the order its commands arrived, they deadlocked with another
 * transaction locking some of the same nodes in another order (reconcile passes and attempt leases sharing
 * transactions, in the reconcile benchmark). First, before its commands' other locks: every command locks a
 * node's row before the node's intents and attempts (docs/decisions.md).
 */
async function lockNodesOf(trx: Kysely<Tables>, items: readonly Item[]): Promise<void> {
  const nodes = [...new Set(items.flatMap((i) => i.command.locksNode ?? []))];
  if (nodes.length === 0) return;
  // Nothing reads the rows: the statement is planned like a write, and goes ahead of the first load in its round trip.
  await withCommit(trx, [trx.selectFrom('nodes').select('node_id').where('node_id', 'in', nodes).orderBy('node_id').forUpdate()]);
}

/**
 * Splits a batch into its parts: consecutive bulk commands of one kind with distinct scopes, consecutive
 * commands without a load (nothing they decide on can change), else one command.
 */
function loadedTogether(items: readonly Item[]): Item[][] {
  const parts: Item[][] = [];
  let scopes = new Set<string>();
  for (const item of items) {
    const { bulk, load } = item.command;
    const last = parts.at(-1)?.[0]?.command;
    const scope = bulk && (bulk.scope ?? bulk.key);
    const sameBulk = bulk && last?.bulk?.kind === bulk.kind && !scopes.has(scope!);
    const bothBlind = !load && last && !last.load;
    if (sameBulk || bothBlind) {
      parts.at(-1)!.push(item);
    } else {
      parts.push([item]);
      scopes = new Set();
    }
    if (scope) scopes.add(scope);
  }
  return parts;
}

/**
 * One part of a batch: lock and load (one loadMany for a bulk part), decide each command, write; then, one by
 * one, the commands whose keys the loadMany left out, each on a load of its own. The clock is read again once
 * the state is locked: a load may wait on a lock while another command commits, and a decision (its events'
 * time, a lease, a retry) is never dated before the state it was made on.
 */
async function runPart(deps: PipelineDeps, trx: Kysely<Tables>, items: readonly Item[], placing: Promise<void>[]): Promise<Result<Committed<unknown>>[]> {
  const loadedAt = deps.clock.now();
  const states = await load(trx, items, loadedAt);
  const now = new Date(Math.max(loadedAt.getTime(), deps.clock.now().getTime()));
  const ready = items.flatMap((item, i) => (states.has(i) ? [{ item, i }] : []));
  const outcomes = new Array<Result<Committed<unknown>>>(items.length);
  if (ready.length > 0) {
    const written = await write(deps, trx, ready.map((r) => r.item), ready.map(({ item, i }) => item.command.decide(states.get(i), now)), now, placing);
    ready.forEach(({ i }, k) => (outcomes[i] = written[k]!));
  }
  for (const [i, item] of items.entries()) if (!states.has(i)) outcomes[i] = (await runPart(deps, trx, [item], placing))[0]!;
  return outcomes;
}

/**
 * The part's states by position: its one command's load, one loadMany for a bulk part (a key it leaves out has
 * none), nothing for commands without a load.
 */
async function load(trx: Kysely<Tables>, items: readonly Item[], now: Date): Promise<Map<number, unknown>> {
  const first = items[0]!.command;
  if (!first.load) return new Map(items.map((_, i) => [i, undefined]));
  if (items.length === 1 || !first.bulk) return new Map([[0, await first.load(trx, now)]]);
  const keys = items.map((i) => i.command.bulk!.key);
  const loaded = await first.bulk.loadMany(trx, keys, now);
  return new Map(keys.flatMap((k, i) => (loaded.has(k) ? [[i, loaded.get(k)]] : [])));
}
