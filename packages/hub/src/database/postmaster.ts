import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Who holds an embedded cluster: the server named by PostgreSQL's lock file (`postmaster.pid`), and whether
 * the process that started it still runs.
 *
 * A server Fleetplane starts carries its owner's pid on its own command line (`-c fleetplane.owner_pid=N`,
 * visible to `ps`), and stays that process's child. While the owner lives it is the server's parent; once
 * it dies (SIGKILL), the server is re-parented to init or a subreaper and can never become that pid's child
 * again, even if the pid is reused. So "parent == recorded owner" tells a live owner from a dead one
 * without a pid file that could go stale.
 */
export type ClusterHolder =
  /** No server runs on the cluster (no lock file, or its process is gone). */
  | { state: 'free' }
  /** A server Fleetplane started, whose owner still runs: nobody but that owner stops it. */
  | { state: 'owned'; pid: number; port: number; owner: number }
  /** A server Fleetplane started, whose owner is gone (killed with SIGKILL): the next Hub stops it. */
  | { state: 'orphaned'; pid: number; port: number; owner: number }
  /** The lock file names a live process that is no server Fleetplane started on this cluster. */
  | { state: 'foreign'; pid: number };

/** The setting that names a server's owner; PostgreSQL accepts any two-part name on its command line. */
const OWNER = 'fleetplane.owner_pid';
export const ownerSetting = (pid: number) => `${OWNER}=${pid}`;

export async function clusterHolder(clusterDir: string): Promise<ClusterHolder> {
  let lines: string[];
  try {
    lines = (await readFile(join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return { state: 'free' };
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0) return { state: 'free' };
  const info = await processInfo(pid);
  if (info === null) return { state: 'free' };
  // A reused pid, or a server someone else started on this directory: never ours to signal.
  const owner = info.argv.find((arg) => arg.startsWith(`${OWNER}=`));
  if (owner === undefined || info.argv[info.argv.indexOf('-D') + 1] !== clusterDir) return { state: 'foreign', pid };
  const ownerPid = Number(owner.slice(OWNER.length + 1));
  return { state: info.parent === ownerPid ? 'owned' : 'orphaned', pid, port, owner: ownerPid };
}

/** A live process's parent and arguments; null when it is gone. */
function processInfo(pid: number): Promise<{ parent: number; argv: string[] } | null> {
  return process.platform === 'linux' ? fromProc(pid) : fromPs(pid);
}

async function fromProc(pid: number): Promise<{ parent: number; argv: string[] } | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8');
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return { parent, argv: cmdline.split('\0').slice(0, -1) };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Without /proc (macOS): ps, whose arguments come joined by spaces (a path with spaces then matches nothing). */
function fromPs(pid: number): Promise<{ parent: number; argv: string[] } | null> {
  return new Promise((resolve) => {
    execFile('ps', ['-o', 'ppid=,command=', '-p', String(pid)], (error, stdout) => {
      const fields = stdout.trim().split(/\s+/);
      resolve(error || fields.length < 2 ? null : { parent: Number(fields[0]), argv: fields.slice(1) });
    });
  });
}
