import type { PgBoss } from 'pg-boss';
import type { Actor, Command, Pipeline } from '../commands/pipeline.ts';
import type { Db } from '../database/connect.ts';
import { jobPolling } from '../jobs/boss.ts';
import { passBarrier } from '../jobs/pass-barrier.ts';
import { SPLIT_PEERS_QUEUE, STREAM_REMOVAL_QUEUE } from './queues.ts';
import { refreshPeers } from './refresh-peers.ts';
import { removeStream } from './remove-stream.ts';

const worker = (correlationId: string): Actor => ({ principal: 'hub', role: 'system', source: 'worker', correlationId });

/** The keyed checks of one stream, each on its queue: a deleted stream's removal (issue 22), a split's moved peers (SPEC E4). */
const checks: ReadonlyArray<[string, (streamId: string) => Command<any, unknown>]> = [
  [STREAM_REMOVAL_QUEUE, removeStream],
  [SPLIT_PEERS_QUEUE, refreshPeers],
];

/** The per-stream checks on their queues, as the Hub; each sees every command that asked for it. */
export async function startStreamWorker(db: Db, boss: PgBoss, pipeline: Pipeline): Promise<{ stop(): Promise<void> }> {
  for (const [queue, check] of checks) {
    await boss.work<{ stream_id: string; correlation_id?: string }>(queue, { batchSize: 20, ...jobPolling }, async (jobs) => {
      for (const job of jobs) {
        await passBarrier(db, queue, job.data.stream_id);
        const outcome = await pipeline.run(worker(job.data.correlation_id ?? job.id), check(job.data.stream_id));
        if (!outcome.ok) throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
      }
    });
  }
  return {
    async stop() {
      await Promise.all(checks.map(([queue]) => boss.offWork(queue).catch(() => {})));
    },
  };
}
