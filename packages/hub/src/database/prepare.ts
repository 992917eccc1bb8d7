import type { QueueDefinition } from '../jobs/boss.ts';
import { installJobQueues, jobQueuesReady } from '../jobs/boss.ts';
import { approvalQueues } from '../approvals/queues.ts';
import { reconcileQueues } from '../reconcile/queues.ts';
import { rolloutQueues } from '../rollouts/queues.ts';
import { connect } from './connect.ts';
import { migrate } from './migrate.ts';
import type { OnLockWait } from './prepare-lock.ts';

/** Every job queue a Hub works. */
export const HUB_QUEUES: readonly QueueDefinition[] = [...reconcileQueues, ...rolloutQueues, ...approvalQueues];

/**
 * What the database's owner does before Hubs run as fleetplane_hub (`fleetplane migrate`, and the Hub at start
 * on a server it owns): the pending migrations, then pg-boss's schema with the Hub's queues. Returns the
 * migrations applied. On a database with nothing to do it changes nothing, so any role may run it; `jobQueues:
 * 'always'` (the migrate command) also brings pg-boss's schema to its version when nothing else is missing.
 */
export async function prepareDatabase(url: string, options: { jobQueues?: 'always' | 'when missing'; onWait?: OnLockWait } = {}): Promise<number[]> {
  const database = connect(url, { max: 1, applicationName: 'fleetplane-migrate' });
  try {
    const applied = await migrate(database.pool, undefined, options.onWait);
    if (options.jobQueues === 'always' || applied.length > 0 || !(await jobQueuesReady(database.pool, HUB_QUEUES))) await installJobQueues(url, HUB_QUEUES, options.onWait);
    return applied;
  } finally {
    await database.close();
  }
}
