import type { JobRequest } from '../commands/pipeline.ts';
import type { QueueDefinition } from '../jobs/boss.ts';

export const RECONCILE_QUEUE = 'reconcile';

/**
 * One reconcile job per node at a time: `stately` keeps at most one queued (and one running) per
 * singletonKey, so a burst of writes and reports for a node collapses into one pass over its intents.
 */
export const reconcileQueues: QueueDefinition[] = [{ name: RECONCILE_QUEUE, options: { policy: 'stately', retryLimit: 5, retryDelay: 1 } }];

export function reconcileJob(nodeId: string, startAfter?: Date): JobRequest {
  return { queue: RECONCILE_QUEUE, data: { node_id: nodeId }, options: { singletonKey: nodeId, ...(startAfter ? { startAfter } : {}) } };
}
