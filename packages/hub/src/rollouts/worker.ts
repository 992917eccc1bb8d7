import type { PgBoss } from 'pg-boss';
import type { Actor, Pipeline } from '../commands/pipeline.ts';
import type { Db } from '../database/connect.ts';
import type { Logger } from '../logger.ts';
import { progressRollout } from './progress-rollout.ts';
import { ROLLOUT_QUEUE, rolloutJob } from './queues.ts';

export interface RolloutWorker {
  /** Runs one rollout's progression now (the job's body). */
  progress(rolloutId: string, correlationId: string): Promise<string[]>;
  stop(): Promise<void>;
}

const worker = (correlationId: string): Actor => ({ principal: 'hub', role: 'system', source: 'worker', correlationId });

/**
 * Rollout progression on the `rollout` queue. At start every applying rollout gets a pass (SPEC C8): a
 * batch that converged while no Hub ran moves on; paused rollouts are left as they are.
 */
export async function startRolloutWorker(options: { db: Db; boss: PgBoss; pipeline: Pipeline; logger: Logger }): Promise<RolloutWorker> {
  const { db, boss, pipeline, logger } = options;

  async function progress(rolloutId: string, correlationId: string): Promise<string[]> {
    const outcome = await pipeline.run(worker(correlationId), progressRollout(rolloutId));
    return outcome.ok ? outcome.value.result.started : [];
  }

  await boss.work<{ rollout_id: string; correlation_id?: string }>(ROLLOUT_QUEUE, { batchSize: 20, burstWhenBatchFull: true, pollingIntervalSeconds: 2 }, async (jobs) => {
    for (const job of jobs) await progress(job.data.rollout_id, job.data.correlation_id ?? job.id);
  });

  const applying = await db.selectFrom('rollouts').select('rollout_id').where('state', '=', 'applying').execute();
  for (const { rollout_id } of applying) {
    const job = rolloutJob(rollout_id);
    await boss.send(job.queue, { ...job.data, correlation_id: 'boot' }, job.options);
  }
  if (applying.length) logger.info('rollouts resumed', { rollouts: applying.length });

  return {
    progress,
    async stop() {
      await boss.offWork(ROLLOUT_QUEUE).catch(() => {});
    },
  };
}
