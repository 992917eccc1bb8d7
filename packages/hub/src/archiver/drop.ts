import { sql, type Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';

/**
 * Detaches an archived segment's partition from `events` and drops it, through the owner's functions
 * `detach_archived_segment` and `drop_detached_segment` (migration 0014): the Hub's role owns no table, and
 * each function refuses a segment the log does not record archived. The detach is a plain DETACH, which
 * waits at most 1 s for its lock (appends wait behind it that long at most): a long reader makes it fail
 * and the next run tries again. A partition a concurrent detach left "pending detach" is finished
 * (FINALIZE); one detached and not yet dropped is dropped. `afterDetach` runs between the two.
 */
export async function dropSegment(db: Kysely<Tables>, name: string, afterDetach: () => Promise<void> | void = () => {}): Promise<void> {
  await sql`SELECT detach_archived_segment(${name})`.execute(db);
  await afterDetach();
  await sql`SELECT drop_detached_segment(${name})`.execute(db);
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
