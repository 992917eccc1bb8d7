import type { JobRequest } from '../commands/pipeline.ts';
import { JOB_HEARTBEAT_SECONDS, type QueueDefinition } from '../jobs/boss.ts';

export const RECONCILE_QUEUE = 'reconcile';
export const RETRY_QUEUE = 'reconcile-retry';
export const STREAM_REMOVAL_QUEUE = 'stream-removal';
export const SPLIT_PEERS_QUEUE = 'split-peers';
export const BACKSTOP_QUEUE = 'reconcile-backstop';

/** How long after a desired write its backstop pass comes due: after the route's own pass, as a rule. */
export const BACKSTOP_AFTER_MS = 2000;

/**
 * `reconcile`: one job per node at a time. `stately` keeps at most one queued (and one running) per
 * singletonKey, so a burst of writes and reports for a node collapses into one pass over its intents.
 * `reconcile-retry`: passes scheduled for a retry's time. They live apart because a job waiting for its
 * time would otherwise take the node's one queued slot and hold back a pass wanted now.
 * `reconcile-backstop`: passes that must see the command asking for them (barrierPassJob): the backstop of a
 * desired write or a deletion, whose route reconciles its nodes at once, and the passes a retired recovery
 * claim or a split's new generation asks for.
 */
export const reconcileQueues: QueueDefinition[] = [
  { name: RECONCILE_QUEUE, options: { policy: 'stately', retryLimit: 5, retryDelay: 1 } },
  { name: RETRY_QUEUE, options: { retryLimit: 5, retryDelay: 1 } },
  { name: BACKSTOP_QUEUE, options: { policy: 'stately', retryLimit: 5, retryDelay: 1 } },
  { name: STREAM_REMOVAL_QUEUE, options: { policy: 'stately', retryLimit: 5, retryDelay: 1 } },
  { name: SPLIT_PEERS_QUEUE, options: { policy: 'stately', retryLimit: 5, retryDelay: 1 } },
];

export function reconcileJob(nodeId: string, startAfter?: Date): JobRequest {
  return startAfter
    ? { queue: RETRY_QUEUE, data: { node_id: nodeId }, options: { startAfter, heartbeatSeconds: JOB_HEARTBEAT_SECONDS } }
    : { queue: RECONCILE_QUEUE, data: { node_id: nodeId }, options: { singletonKey: nodeId, heartbeatSeconds: JOB_HEARTBEAT_SECONDS } };
}

/**
 * A node's pass that sees the command asking for it, though a pass of the node queued before takes its place
 * (jobs/pass-barrier.ts): one queued per node at a time, on the `reconcile-backstop` queue, whose worker passes
 * the node's barrier first. For commands whose changes a pass reads without a lock, so that the pass's lock on
 * the node would not make it wait for them. Without `startAfter`, due at once by the database's clock, whatever
 * the Hub's says.
 */
export function barrierPassJob(nodeId: string, startAfter?: Date): JobRequest {
  return {
    queue: BACKSTOP_QUEUE,
    data: { node_id: nodeId },
    options: { singletonKey: nodeId, ...(startAfter ? { startAfter } : {}), heartbeatSeconds: JOB_HEARTBEAT_SECONDS },
    barrier: true,
  };
}

/**
 * The pass behind a desired write. Its route reconciles the write's nodes as soon as it commits; this job is
 * what reconciles them if the Hub stopped in between. Due BACKSTOP_AFTER_MS later: a burst of writes to a
 * node leaves one pass behind it, not one each contending with the route's passes for the node's row.
 */
export function backstopJob(nodeId: string, now: Date): JobRequest {
  return barrierPassJob(nodeId, new Date(now.getTime() + BACKSTOP_AFTER_MS));
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
