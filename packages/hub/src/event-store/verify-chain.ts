import { sql, type Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';

export interface ChainProblem {
  stream_id: string;
  stream_version: number;
  position: number;
  problem: 'hash_mismatch' | 'broken_link' | 'version_gap';
}

/**
 * Recomputes every event's hash from its stored fields and its predecessor's hash. Any edit, deletion or
 * reordering of history shows up as a problem on the first event it touches.
 */
export async function verifyChain(db: Kysely<Tables>, streamId?: string): Promise<ChainProblem[]> {
  const filter = streamId === undefined ? sql`` : sql`WHERE stream_id = ${streamId}`;
  const { rows } = await sql<ChainProblem>`
    SELECT stream_id, stream_version, position,
      CASE
        WHEN stream_version <> expected_version THEN 'version_gap'
        WHEN prev_hash IS DISTINCT FROM previous THEN 'broken_link'
        ELSE 'hash_mismatch'
      END AS problem
    FROM (
      SELECT stream_id, stream_version, position, prev_hash, hash,
        -- the predecessor's version + 1, not row_number(): one deleted event is one gap, not a gap on every later event
        coalesce(lag(stream_version) OVER w, 0) + 1 AS expected_version,
        lag(hash) OVER w AS previous,
        event_hash(prev_hash, stream_id, stream_version, event_id, type, schema_version, data, metadata, recorded_at) AS recomputed
      FROM events ${filter}
      WINDOW w AS (PARTITION BY stream_id ORDER BY stream_version)
    ) chain
    WHERE stream_version <> expected_version OR prev_hash IS DISTINCT FROM previous OR hash <> recomputed
    ORDER BY stream_id, stream_version`.execute(db);
  return rows;
}
