import type pg from 'pg';

/**
 * The database's preparation, one Hub at a time: the migrations (migrate.ts), and pg-boss's schema and queues
 * (jobs/boss.ts, installJobQueues). Hubs starting together take turns; the later ones find nothing to do.
 */
export const PREPARE_LOCK_KEY = 7_261_001;

/** The session holding the preparation lock, as pg_stat_activity shows it: enough for an operator to find it. */
export interface LockHolder {
  pid: number;
  application: string;
  client: string | null;
  state: string | null;
  query: string | null;
}

/** Told when the lock is held by another session, before waiting for it. */
export type OnLockWait = (holder: LockHolder) => void;

/**
 * Takes the preparation lock for `client`'s session, waiting as long as its holder keeps it (a migration may
 * take minutes). Before waiting, `onWait` is told who holds it: a Hub or `fleetplane migrate` waiting in
 * silence looked hung, and the holder may be a session that never lets go (a frozen process).
 */
export async function takePrepareLock(client: pg.ClientBase, onWait?: OnLockWait): Promise<void> {
  const { rows } = await client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock($1) AS taken', [PREPARE_LOCK_KEY]);
  if (rows[0]!.taken) return;
  const holder = await client.query<LockHolder>(
    `SELECT a.pid, a.application_name AS application, a.client_addr::text AS client, a.state, a.query
       FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND ((l.classid::bigint << 32) | l.objid::bigint) = $1 AND l.objsubid = 1`,
    [PREPARE_LOCK_KEY],
  );
  // Released meanwhile: the wait below is short, and there is no one to name.
  if (holder.rows[0]) onWait?.(holder.rows[0]);
  await client.query('SELECT pg_advisory_lock($1)', [PREPARE_LOCK_KEY]);
}

/** One line naming the holder, for a terminal. */
export function describeHolder(holder: LockHolder): string {
  const from = holder.client === null ? '' : ` from ${holder.client}`;
  return `pid ${holder.pid} (${holder.application || 'no application name'}${from}, ${holder.state ?? 'state unknown'})`;
}
