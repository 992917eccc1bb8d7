import { ok, type Result } from '@fleetplane/core';
import { sql, type Kysely } from 'kysely';
import type { Actor, Command, Committed } from '../../packages/hub/src/commands/pipeline.ts';
import type { Tables } from '../../packages/hub/src/database/tables.ts';
import { BACKSTOP_QUEUE, RECONCILE_QUEUE } from '../../packages/hub/src/reconcile/queues.ts';
import { eventually } from './fleet.ts';
import type { TestHub } from './hub.ts';

/** The command as it is, but asking for no job: what a command leaves behind when the pass it asked for is lost. */
export function withoutJobs<S, R>(command: Command<S, R>): Command<S, R> {
  return {
    ...command,
    decide: (state, now) => {
      const decided = command.decide(state, now);
      return decided.ok ? ok({ ...decided.value, jobs: [] }) : decided;
    },
  };
}

/**
 * The command as it is, but its transaction held open after its writes and job inserts: `held` runs in it then
 * (its first statement sends the writes waiting for the commit), and the commit waits for `until`.
 */
export function heldBeforeCommit<S, R>(command: Command<S, R>, held: (trx: Kysely<Tables>) => Promise<void>, until: Promise<void>): Command<S, R> {
  return {
    ...command,
    decide: (state, now) => {
      const decided = command.decide(state, now);
      if (!decided.ok) return decided;
      const writes = decided.value.writes;
      return ok({
        ...decided.value,
        writes: async (trx: Kysely<Tables>) => {
          await writes?.(trx);
          await held(trx);
          await until;
        },
      });
    },
  };
}

export interface QueuedPass {
  name: string;
  node: string;
  state: string;
}

/** The nodes' passes not yet done on the two reconcile queues, as `db` sees them (in a transaction, its own inserts too). */
export async function queuedPasses(db: Kysely<any>, nodes: readonly string[]): Promise<QueuedPass[]> {
  const { rows } = await sql<QueuedPass>`
    SELECT name, singleton_key AS node, state FROM pgboss.job
    WHERE singleton_key = ANY(${nodes}) AND state < 'completed' AND name IN (${RECONCILE_QUEUE}, ${BACKSTOP_QUEUE})
    ORDER BY singleton_key, name, state`.execute(db);
  return rows;
}

/**
 * The race a command that asks for its nodes' passes must survive (jobs/pass-barrier.ts): a pass of each node
 * already queued on both reconcile queues, due in a moment, so that the command's own request adds none
 * (`stately`); and the command's transaction held open after its job inserts until each of those passes has
 * started and either run, reading the state without the command, or waits for a lock (a row the command
 * locked, a barrier it holds). Answers the command's outcome once it committed, and the passes its transaction
 * saw queued just before its commit.
 */
export async function raceQueuedPasses<S, R>(
  hub: TestHub,
  actor: Actor,
  command: Command<S, R>,
  nodes: string[],
): Promise<{ outcome: Result<Committed<R>>; atCommit: QueuedPass[] }> {
  const { boss, pipeline, database } = hub.context;
  // The passes asked for before (a desired write's backstop, due 2 s after it) have run: the queued ones are these.
  await eventually(async () => ((await queuedPasses(database.db, nodes)).length === 0 ? true : undefined), 15_000);
  const due = new Date(Date.now() + 2000);
  const early: string[] = [];
  for (const node of nodes) {
    for (const queue of [RECONCILE_QUEUE, BACKSTOP_QUEUE]) {
      const id = await boss.send(queue, { node_id: node }, { singletonKey: node, startAfter: due });
      if (id === null) throw new Error(`a pass of ${node} was queued on ${queue} meanwhile`);
      early.push(id);
    }
  }
  let atCommit: QueuedPass[] = [];
  const commit = Promise.withResolvers<void>();
  const running = pipeline.run(actor, heldBeforeCommit(command, async (trx) => void (atCommit = await queuedPasses(trx, nodes)), commit.promise));
  try {
    // Every early pass started, and none still reading: each has run, or waits for a lock the command holds (a row,
    // a barrier). Seen on consecutive looks, as a pass's statements leave gaps between them.
    let quiet = 0;
    await eventually(async () => {
      const { rows } = await sql<{ unstarted: number; running: number }>`
        SELECT count(*) FILTER (WHERE state IN ('created', 'retry'))::int AS unstarted,
          (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'
            AND state = 'active' AND wait_event_type IS DISTINCT FROM 'Lock' AND pid <> pg_backend_pid())::int AS running
        FROM pgboss.job WHERE id = ANY(${early}::uuid[])`.execute(database.db);
      quiet = rows[0]!.unstarted === 0 && rows[0]!.running === 0 ? quiet + 1 : 0;
      return quiet >= 10 ? true : undefined;
    }, 15_000);
  } finally {
    commit.resolve();
  }
  return { outcome: await running, atCommit };
}
