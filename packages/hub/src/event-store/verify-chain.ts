import { sql, type Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';

export interface ChainProblem {
  stream_id: string;
  stream_version: number;
  position: number;
  /** hash_mismatch: the stored hash is not the one recomputed from the event and its predecessor's stored hash. */
  problem: 'hash_mismatch' | 'version_gap';
}

/**
 * Recomputes every event's hash from its fields and its predecessor's stored hash (an event stores no
 * prev_hash: the chain is the stored hashes themselves). Any edit, deletion or reordering of history shows up
 * as a problem on the first event it touches: an edited event, or the event after one whose hash was rewritten.
 *
 * Only the hot log is read: a stream whose first events are archived starts from its head at the end of the
 * archived history (`archived_heads`), and its events up to that head are the archive's to prove (`verify
 * --archive`), even while the partition holding them waits to be dropped. A stream never archived starts from
 * nothing.
 */
export async function verifyChain(db: Kysely<Tables>, streamId?: string): Promise<ChainProblem[]> {
  const filter = streamId === undefined ? sql`` : sql`AND e.stream_id = ${streamId}`;
  const { rows } = await sql<ChainProblem>`
    SELECT stream_id, stream_version, position,
      CASE WHEN stream_version <> expected_version THEN 'version_gap' ELSE 'hash_mismatch' END AS problem
    FROM (
      SELECT e.stream_id, e.stream_version, e.position, e.hash,
        -- the predecessor's version + 1, not row_number(): one deleted event is one gap, not a gap on every later event
        coalesce(lag(e.stream_version) OVER w, a.stream_version, 0) + 1 AS expected_version,
        -- the stored hash is never NULL, so a NULL lag is the stream's first hot event
        event_hash(coalesce(lag(e.hash) OVER w, a.hash), e.stream_id, e.stream_version, e.event_id, e.type, e.schema_version, e.data,
          event_metadata(e.metadata, e.correlation_id), e.recorded_at) AS recomputed
      FROM events e LEFT JOIN archived_heads a ON a.stream_id = e.stream_id
      WHERE e.position > coalesce(a.position, 0) ${filter}
      WINDOW w AS (PARTITION BY e.stream_id ORDER BY e.stream_version)
    ) chain
    WHERE stream_version <> expected_version OR hash <> recomputed
    ORDER BY stream_id, stream_version`.execute(db);
  return rows;
}
