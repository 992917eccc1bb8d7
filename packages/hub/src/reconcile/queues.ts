import type { JobRequest } from '../commands/pipeline.ts';
import { JOB_HEARTBEAT_SECONDS, type QueueDefinition } from '../jobs/boss.ts';

export const RECONCILE_QUEUE = 'reconcile';
export const RETRY_QUEUE = 'reconcile-retry';
export const STREAM_REMOVAL_QUEUE = 'stream-removal';
export const SPLIT_PEERS_QUEUE = 'split-peers';

/**
 * `reconcile`: one job per node at a time. `stately` keeps at most one queued (and one running) per
 * singletonKey, so a burst of writes and reports for a node collapses into one pass over its intents.
 * `reconcile-retry`: passes scheduled for a retry's time. They live apart because a job waiting for its
 * time would otherwise take the node's one queued slot and hold back a pass wanted now.
 */
export const reconcileQueues: QueueDefinition[] = [
  { name: RECONCILE_QUEUE, options: { policy: 'stately', retryLimit: 5, retryDelay: 1 } },
  { name: RETRY_QUEUE, options: { retryLimit: 5, retryDelay: 1 } },
  { name: STREAM_REMOVAL_QUEUE, options: { policy: 'stately', retryLimit: 5, retryDelay: 1 } },
  { name: SPLIT_PEERS_QUEUE, options: { policy: 'stately', retryLimit: 5, retryDelay: 1 } },
];

export function reconcileJob(nodeId: string, startAfter?: Date): JobRequest {
  return startAfter
    ? { queue: RETRY_QUEUE, data: { node_id: nodeId }, options: { startAfter, heartbeatSeconds: JOB_HEARTBEAT_SECONDS } }
    : { queue: RECONCILE_QUEUE, data: { node_id: nodeId }, options: { singletonKey: nodeId, heartbeatSeconds: JOB_HEARTBEAT_SECONDS } };
}

/**
 * `stream-removal`: the check that removes a deleted stream once every registered node reported its stop
 * (issue 22), one per stream at a time; asked for by the deletion, by each converged stop, and by a
 * retirement that superseded one of the stream's intents. It finds nothing to do for a stream not being deleted.
 */
export function streamRemovalJob(streamId: string): JobRequest {
  return { queue: STREAM_REMOVAL_QUEUE, data: { stream_id: streamId }, options: { singletonKey: streamId, heartbeatSeconds: JOB_HEARTBEAT_SECONDS }, barrier: true };
}

/**
 * `split-peers`: the check that starts a new generation of a split placement whose nodes were sent a peer's
 * data address that has since changed (SPEC E4), one per stream at a time; asked for by a registration that
 * moved a node's data address. It finds nothing to do for a placement whose shares are current.
 */
export function splitPeersJob(streamId: string): JobRequest {
  return { queue: SPLIT_PEERS_QUEUE, data: { stream_id: streamId }, options: { singletonKey: streamId, heartbeatSeconds: JOB_HEARTBEAT_SECONDS }, barrier: true };
}
