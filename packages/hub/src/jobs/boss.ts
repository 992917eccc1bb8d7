import pg from 'pg';
import { PgBoss, type Queue, type Warning } from 'pg-boss';
import { SESSION_OPTIONS } from '../database/connect.ts';
import { takePrepareLock, type OnLockWait } from '../database/prepare-lock.ts';

export interface QueueDefinition {
  name: string;
  options?: Omit<Queue, 'name'>;
}

/** What pg-boss tells the Hub while it runs. */
export interface JobQueueEvents {
  error(error: Error): void;
  /** An operator's concern: a handler that overran its job's expiry, a slow query, a queue backlog, a retried start. */
  warning(warning: Warning): void;
}

/**
 * pg-boss's schema (`pgboss`), installed or brought to this pg-boss's version, with `queues` created and
 * everything in it granted to fleetplane_hub: done by the database's owner with the migrations
 * (database/prepare.ts), since creating a schema, its tables and a queue's partition is DDL the Hub's role
 * may not run. Grants are given only by the schema's owner; run by anyone else, it leaves them as they are.
 * Under the migrations' advisory lock: Hubs starting together on a database without the queues would
 * otherwise grant on the same catalog rows at once, and all but one fail ("tuple concurrently updated").
 */
export async function installJobQueues(url: string, queues: readonly QueueDefinition[], onWait?: OnLockWait): Promise<void> {
  const client = new pg.Client({ connectionString: url, options: SESSION_OPTIONS });
  await client.connect();
  try {
    await takePrepareLock(client, onWait);
    const boss = new PgBoss({
      connectionString: url,
      schema: 'pgboss',
      max: 1,
      application_name: 'fleetplane-migrate',
      options: SESSION_OPTIONS,
      supervise: false,
      schedule: false,
    });
    boss.on('error', () => {});
    await boss.start();
    try {
      await ensureQueues(boss, queues);
    } finally {
      await boss.stop({ graceful: false });
    }
    const { rows } = await client.query<{ owner: boolean }>(
      `SELECT pg_has_role(current_user, nspowner, 'USAGE') AS owner FROM pg_namespace WHERE nspname = 'pgboss'`,
    );
    if (!rows[0]?.owner) return;
    await client.query(`GRANT USAGE ON SCHEMA pgboss TO fleetplane_hub;
      GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA pgboss TO fleetplane_hub;
      GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA pgboss TO fleetplane_hub;
      GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA pgboss TO fleetplane_hub`);
  } finally {
    // Ending the session releases the lock.
    await client.end();
  }
}

/** Whether pg-boss's schema holds every one of `queues` (else installJobQueues has work to do). */
export async function jobQueuesReady(pool: pg.Pool, queues: readonly QueueDefinition[]): Promise<boolean> {
  const { rows } = await pool.query<{ installed: boolean }>(`SELECT to_regclass('pgboss.queue') IS NOT NULL AS installed`);
  if (!rows[0]!.installed) return false;
  const found = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM pgboss.queue WHERE name = ANY($1)`, [queues.map((q) => q.name)]);
  return found.rows[0]!.n === queues.length;
}

/**
 * pg-boss as the transactional outbox and worker pool. LISTEN/NOTIFY wakes workers within milliseconds;
 * polling stays on as the safety net. Queues are created here, at boot: a queue created inside an
 * uncommitted transaction would be invisible to pg-boss's own connections.
 */
export async function startBoss(
  url: string,
  queues: readonly QueueDefinition[],
  events: JobQueueEvents,
  /** The role owns the database's schema: pg-boss brings its own up to date (else installJobQueues, by the owner, did). */
  migrate = true,
): Promise<PgBoss> {
  // The monitor fails jobs whose heartbeat stopped (a Hub killed mid-job) every JOB_MONITOR_SECONDS, not every minute.
  const boss = new PgBoss({
    connectionString: url,
    schema: 'pgboss',
    useListenNotify: true,
    max: 4,
    application_name: 'fleetplane-jobs',
    options: SESSION_OPTIONS,
    monitorIntervalSeconds: JOB_MONITOR_SECONDS,
    superviseIntervalSeconds: JOB_MONITOR_SECONDS,
    migrate,
  });
  boss.on('error', (error) => events.error(error));
  boss.on('warning', (warning) => events.warning(warning));
  await boss.start();
  await ensureQueues(boss, queues);
  return boss;
}

/**
 * How long pg-boss keeps a job once it ended (completed, failed or cancelled): a day, against pg-boss's 7.
 * The event log is the record of what a pass did; a job's row only tells why one ran or failed. A rollout
 * leaves at least one per target (its node's pass), a retry one each.
 */
export const JOB_KEPT_SECONDS = 86_400;

/**
 * Creates the queues that are missing, and brings existing ones to JOB_KEPT_SECONDS (queues created before it
 * kept pg-boss's default). A job keeps the retention its queue had when it was inserted.
 */
async function ensureQueues(boss: PgBoss, queues: readonly QueueDefinition[]): Promise<void> {
  for (const q of queues) {
    const options = { deleteAfterSeconds: JOB_KEPT_SECONDS, ...q.options };
    const existing = await boss.getQueue(q.name);
    if (!existing) await boss.createQueue(q.name, { notify: true, ...options });
    else if (existing.deleteAfterSeconds !== options.deleteAfterSeconds) await boss.updateQueue(q.name, { deleteAfterSeconds: options.deleteAfterSeconds });
  }
}

/**
 * How often every worker looks for due jobs, NOTIFY or not: how late scheduled work may run (README). pg-boss
 * sends NOTIFY only for a job runnable when it is inserted, never when a job comes due later: one queued for
 * its time (a retry, an approval's expiry), a `stately` job whose key the pass before it held, a failed job's
 * retry, or the job of a dead Hub that the monitor failed. Left to pg-boss, a worker on a notify queue would
 * look for those every 30 s. One fetch per queue per second per Hub, each an index probe of an empty range.
 */
export const JOB_POLL_SECONDS = 1;

/** The `work()` options that hold every worker to JOB_POLL_SECONDS. */
export const jobPolling = { pollingIntervalSeconds: JOB_POLL_SECONDS, notifyPollingIntervalSeconds: JOB_POLL_SECONDS } as const;

/**
 * A job of a `stately` queue holds its key while it is active: a later job for the same node or rollout waits
 * until it ends. One whose Hub was killed mid-run would hold it until pg-boss's expiry, 15 minutes; with a
 * heartbeat its worker refreshes, the monitor fails it within seconds and the waiting job runs.
 */
export const JOB_HEARTBEAT_SECONDS = 10;

/** How often pg-boss's monitor (any one Hub's) fails the jobs whose heartbeat was missed. */
export const JOB_MONITOR_SECONDS = 10;
