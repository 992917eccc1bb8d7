import { sql } from 'kysely';
import type { Db } from './connect.ts';

/** What the Hub asks of deadlock_timeout (the embedded server is started with it). */
export const DEADLOCK_TIMEOUT_MS = 100;

/**
 * A warning when the server breaks deadlocks later than the Hub expects, else null. Group commit can make two
 * shared transactions wait on each other; PostgreSQL aborts one after deadlock_timeout (default 1 s) and the
 * pipeline re-runs it, so that setting bounds how long such a wait holds up an operator's command.
 */
export async function deadlockTimeoutWarning(db: Db): Promise<string | null> {
  // pg_settings gives deadlock_timeout in milliseconds whatever unit it was set with.
  const { rows } = await sql<{ ms: number }>`SELECT setting::int AS ms FROM pg_settings WHERE name = 'deadlock_timeout'`.execute(db);
  const ms = rows[0]!.ms;
  if (ms <= DEADLOCK_TIMEOUT_MS) return null;
  return (
    `deadlock_timeout is ${ms} ms: a deadlock between two group-committed transactions holds them that long. ` +
    `Set it to ${DEADLOCK_TIMEOUT_MS} ms for the Hub's database, as a superuser: ` +
    `ALTER DATABASE <name> SET deadlock_timeout = '${DEADLOCK_TIMEOUT_MS}ms'`
  );
}
