import { setTimeout as sleep } from 'node:timers/promises';
import { MODES, modeDispatches, type Mode } from '@fleetplane/core';
import { CompiledQuery, sql } from 'kysely';
import type { PgBoss } from 'pg-boss';
import type { Actor, Pipeline } from '../commands/pipeline.ts';
import { ADVISORY_LOCKS, LOCK_HOLDER_SQL, type LockHolder } from '../database/advisory-locks.ts';
import type { Db } from '../database/connect.ts';
import { jobPolling } from '../jobs/boss.ts';
import { passBarrier } from '../jobs/pass-barrier.ts';
import { logFailure, type Logger } from '../logger.ts';
import type { Duty, RepeatedFailures } from '../repeated-failures.ts';
import type { Transport } from '../transport/transport.ts';
import { literals } from '../database/transaction-plan.ts';
import { expireLeases } from './expire-leases.ts';
import { globalModeSetting, nodesWithWork } from './load.ts';
import { BACKSTOP_QUEUE, RECONCILE_QUEUE, reconcileJob, RETRY_QUEUE } from './queues.ts';

/** The queues whose jobs are a node's reconcile pass. */
const RECONCILE_QUEUES = [RECONCILE_QUEUE, RETRY_QUEUE, BACKSTOP_QUEUE];
import { reconcileNode } from './reconcile-node.ts';

export interface ReconcilerOptions {
  db: Db;
  boss: PgBoss;
  pipeline: Pipeline;
  transport: Transport;
  logger: Logger;
  /** Where the sweep and the resync, which fail at every run while the database is away, say so. */
  duties: RepeatedFailures;
  mode: Mode;
  /** How often this Hub looks for expired leases. */
  sweepEveryMs: number;
  /** How often this Hub, when no other is at it, queues a pass for every node whose intents want an attempt. */
  resyncEveryMs: number;
  /** How long boot reclassification waits for another Hub's (BOOT_LOCK_WAIT_MS). */
  bootLockWaitMs: number;
  onLeasesExpired(count: number): void;
  /** A resync's pass queued attempts: no pass had taken that work, though one was asked for (or it was cut by a crash). */
  onResyncFound(nodeId: string, attemptsQueued: number): void;
}

export interface Reconciler {
  /** Runs one node's reconciliation now (the reconcile job's body). */
  reconcile(nodeId: string, correlationId: string): Promise<number>;
  /**
   * Reconciles nodes right after a change that asked for it, instead of waiting for the job worker: the
   * reconcile jobs the change enqueued stay the backstop (a failure here is logged) and find the work done.
   */
  reconcileNow(nodeIds: readonly string[], correlationId: string): Promise<void>;
  /** Marks every expired lease ambiguous; returns how many. */
  sweep(): Promise<number>;
  /** Queues a pass for every node whose intents want an attempt, unless another Hub is at it; returns how many (null: skipped). */
  resync(): Promise<number | null>;
  stop(): Promise<void>;
}

const SWEEP_FAILED: Duty = { name: 'lease_sweep', failed: 'lease sweep failed' };
const RESYNC_FAILED: Duty = { name: 'resync', failed: 'resync failed' };

const worker = (correlationId: string): Actor => ({ principal: 'hub', role: 'system', source: 'worker', correlationId });

/**
 * How long a starting Hub waits for another's boot reclassification before it runs its own anyway: boot's
 * work is safe to run twice (expired leases are taken with SKIP LOCKED, a node keeps one queued pass), and the
 * holder may be a Hub frozen mid-boot, whose session keeps the lock for as long as its kernel answers.
 */
export const BOOT_LOCK_WAIT_MS = 10_000;
const BOOT_LOCK_POLL_MS = 250;
/** The correlation id of the resync's passes, by which their worker tells them from the others. */
const RESYNC = 'resync';

/** How often a Hub sweeps expired leases unless told otherwise: a lease is made ambiguous within this of its expiry. */
export const LEASE_SWEEP_EVERY_MS = 1000;

/**
 * How often the Hubs resync unless told otherwise: the bound on how long an intent that wants an attempt can
 * wait for a pass that was asked for and lost (docs/decisions.md, "Reconciliation", "The resync").
 */
