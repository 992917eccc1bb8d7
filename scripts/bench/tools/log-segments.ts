import { sql } from 'kysely';
import { listSegments } from '../../../packages/hub/src/event-store/segments.ts';
import type { BenchDatabase } from '../database.ts';

/**
 * Drops the log's segments a fresh database has (the migration's, still empty, of the real floor of 100,000
 * events), so that a Hub started with smaller segment bounds sizes the first ones itself: a scenario whose
 * fleet appends fewer events than that in a segment's duration sees its segments close and leave.
 */
export async function dropFreshSegments(database: BenchDatabase): Promise<void> {
  const setup = database.connect(1);
  try {
    for (const s of await listSegments(setup.db)) {
      await sql`ALTER TABLE events DETACH PARTITION ${sql.table(s.name)}`.execute(setup.db);
      await sql`DROP TABLE ${sql.table(s.name)}`.execute(setup.db);
    }
  } finally {
    await setup.close();
  }
}
