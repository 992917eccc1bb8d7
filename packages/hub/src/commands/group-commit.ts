import type { Result } from '@fleetplane/core';
import type { Actor, Command, Committed } from './command.ts';
import type { PipelineDeps } from './pipeline.ts';
import { rerunReason, runCommand } from './retry.ts';
import { runInTransaction, type Item } from './transaction.ts';

export interface Pipeline {
  run<S, R>(actor: Actor, command: Command<S, R>): Promise<Result<Committed<R>>>;
}

export interface GroupCommitOptions {
  /**
   * Transactions in flight at once per queue, each on a connection of its own. On two cores 2 lanes beat 1
   * (PostgreSQL uses both cores) and 4 (batches get too small to share their commit). Commands without a
   * load always have one lane (see createPipeline).
   */
  lanes?: number;
  /** Commands sharing one transaction at most. */
  maxBatch?: number;
}

/** The queue of commands without a load: blind appends, which read nothing before they write. */
const BLIND = 'blind';

interface Queue {
  waiting: Queued[];
  busy: number;
  /** A lane starts at the end of this turn of the event loop, taking every command that arrived in it. */
  starting: boolean;
}

interface Queued extends Item {
  resolve(outcome: Result<Committed<unknown>>): void;
  reject(error: unknown): void;
}

/**
 * The command pipeline with group commit. Commands that arrive while every lane is busy share the next
 * transaction: each still locks, decides, appends, projects and enqueues, in arrival order, seeing the
 * effects of the ones before it, and one commit makes them all durable. An idle lane starts at the end of
 * the event loop's turn in which a command arrived (`setImmediate`), as DataLoader batches, so commands
 * arriving in one turn (the clients a commit answered sending their next ones, requests read in one poll)
 * share its first transaction instead of the first of them running alone while the rest wait for it. If a
 * shared transaction fails, every command in it runs again alone, so one command's failure is never another's.
 * Bulk commands of each kind queue apart, on lanes of their own: a burst of reports never delays an
 * operator's command, and their batches hold nothing but reports to load together.
 * Commands without a load queue apart too, on a single lane: they wait on no lock, and a batch of them is
 * one append call, so a second lane would only halve the batches (docs/benchmarks.md, append).
 */
export function createPipeline(deps: PipelineDeps, options: GroupCommitOptions = {}): Pipeline {
  const lanes = options.lanes ?? 2;
  const maxBatch = options.maxBatch ?? 64;
  const queues = new Map<string, Queue>();

  const runAlone = (item: Queued) => runCommand(deps, item.actor, item.command).then(item.resolve, item.reject);

  async function runShared(batch: Queued[]): Promise<void> {
    if (batch.length === 1) return runAlone(batch[0]!);
    let outcomes: Result<Committed<unknown>>[];
    try {
      outcomes = await runInTransaction(deps, batch);
    } catch (e) {
      const reason = rerunReason(e) ?? 'error';
      for (const item of batch) deps.onRerun?.(item.command.name, reason, true);
      await Promise.all(batch.map(runAlone));
      return;
    }
    if (outcomes.some((o) => o.ok && o.value.events.length > 0)) deps.onAppended?.();
    batch.forEach((item, i) => item.resolve(outcomes[i]!));
  }

  async function lane(queue: Queue): Promise<void> {
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
        if (!queue) queues.set(kind, (queue = { waiting: [], busy: 0, starting: false }));
        queue.waiting.push({ actor, command, resolve, reject } as unknown as Queued);
        if (!queue.starting && queue.busy < (kind === BLIND ? 1 : lanes)) {
          const starting = queue;
          starting.starting = true;
          setImmediate(() => {
            starting.starting = false;
            void lane(starting);
          });
        }
      });
    },
  };
}
