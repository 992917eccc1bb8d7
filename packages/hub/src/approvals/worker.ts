import type { PgBoss } from 'pg-boss';
import type { Actor, Pipeline } from '../commands/pipeline.ts';
import { jobPolling } from '../jobs/boss.ts';
import { expireApproval } from './expire-approval.ts';
import { APPROVAL_EXPIRY_QUEUE } from './queues.ts';

const worker = (correlationId: string): Actor => ({ principal: 'hub', role: 'system', source: 'worker', correlationId });

/** Approval expiry on its queue: each job runs at its request's expiry time (SPEC H7). */
export async function startApprovalWorker(boss: PgBoss, pipeline: Pipeline): Promise<{ stop(): Promise<void> }> {
  await boss.work<{ approval_id: string; correlation_id?: string }>(APPROVAL_EXPIRY_QUEUE, { batchSize: 20, ...jobPolling }, async (jobs) => {
    for (const job of jobs) await pipeline.run(worker(job.data.correlation_id ?? job.id), expireApproval(job.data.approval_id));
  });
  return {
    async stop() {
      await boss.offWork(APPROVAL_EXPIRY_QUEUE).catch(() => {});
    },
  };
}
