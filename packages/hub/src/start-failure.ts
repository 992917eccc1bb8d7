import { MigrationRefused } from './database/migrate.ts';
import { databaseUnavailability, UNAVAILABLE_SAYS } from './database/unavailable.ts';

/**
 * A mistake in how the Hub is configured (an environment variable, the configuration file, a file it names,
 * the TLS pair): its message says what and where. Refused at start with exit code 2, as a restart alone
 * cannot mend it; on SIGHUP the running configuration stays.
 */
export class ConfigError extends Error {}

/**
 * What the Hub needs where it starts is taken or away: its port, its data directory's server. Refused at
 * start with exit code 1: it may pass (a supervisor restarts the Hub).
 */
export class EnvironmentError extends Error {}

/** Exit codes of `npm start` (README, "Running the Hub"). */
export const EXIT = { failed: 1, misconfigured: 2 } as const;

/**
 * How a start that failed ends: an operator's mistake or an environment not ready is one line naming it, no
 * stack (nothing in the Hub is wrong); null for anything else, which is logged with its stack.
 */
export function startRefusal(error: unknown): { line: string; exitCode: number } | null {
  if (error instanceof ConfigError) return { line: error.message, exitCode: EXIT.misconfigured };
  if (error instanceof EnvironmentError || error instanceof MigrationRefused) return { line: error.message, exitCode: EXIT.failed };
  const unavailable = databaseUnavailability(error);
  if (unavailable === 'unreachable') return { line: `the database cannot be reached: ${(error as Error).message}`, exitCode: EXIT.failed };
  if (unavailable) return { line: `the database ${UNAVAILABLE_SAYS[unavailable]}: ${(error as Error).message}`, exitCode: EXIT.failed };
  return null;
}
