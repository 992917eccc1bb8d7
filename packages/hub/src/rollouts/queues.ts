import type { JobRequest } from '../commands/pipeline.ts';
import { JOB_HEARTBEAT_SECONDS, type QueueDefinition } from '../jobs/boss.ts';

export const ROLLOUT_QUEUE = 'rollout';
export const GATE_TIMER_QUEUE = 'rollout-gate';
export const HEALTH_EXECUTOR_QUEUE = 'health-executor';

/**
 * `rollout`: progression, one pass per rollout at a time (`stately`), asked for whenever a target may have
 * settled. `rollout-gate`: passes due at a time, for a soaking health gate (SPEC L6); apart, as
 * `reconcile-retry` is, so a pass waiting for its time never takes the rollout's one queued slot.
 */
export const rolloutQueues: QueueDefinition[] = [
  { name: ROLLOUT_QUEUE, options: { policy: 'stately', retryLimit: 5, retryDelay: 1 } },
  // `short`: one queued per rollout; every pass of a soaking batch asks for the next, so one chain runs.
  { name: GATE_TIMER_QUEUE, options: { policy: 'short', retryLimit: 5, retryDelay: 1 } },
  // The health executor's run for a failed gate (SPEC L7): one queued per rollout.
  { name: HEALTH_EXECUTOR_QUEUE, options: { policy: 'short', retryLimit: 5, retryDelay: 1 } },
];

/** A rollout pass, keyed by its rollout; it sees the command that asked for it (jobs/pass-barrier.ts). */
export function rolloutJob(rolloutId: string): JobRequest {
  return { queue: ROLLOUT_QUEUE, data: { rollout_id: rolloutId }, options: { singletonKey: rolloutId, heartbeatSeconds: JOB_HEARTBEAT_SECONDS }, barrier: true };
}

/** A rollout pass due at `startAfter`: its gate looks at the soaking batch again then, whatever its targets report. */
export function gateTimerJob(rolloutId: string, startAfter: Date): JobRequest {
  return { queue: GATE_TIMER_QUEUE, data: { rollout_id: rolloutId }, options: { singletonKey: rolloutId, startAfter, heartbeatSeconds: JOB_HEARTBEAT_SECONDS } };
}

/** The health executor's run for a rollout whose gate failed with `on_unhealthy: rollback` (SPEC L7). */
export function healthExecutorJob(rolloutId: string): JobRequest {
  return { queue: HEALTH_EXECUTOR_QUEUE, data: { rollout_id: rolloutId }, options: { singletonKey: rolloutId, heartbeatSeconds: JOB_HEARTBEAT_SECONDS } };
}
