import { sql, type Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';

/**
 * How long detaching or dropping a segment waits for a lock before giving up until the next run: a long
 * transaction reading the log (a verify, a replay) is never cancelled for it, and appends never wait behind it.
 */
const LOCK_TIMEOUT = '5s';

/**
 * Detaches an archived segment's partition from `events` and drops it. DETACH PARTITION … CONCURRENTLY takes
 * only a SHARE UPDATE EXCLUSIVE lock on `events`, so appends and reads go on; it commits in two steps, and
 * one interrupted in between (a crash, the lock timeout while it waits for older readers) leaves the partition
 * "pending detach", which this finishes (FINALIZE). A partition detached and not yet dropped is dropped.
 * `afterDetach` runs between the two.
 */
export async function dropSegment(db: Kysely<Tables>, name: string, afterDetach: () => Promise<void> | void = () => {}): Promise<void> {
  await db.connection().execute(async (conn) => {
    await sql`SELECT set_config('lock_timeout', ${LOCK_TIMEOUT}, false)`.execute(conn);
    try {
      const { rows } = await sql<{ pending: boolean }>`
        SELECT inhdetachpending AS pending FROM pg_inherits WHERE inhrelid = to_regclass(${name}) AND inhparent = 'events'::regclass`.execute(conn);
      const attached = rows[0];
      if (attached?.pending === false) await sql`ALTER TABLE events DETACH PARTITION ${sql.table(name)} CONCURRENTLY`.execute(conn);
      if (attached?.pending === true) await sql`ALTER TABLE events DETACH PARTITION ${sql.table(name)} FINALIZE`.execute(conn);
      await afterDetach();
      await sql`DROP TABLE IF EXISTS ${sql.table(name)}`.execute(conn);
    } finally {
      await sql`RESET lock_timeout`.execute(conn).catch(() => {});
    }
  });
}

/**
 * Segments detached from `events` but not dropped (a crash between the two) whose every event is archived:
 * positions up to `lastArchived`. Named like a segment, in the schema of `events`, and no longer its partition.
 */
export async function detachedArchivedSegments(db: Kysely<Tables>, lastArchived: number): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    SELECT c.relname AS name FROM pg_class c
    WHERE c.relnamespace = (SELECT relnamespace FROM pg_class WHERE oid = 'events'::regclass)
      AND c.relkind = 'r' AND c.relname ~ '^events_[0-9]{19}$' AND substr(c.relname, 8)::bigint <= ${lastArchived}
      AND NOT EXISTS (SELECT FROM pg_inherits i WHERE i.inhrelid = c.oid)
    ORDER BY c.relname`.execute(db);
  const archived: string[] = [];
  for (const { name } of rows) {
    const { rows: last } = await sql<{ position: number | null }>`SELECT max(position) AS position FROM ${sql.table(name)}`.execute(db);
    if ((last[0]?.position ?? 0) <= lastArchived) archived.push(name);
  }
  return archived;
}
