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
 */
export async function verifyChain(db: Kysely<Tables>, streamId?: string): Promise<ChainProblem[]> {
  const filter = streamId === undefined ? sql`` : sql`WHERE stream_id = ${streamId}`;
  const { rows } = await sql<ChainProblem>`
    SELECT stream_id, stream_version, position,
      CASE WHEN stream_version <> expected_version THEN 'version_gap' ELSE 'hash_mismatch' END AS problem
    FROM (
      SELECT stream_id, stream_version, position, hash,
        -- the predecessor's version + 1, not row_number(): one deleted event is one gap, not a gap on every later event
        coalesce(lag(stream_version) OVER w, 0) + 1 AS expected_version,
        event_hash(lag(hash) OVER w, stream_id, stream_version, event_id, type, schema_version, data,
          event_metadata(metadata, correlation_id), recorded_at) AS recomputed
      FROM events ${filter}
      WINDOW w AS (PARTITION BY stream_id ORDER BY stream_version)
    ) chain
    WHERE stream_version <> expected_version OR hash <> recomputed
    ORDER BY stream_id, stream_version`.execute(db);
  return rows;
}
