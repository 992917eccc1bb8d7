/**
 * Every advisory lock Fleetplane takes with one bigint key, one key a purpose, so that no purpose waits on
 * another's holder: an archive run, which may take minutes, once shared its key with the mode's lock, which
 * every pass and lease takes. Locks of two int4 keys (the pass barrier's, the log's event ids) are a key
 * space of their own in PostgreSQL and are not listed here.
 *
 * A key in use by Hubs of an earlier version keeps its number, so that Hubs of both versions sharing a
 * database during an upgrade still take turns on it.
 */
export const ADVISORY_LOCKS = {
  /** The migrations and pg-boss's schema (prepare-lock.ts): Hubs starting together take turns. */
  prepare: 7_261_001,
  /** Adding the log's segments ahead (event-store/segments.ts): one Hub at a time, the others skip. */
  segments: 7_261_002,
  /** An archive run (archiver/archiver.ts): one Hub at a time, the others skip. */
  archive: 7_261_003,
  /** Boot reclassification (reconcile/reconciler.ts): one Hub at a time, a bounded wait. */
  boot: 7_261_004,
  /** The resync (reconcile/reconciler.ts): one Hub at a time, the others skip. */
  resync: 7_261_005,
  /** The global mode (reconcile/load.ts): a change waits for the commands acting under the mode, shared. */
  mode: 7_261_006,
} as const;

/** The session holding an advisory lock, as pg_stat_activity shows it: enough for an operator to find it. */
export interface LockHolder {
  pid: number;
  application: string;
  client: string | null;
  state: string | null;
  query: string | null;
}

/** The statement reading the holder of the one-key advisory lock `$1` in this database (no row: none). */
export const LOCK_HOLDER_SQL = `SELECT a.pid, a.application_name AS application, a.client_addr::text AS client, a.state, a.query
   FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
  WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND ((l.classid::bigint << 32) | l.objid::bigint) = $1 AND l.objsubid = 1`;
