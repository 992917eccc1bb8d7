import type { DatabaseSettings } from '../config.ts';
import type { Logger } from '../logger.ts';
import { runningEmbedded, startEmbedded } from './embedded.ts';

export interface OpenedServer {
  url: string;
  /** Stops the embedded server, if this process started one. */
  close(): Promise<void>;
}

/**
 * DATABASE_URL when set; otherwise the embedded PostgreSQL 17 with its data under FLEETPLANE_DATA_DIR, and
 * `onDied` is told if it ends without being stopped.
 */
export async function openServer(config: DatabaseSettings, logger: Logger, onDied?: (how: string) => void): Promise<OpenedServer> {
  if (config.databaseUrl !== null) return { url: config.databaseUrl, close: async () => {} };
  logger.info('starting embedded PostgreSQL', { data_dir: config.dataDir, port: config.embeddedPort });
  const embedded = await startEmbedded({
    dataDir: config.dataDir,
    port: config.embeddedPort,
    persistent: true,
    onLog: (line) => logger.debug('postgres', { line: line.trim() }),
    ...(onDied ? { onDied } : {}),
  });
  return { url: embedded.url('postgres'), close: () => embedded.stop() };
}

/**
 * For a command on the database (verify, replay, migrate): the embedded server already running on the data
 * directory, a Hub's or one a killed Hub left, used as it is and left running; else one started for the
 * command and stopped after it.
 */
export async function openServerForCommand(config: DatabaseSettings, logger: Logger): Promise<OpenedServer> {
  const running = config.databaseUrl === null ? await runningEmbedded(config.dataDir) : null;
  if (running === null) return openServer(config, logger);
  logger.info('using the embedded PostgreSQL running on the data directory', { data_dir: config.dataDir, pid: running.pid });
  return { url: running.url('postgres'), close: async () => {} };
}
