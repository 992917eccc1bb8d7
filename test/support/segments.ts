import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../packages/hub/src/database/tables.ts';
import { keepSegmentsAhead, listSegments, SEGMENT_BOUNDS } from '../../packages/hub/src/event-store/segments.ts';

/**
 * Replaces a fresh database's first segments (100,000 positions each, made by migration 0010) with segments
 * of `size` positions, so that a test's few hundred events fill several. Only on a log without events.
 */
export async function useSmallSegments(db: Kysely<Tables>, size: number, ahead = 3): Promise<void> {
  for (const s of await listSegments(db)) {
    if (!s.ahead) throw new Error(`segment ${s.name} is not empty`);
    await sql`ALTER TABLE events DETACH PARTITION ${sql.table(s.name)}`.execute(db);
    await sql`DROP TABLE ${sql.table(s.name)}`.execute(db);
  }
  for (let i = 0; i < ahead; i++) await sql`SELECT add_events_partition(${1 + i * size}::bigint, ${1 + (i + 1) * size}::bigint)`.execute(db);
}

/**
 * Moves the position sequence to the end of the segment being written, as a log that filled it would, so that
 * segment closes once its writers are done and the next append begins the next one; and keeps segments ahead,
 * as a Hub does.
 */
export async function closeCurrentSegment(db: Kysely<Tables>): Promise<void> {
  const segments = await listSegments(db);
  const { rows } = await sql<{ handed: number }>`SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END AS handed FROM events_position_seq`.execute(db);
  const current = segments.find((s) => s.from <= rows[0]!.handed + 1 && rows[0]!.handed + 1 < s.to)!;
  await sql`SELECT setval('events_position_seq', ${current.to - 1})`.execute(db);
  await keepSegmentsAhead(db, { ...SEGMENT_BOUNDS, durationMs: 3_600_000 }, new Date());
}
