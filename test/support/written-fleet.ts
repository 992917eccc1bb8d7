import { sql, type Kysely } from 'kysely';

/** A fleet written for the planner: `size` nodes named `prefix-n`, each with one stream's intent and its attempt in the given states. */
export interface WrittenFleet {
  prefix: string;
  size: number;
  intentState: string;
  attemptState: string;
}

/**
 * What the planner knows of a fleet: its nodes, one lifecycle intent and one start attempt each, written
 * straight into the tables and analysed (statistics are what choose a plan). The log holds no events for
 * them: `forgetFleet` takes them out before the suite checks that it rebuilds the tables.
 */
export async function writeFleet(db: Kysely<any>, { prefix, size, intentState, attemptState }: WrittenFleet): Promise<void> {
  await sql`INSERT INTO nodes (node_id, boot_id, last_seen_at, registered_at, updated_at)
    SELECT ${prefix} || '-' || n, 'boot-1', now(), now(), now() FROM generate_series(1, ${size}) AS n`.execute(db);
  await sql`INSERT INTO intents (intent_id, kind, stream_id, node_id, generation, desired_state, state, correlation_id, created_at, updated_at)
    SELECT ${prefix} || '-i-' || n, 'lifecycle', ${prefix} || '-s-' || n, ${prefix} || '-' || n, 1, 'running', ${intentState}, 'c', now(), now()
    FROM generate_series(1, ${size}) AS n`.execute(db);
  await sql`INSERT INTO attempts (attempt_id, intent_id, node_id, stream_id, generation, operation, spec, state, correlation_id, created_at)
    SELECT ${prefix} || '-a-' || n, ${prefix} || '-i-' || n, ${prefix} || '-' || n, ${prefix} || '-s-' || n, 1, 'start', '{}', ${attemptState}, 'c', now()
    FROM generate_series(1, ${size}) AS n`.execute(db);
  await sql`ANALYZE nodes, intents, attempts`.execute(db);
}

/**
 * Takes out what writeFleet wrote, on one connection whose scans are reported at once: a test that counts
 * the server's scans of these tables afterwards does not see these deletes' scans arrive late.
 */
export async function forgetFleet(db: Kysely<any>, prefix: string): Promise<void> {
  await db.connection().execute(async (c) => {
    await sql`DELETE FROM attempts WHERE attempt_id LIKE ${`${prefix}-a-%`}`.execute(c);
    await sql`DELETE FROM intents WHERE intent_id LIKE ${`${prefix}-i-%`}`.execute(c);
    await sql`DELETE FROM nodes WHERE node_id LIKE ${`${prefix}-%`}`.execute(c);
    await sql`SELECT pg_stat_force_next_flush()`.execute(c);
  });
}
