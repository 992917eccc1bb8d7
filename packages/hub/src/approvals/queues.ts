import type { JobRequest } from '../commands/pipeline.ts';
import type { QueueDefinition } from '../jobs/boss.ts';

export const APPROVAL_EXPIRY_QUEUE = 'approval-expiry';

export const approvalQueues: QueueDefinition[] = [{ name: APPROVAL_EXPIRY_QUEUE, options: { retryLimit: 5, retryDelay: 1 } }];

/**
 * Expires a request at its expiry time, if it is still pending then. `at` is a time, or a number of
 * seconds from the database's clock, which runs the job queue.
 */
export function approvalExpiryJob(approvalId: string, at: Date | number): JobRequest {
  return { queue: APPROVAL_EXPIRY_QUEUE, data: { approval_id: approvalId }, options: { startAfter: at } };
}
