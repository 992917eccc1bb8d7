import type { Kysely } from 'kysely';
import type { PgBoss } from 'pg-boss';
import type { Clock } from '../clock.ts';
import type { Actor, Pipeline } from '../commands/pipeline.ts';
import type { Tables } from '../database/tables.ts';
import { jobPolling } from '../jobs/boss.ts';
import type { Duty, RepeatedFailures } from '../repeated-failures.ts';
import { expireApproval } from './expire-approval.ts';
import { overdueApprovals } from './overdue.ts';
import { APPROVAL_EXPIRY_QUEUE } from './queues.ts';

/** How often a Hub looks for pending requests past their time whose expiry job was lost. */
export const APPROVAL_SWEEP_EVERY_MS = 60_000;

const worker = (correlationId: string): Actor => ({ principal: 'hub', role: 'system', source: 'worker', correlationId });

const SWEEP_FAILED: Duty = { name: 'approval_expiry', failed: 'approval expiry sweep failed' };

/**
 * Approval expiry on its queue: each job runs at its request's expiry time (SPEC H7). A sweep at start and
 * every `sweepEveryMs` expires the pending requests past their time whose job was lost (overdueApprovals):
 * the job is on time, the sweep makes sure. Hubs sweeping together expire each request once.
 */
export async function startApprovalWorker(
  boss: PgBoss,
  pipeline: Pipeline,
  sweep: { db: Kysely<Tables>; clock: Clock; duties: RepeatedFailures; everyMs: number },
): Promise<{ stop(): Promise<void> }> {
  await boss.work<{ approval_id: string; correlation_id?: string }>(APPROVAL_EXPIRY_QUEUE, { batchSize: 20, ...jobPolling }, async (jobs) => {
    for (const job of jobs) await pipeline.run(worker(job.data.correlation_id ?? job.id), expireApproval(job.data.approval_id));
  });
  const expireOverdue = async () => {
    for (const id of await overdueApprovals(sweep.db, sweep.clock.now())) await pipeline.run(worker('approval-sweep'), expireApproval(id));
  };
  // One sweep at a time, awaited by stop: none runs on after the Hub closes its connections.
  let current: Promise<void> = Promise.resolve();
  const run = () => {
    current = current.then(() =>
      expireOverdue().then(
        () => sweep.duties.succeeded(SWEEP_FAILED),
        (error: unknown) => sweep.duties.failed(SWEEP_FAILED, error),
      ),
    );
  };
  run();
  const timer = setInterval(run, sweep.everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await current;
      await boss.offWork(APPROVAL_EXPIRY_QUEUE).catch(() => {});
    },
  };
}
