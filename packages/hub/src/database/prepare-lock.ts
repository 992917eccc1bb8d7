import type pg from 'pg';
import { ADVISORY_LOCKS, LOCK_HOLDER_SQL, type LockHolder } from './advisory-locks.ts';

/**
 * The database's preparation, one Hub at a time: the migrations (migrate.ts), and pg-boss's schema and queues
 * (jobs/boss.ts, installJobQueues), under ADVISORY_LOCKS.prepare. Hubs starting together take turns; the later
 * ones find nothing to do.
 */
const KEY = ADVISORY_LOCKS.prepare;

/** Told when the lock is held by another session, before waiting for it. */
export type OnLockWait = (holder: LockHolder) => void;

/**
 * Takes the preparation lock for `client`'s session, waiting as long as its holder keeps it (a migration may
 * take minutes). Before waiting, `onWait` is told who holds it: a Hub or `fleetplane migrate` waiting in
 * silence looked hung, and the holder may be a session that never lets go (a frozen process).
 */
export async function takePrepareLock(client: pg.ClientBase, onWait?: OnLockWait): Promise<void> {
  const { rows } = await client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock($1) AS taken', [KEY]);
  if (rows[0]!.taken) return;
  const holder = await client.query<LockHolder>(LOCK_HOLDER_SQL, [KEY]);
  // Released meanwhile: the wait below is short, and there is no one to name.
  if (holder.rows[0]) onWait?.(holder.rows[0]);
  await client.query('SELECT pg_advisory_lock($1)', [KEY]);
}

/** One line naming the holder, for a terminal. */
export function describeHolder(holder: LockHolder): string {
  const from = holder.client === null ? '' : ` from ${holder.client}`;
  return `pid ${holder.pid} (${holder.application || 'no application name'}${from}, ${holder.state ?? 'state unknown'})`;
}