export const RESYNC_EVERY_MS = 60_000;

/**
 * The Hub's reconciliation workers: the reconcile queue (one job per node at a time), the lease sweeper,
 * boot reclassification, run once at start by one Hub at a time, and the resync.
 */
export async function startReconciler(options: ReconcilerOptions): Promise<Reconciler> {
  const { boss, pipeline, transport, logger } = options;

  async function reconcile(nodeId: string, correlationId: string): Promise<number> {
    const outcome = await pipeline.run(worker(correlationId), reconcileNode(nodeId, options.mode));
    if (!outcome.ok) return 0;
    // Wake the node's long poll, wherever it is held, for new attempts and for ones it may now take.
    if (outcome.value.result.deliverable > 0) await transport.offer([nodeId]);
    return outcome.value.result.queued;
  }

  async function reconcileNow(nodeIds: readonly string[], correlationId: string): Promise<void> {
    await Promise.all(
      nodeIds.map((nodeId) =>
        reconcile(nodeId, correlationId).catch((error: unknown) => logFailure(logger, 'reconcile after write failed; its job will retry', error, { node_id: nodeId })),
      ),
    );
  }

  async function sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const outcome = await pipeline.run(worker(`sweep-${Date.now()}`), expireLeases());
      const expired = outcome.ok ? outcome.value.result.expired : 0;
      total += expired;
      if (expired > 0) options.onLeasesExpired(expired);
      if (expired < 500) return total;
    }
  }

  /** Queues a pass for each node, in one insert: a job already queued for a node stands for it (`stately`). */
  async function queuePasses(nodeIds: readonly string[], correlationId: string): Promise<void> {
    if (nodeIds.length === 0) return;
    await boss.insert(
      RECONCILE_QUEUE,
      nodeIds.map((nodeId) => {
        const job = reconcileJob(nodeId);
        return { ...job.options, data: { ...job.data, correlation_id: correlationId } };
      }),
    );
  }

  /**
   * The nodes with intents that want an attempt their node's mode lets the Hub send (SPEC B2): a fleet left in
   * `observe`, whose intents wait by design, is not passed again every minute for nothing.
   */
  async function nodesToResync(db: Db): Promise<string[]> {
    const { mode } = await globalModeSetting(db, options.mode);
    const letting = (kind: 'lifecycle' | 'configuration') => literals(MODES.filter((m) => modeDispatches(m, kind)));
    const rows = await db
      .selectFrom('intents as i')
      .innerJoin('nodes as n', 'n.node_id', 'i.node_id')
      .select('i.node_id')
      .distinct()
      // A retry has a job of its own at its time: it counts here only once overdue by a whole interval.
      .where((eb) =>
        eb.or([
          eb('i.state', '=', 'pending'),
          eb.and([eb('i.state', '=', 'retrying'), eb('i.next_retry_at', '<', sql<Date>`now() - make_interval(secs => ${options.resyncEveryMs / 1000})`)]),
        ]),
      )
      .where((eb) =>
        eb.or(
          (['lifecycle', 'configuration'] as const).map((kind) =>
            eb.and([eb('i.kind', '=', kind), eb(sql`coalesce(n.mode_override, ${mode})`, 'in', letting(kind))]),
          ),
        ),
      )
      .execute();
    return rows.map((r) => r.node_id);
  }

  async function resync(): Promise<number | null> {
    return options.db.connection().execute(async (conn) => {
      const { rows } = await sql<{ locked: boolean }>`SELECT pg_try_advisory_lock(${ADVISORY_LOCKS.resync}) AS locked`.execute(conn);
      if (!rows[0]!.locked) return null;
      try {
        const nodes = await nodesToResync(conn);
        await queuePasses(nodes, RESYNC);
        return nodes.length;
      } finally {
        await sql`SELECT pg_advisory_unlock(${ADVISORY_LOCKS.resync})`.execute(conn);
      }
    });
  }

  await boot();

  for (const queue of RECONCILE_QUEUES) {
    // Full batches fetch again at once (a burst after many registrations drains in seconds, not minutes).
    // A batch's passes run together, so the pipeline group-commits them instead of one transaction each:
    // a rollout's batch queues up to 256 at once. Passes for one node serialize on its row lock. A pass of the
    // backstop queue first waits for the commands that asked for it to commit (barrierPassJob).
    await boss.work<{ node_id: string; correlation_id?: string }>(queue, { batchSize: 128, burstWhenBatchFull: true, ...jobPolling }, async (jobs) => {
      await Promise.all(
        jobs.map(async (job) => {
          if (queue === BACKSTOP_QUEUE) await passBarrier(options.db, queue, job.data.node_id);
          const queued = await reconcile(job.data.node_id, job.data.correlation_id ?? job.id);
          if (job.data.correlation_id === RESYNC && queued > 0) options.onResyncFound(job.data.node_id, queued);
        }),
      );
    });
  }

  const timer = setInterval(() => {
    sweep().then(
      () => options.duties.succeeded(SWEEP_FAILED),
      (error: unknown) => options.duties.failed(SWEEP_FAILED, error),
    );
  }, options.sweepEveryMs);
  // Level-triggered, as a controller's resync: a pass asked for while the node's pass was queued, and which that
  // queued pass then ran too early to see, is not lost for longer than this.
  const resyncTimer = setInterval(() => {
    resync().then(
      () => options.duties.succeeded(RESYNC_FAILED),
      (error: unknown) => options.duties.failed(RESYNC_FAILED, error),
    );
  }, options.resyncEveryMs);

  /**
   * SPEC C6: after a restart, attempts whose lease ran out while no Hub was watching become ambiguous
   * (never sent again), and every node with intents that want an attempt, or with attempts queued and not yet
   * delivered, is reconciled again: the pass offers queued attempts to the node's channel, which for a pushed
   * node is the only way they leave.
   */
  async function boot(): Promise<void> {
    await options.db.connection().execute(async (conn) => {
      const locked = await takeBootLock(conn);
      try {
        const expired = await sweep();
        const nodes = await nodesWithWork(conn);
        await queuePasses(nodes, 'boot');
        logger.info('boot reclassification', { expired_leases: expired, nodes_to_reconcile: nodes.length });
      } finally {
        if (locked) await sql`SELECT pg_advisory_unlock(${ADVISORY_LOCKS.boot})`.execute(conn);
      }
    });
  }

  /**
   * Takes the boot lock, waiting at most `bootLockWaitMs` for another Hub's boot (said once, naming its
   * session); answers whether it was taken. Not taken, boot goes on without it (BOOT_LOCK_WAIT_MS).
   */
  async function takeBootLock(conn: Db): Promise<boolean> {
    const tryLock = async () => (await sql<{ locked: boolean }>`SELECT pg_try_advisory_lock(${ADVISORY_LOCKS.boot}) AS locked`.execute(conn)).rows[0]!.locked;
    if (await tryLock()) return true;
    const { rows } = await conn.executeQuery<LockHolder>(CompiledQuery.raw(LOCK_HOLDER_SQL, [ADVISORY_LOCKS.boot]));
    const holder = rows[0];
    if (holder) {
      logger.warn('waiting for another session\'s boot reclassification', {
        wait_ms: options.bootLockWaitMs,
        holder_pid: holder.pid,
        holder_application: holder.application,
        holder_client: holder.client,
        holder_state: holder.state,
      });
    }
    const until = Date.now() + options.bootLockWaitMs;
    while (Date.now() < until) {
      await sleep(BOOT_LOCK_POLL_MS);
      if (await tryLock()) return true;
    }
    logger.warn('boot reclassification runs without the lock: its holder kept it past the wait', { wait_ms: options.bootLockWaitMs, holder_pid: holder?.pid ?? null });
    return false;
  }

  return {
    reconcile,
    reconcileNow,
    sweep,
    resync,
    async stop() {
      clearInterval(timer);
      clearInterval(resyncTimer);
      for (const queue of RECONCILE_QUEUES) await boss.offWork(queue).catch(() => {});
    },
  };
}
