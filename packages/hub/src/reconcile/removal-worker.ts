import type { PgBoss } from 'pg-boss';
import type { Actor, Pipeline } from '../commands/pipeline.ts';
import type { Db } from '../database/connect.ts';
import { jobPolling } from '../jobs/boss.ts';
import { passBarrier } from '../jobs/pass-barrier.ts';
import { STREAM_REMOVAL_QUEUE } from './queues.ts';
import { removeStream } from './remove-stream.ts';

const worker = (correlationId: string): Actor => ({ principal: 'hub', role: 'system', source: 'worker', correlationId });

/** The removal checks of deleted streams, on their queue (issue 22); each sees every command that asked for it. */
export async function startRemovalWorker(db: Db, boss: PgBoss, pipeline: Pipeline): Promise<{ stop(): Promise<void> }> {
  await boss.work<{ stream_id: string; correlation_id?: string }>(STREAM_REMOVAL_QUEUE, { batchSize: 20, ...jobPolling }, async (jobs) => {
    for (const job of jobs) {
      await passBarrier(db, STREAM_REMOVAL_QUEUE, job.data.stream_id);
      const outcome = await pipeline.run(worker(job.data.correlation_id ?? job.id), removeStream(job.data.stream_id));
      if (!outcome.ok) throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
    }
  });
  return {
    async stop() {
      await boss.offWork(STREAM_REMOVAL_QUEUE).catch(() => {});
    },
  };
}
