import type { Result } from '@fleetplane/core';
import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import type { JobInsert, PgBoss } from 'pg-boss';
import type { Tables } from '../database/tables.ts';
import { preparedByText } from '../database/transaction-plan.ts';
import { holdPassBarrier } from '../jobs/pass-barrier.ts';
import type { Decision } from './command.ts';
import type { Item } from './transaction.ts';

/**
 * The statements that enqueue what a part's decisions ask for, in the order they must run: the barriers of
 * keyed passes first (jobs/pass-barrier.ts), then one INSERT per queue for the whole part (a rollout's batch
 * asks for hundreds of jobs). pg-boss builds each INSERT; an adapter takes its SQL as data instead of sending
 * it, so the transaction sends it with its commit. Its text is the same for every insert into a queue (the jobs
 * are its parameter), so it is prepared, named by its text. Every job carries the correlation id of the command
 * that asked for it, so the worker's events do too.
 */
export async function jobStatements(
  boss: PgBoss | null,
  trx: Kysely<Tables>,
  items: readonly Item[],
  decided: readonly Result<Decision<unknown>>[],
): Promise<Compilable[]> {
  const jobs = new Map<string, JobInsert[]>();
  const barriers = new Map<string, Compilable>();
  for (const [i, d] of decided.entries()) {
    if (!d.ok || !d.value.jobs?.length) continue;
    const { actor, command } = items[i]!;
    if (!boss) throw new Error(`${command.name} enqueues jobs but this Hub has no job queue`);
    for (const job of d.value.jobs) {
      const insert: JobInsert = { ...job.options, data: { ...job.data, correlation_id: actor.correlationId } };
      const queued = jobs.get(job.queue);
      if (queued) queued.push(insert);
      else jobs.set(job.queue, [insert]);
      const key = job.options?.singletonKey;
      if (job.barrier && key) barriers.set(`${job.queue}\u0000${key}`, holdPassBarrier(trx, job.queue, key));
    }
  }
  const statements = [...barriers.values()];
  const taken = {
    async executeSql(text: string, values?: unknown[]) {
      const statement = CompiledQuery.raw(text, values ?? []);
      statements.push(preparedByText('jobs', { compile: () => statement }));
      return { rows: [] };
    },
  };
  for (const [queue, inserts] of jobs) await boss!.insert(queue, inserts, { db: taken });
  return statements;
}
