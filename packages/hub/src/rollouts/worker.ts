import type { Mode } from '@fleetplane/core';
import type { PgBoss } from 'pg-boss';
import type { Actor, Pipeline } from '../commands/pipeline.ts';
import type { Db } from '../database/connect.ts';
import { jobPolling } from '../jobs/boss.ts';
import type { HubConfig } from '../config.ts';
import { logFailure, type Logger } from '../logger.ts';
import { passBarrier } from '../jobs/pass-barrier.ts';
import { progressRollout } from './progress-rollout.ts';
import { settleRecovery } from './settle-recovery.ts';
import { HEALTH_EXECUTOR } from '@fleetplane/core';
import { sql } from 'kysely';
import { healthRollback, healthRollbackFailed } from './health-executor.ts';
import { GATE_TIMER_QUEUE, HEALTH_EXECUTOR_QUEUE, ROLLOUT_QUEUE, rolloutJob } from './queues.ts';

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
export interface RolloutWorkerOptions {
  db: Db;
  boss: PgBoss;
  pipeline: Pipeline;
  logger: Logger;
  /** The configured global reconciliation mode (the operator's setting wins when there is one). */
  mode: Mode;
  /** Liveness thresholds, which a health gate reads (SPEC L3). */
  config: HubConfig;
  /** Offers nodes the attempts queued for them (the transport: push, or wake their long polls). */
  offer(nodeIds: readonly string[]): Promise<void>;
}

export async function startRolloutWorker(options: RolloutWorkerOptions): Promise<RolloutWorker> {
  const { db, boss, pipeline, logger } = options;

  /**
   * One pass: recovery terminals and claim retirements commit first, on their own (I9); progression then
   * sees the hold as it now stands, so a retired hold lets the next batch start in the same pass (I11).
   */
  async function progress(rolloutId: string, correlationId: string): Promise<string[]> {
    // Every command that asked for this pass has committed before it reads (jobs/pass-barrier.ts).
    await passBarrier(db, ROLLOUT_QUEUE, rolloutId);
    const settled = await pipeline.run(worker(correlationId), settleRecovery(rolloutId));
    // A terminal just recorded may leave a claim that evidence already on record retires (I7): settle again.
    if (settled.ok && settled.value.result.settled > 0) await pipeline.run(worker(correlationId), settleRecovery(rolloutId));
    const outcome = await pipeline.run(worker(correlationId), progressRollout(rolloutId, options.mode, options.config));
    if (!outcome.ok) return [];
    const { started, heldBy, deliverable } = outcome.value.result;
    await options.offer(deliverable);
    // The automated path never moves past a target being restored or that a restore may have moved.
    if (heldBy.length > 0) logger.info('rollout held by recovery: no new batch', { rollout_id: rolloutId, nodes: heldBy, correlation_id: correlationId });
    return started;
  }

  /**
   * The health executor for a rollout whose gate failed asking for a rollback (SPEC L7-L9): it acts as itself,
   * caused by the gate's failure (the why chain of its restores reaches the evidence), and every exit records
   * its terminal, a run that throws too.
   */
  async function execute(rolloutId: string, correlationId: string): Promise<void> {
    const cause = await db
      .selectFrom('events')
      .select('event_id')
      .where('stream_id', '=', `rollout:${rolloutId}`)
      .where('type', '=', 'RolloutGateFailed')
      .orderBy('stream_version', 'desc')
      .executeTakeFirst();
    const actor: Actor = { principal: HEALTH_EXECUTOR, role: 'system', source: 'worker', correlationId, causationId: cause?.event_id ?? null };
    let failure: string | null = null;
    try {
      const outcome = await pipeline.run(actor, healthRollback(rolloutId, options.config.file.control_api.approval_required));
      if (!outcome.ok) failure = `${outcome.error.code}: ${outcome.error.message}`;
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
    if (failure === null) return;
    logger.warn('health executor failed; its terminal is recorded', { rollout_id: rolloutId, error: failure, correlation_id: correlationId });
    await pipeline.run(actor, healthRollbackFailed(rolloutId, failure));
  }

  // I10: restores in flight whose answer can no longer come are interrupted, whatever their rollout's state.
  const restoring = await db.selectFrom('rollout_targets').select('rollout_id').distinct().where('recovery_phase', '=', 'restoring').execute();
  for (const { rollout_id } of restoring) await pipeline.run(worker('boot'), settleRecovery(rollout_id, true));
  const applying = await db.selectFrom('rollouts').select('rollout_id').where('state', '=', 'applying').execute();
  // Each gets its pass here, not only a job: a Hub killed mid-pass leaves that pass's job active, holding the
  // rollout's key until pg-boss's monitor fails it on its missed heartbeat, and a batch that converged would
  // wait for it. Passes of one rollout serialize on its row lock, so this one is safe beside another Hub's.
  // The job stays the backstop.
  for (const rolloutId of new Set([...applying, ...restoring].map((r) => r.rollout_id))) {
    const job = rolloutJob(rolloutId);
    await boss.send(job.queue, { ...job.data, correlation_id: 'boot' }, job.options);
    await progress(rolloutId, 'boot').catch((error: unknown) => logFailure(logger, 'boot rollout pass failed; its job will retry', error, { rollout_id: rolloutId }));
  }
  // L7: a failed gate whose executor had not acted when its Hub stopped.
  const awaiting = await db
    .selectFrom('rollouts')
    .select('rollout_id')
    .where('state', '=', 'paused')
    .where('gate_state', '=', 'failed')
    .where('gate_action', 'is', null)
    .where(sql<boolean>`health_gate->>'on_unhealthy' = 'rollback'`)
    .execute();
  for (const { rollout_id } of awaiting) await execute(rollout_id, 'boot').catch((error: unknown) => logFailure(logger, 'boot health executor failed; its job will retry', error, { rollout_id }));
  if (applying.length || restoring.length) logger.info('rollouts resumed', { rollouts: applying.length, restoring: restoring.length });

  for (const queue of [ROLLOUT_QUEUE, GATE_TIMER_QUEUE]) {
    await boss.work<{ rollout_id: string; correlation_id?: string }>(queue, { batchSize: 20, burstWhenBatchFull: true, ...jobPolling }, async (jobs) => {
      for (const job of jobs) await progress(job.data.rollout_id, job.data.correlation_id ?? job.id);
    });
  }

  await boss.work<{ rollout_id: string; correlation_id?: string }>(HEALTH_EXECUTOR_QUEUE, { batchSize: 20, ...jobPolling }, async (jobs) => {
    for (const job of jobs) await execute(job.data.rollout_id, job.data.correlation_id ?? job.id);
  });

  return {
    progress,
    async stop() {
      await boss.offWork(ROLLOUT_QUEUE).catch(() => {});
      await boss.offWork(GATE_TIMER_QUEUE).catch(() => {});
      await boss.offWork(HEALTH_EXECUTOR_QUEUE).catch(() => {});
    },
  };
}
