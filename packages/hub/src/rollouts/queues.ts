import type { JobRequest } from '../commands/pipeline.ts';
import { JOB_HEARTBEAT_SECONDS, type QueueDefinition } from '../jobs/boss.ts';

export const ROLLOUT_QUEUE = 'rollout';

/** `rollout`: progression, one pass per rollout at a time (`stately`), asked for whenever a target may have settled. */
export const rolloutQueues: QueueDefinition[] = [{ name: ROLLOUT_QUEUE, options: { policy: 'stately', retryLimit: 5, retryDelay: 1 } }];

/** A rollout pass, keyed by its rollout; it sees the command that asked for it (jobs/pass-barrier.ts). */
export function rolloutJob(rolloutId: string): JobRequest {
  return { queue: ROLLOUT_QUEUE, data: { rollout_id: rolloutId }, options: { singletonKey: rolloutId, heartbeatSeconds: JOB_HEARTBEAT_SECONDS }, barrier: true };
}
