import type pg from 'pg';
import { MigrationRefused, pendingMigrations } from '../database/migrate.ts';
import { CliError, EXIT } from './exit.ts';

/**
 * verify and replay derive the tables as this release does: on a database another release migrated, they
 * would report differences that are only the releases' (or none where the other release changed what is
 * derived), so they refuse it, naming the migrations that differ.
 */
export async function requireSameRelease(pool: pg.Pool): Promise<void> {
  let pending;
  try {
    pending = await pendingMigrations(pool);
  } catch (e) {
    if (e instanceof MigrationRefused && e.refusal.code === 'database_newer_than_code') {
      throw new CliError(EXIT.failed, `the database has migrations this release does not know (${e.refusal.versions.join(', ')}): run verify and replay of the release that migrated it`);
    }
    if (e instanceof MigrationRefused) throw new CliError(EXIT.failed, e.message);
    // A reader on a database before this release's grants: what it cannot read, it lacks.
    if ((e as { code?: string }).code === '42501') {
      throw new CliError(EXIT.failed, `cannot read which migrations the database has (${(e as Error).message}): run \`fleetplane migrate\` as its owner first`);
    }
    throw e;
  }
  if (pending.length > 0) {
    throw new CliError(EXIT.failed, `the database lacks migrations of this release (${pending.map((m) => m.version).join(', ')}): run \`fleetplane migrate\` as its owner first`);
  }
}
