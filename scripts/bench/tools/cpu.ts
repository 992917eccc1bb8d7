import { readdirSync, readFileSync } from 'node:fs';
import type pg from 'pg';

/**
 * CPU accounting from /proc (Linux): on-CPU time from schedstat, per thread of this process and of the
 * benchmark's other processes, per PostgreSQL session by role, and the whole machine's busy time. Elsewhere,
 * or where PostgreSQL's processes are not visible (an external server), those parts read zero and
 * `pgVisible` says so.
 */

/** PostgreSQL's parts: the Hub's sessions, pg-boss and the attempt channel's, the server's own processes. */
export const PG_PARTS = ['pgHub', 'pgJobs', 'pgBackground'] as const;
type PgPart = (typeof PG_PARTS)[number];

/** Seconds on CPU per part over the measured spans, the spans' length, and whether PostgreSQL was visible. */
export type CpuTotals<P extends string> = Record<P | PgPart | 'machine', number> & { seconds: number; pgVisible: boolean };

/** Who the benchmark's own CPU time belongs to. */
export interface CpuOwners<P extends string> {
  /** The part a thread of this process counts to, by its name (`MainThread`, a worker's name, libuv's). */
  thread(name: string): P;
  /** The benchmark's other processes, each counted whole to one part. */
  processes?: ReadonlyArray<{ pid: number; part: P }>;
}

export interface CpuSnapshot<P extends string> {
  at: number;
  /** On-CPU nanoseconds by `pid/tid`. */
  threads: Map<string, { part: P | PgPart; ns: number }>;
  pgVisible: boolean;
  machineNs: number;
}

export function emptyCpu<P extends string>(parts: readonly P[]): CpuTotals<P> {
  const zero = Object.fromEntries([...parts, ...PG_PARTS, 'machine'].map((p) => [p, 0])) as Record<P | PgPart | 'machine', number>;
  return { ...zero, seconds: 0, pgVisible: true };
}

/** Adds the span from `a` to `b` to `into`. */
export function addCpu<P extends string>(into: CpuTotals<P>, a: CpuSnapshot<P>, b: CpuSnapshot<P>): void {
  into.seconds += (b.at - a.at) / 1000;
  const parts = into as unknown as Record<string, number>;
  for (const [key, t] of b.threads) parts[t.part] = (parts[t.part] ?? 0) + (t.ns - (a.threads.get(key)?.ns ?? 0)) / 1e9;
  into.pgVisible &&= a.pgVisible && b.pgVisible;
  into.machine += (b.machineNs - a.machineNs) / 1e9;
}

/** The CPU time so far of every part; `pool` is a benchmark's own pool on the database (its sessions are not counted). */
export async function cpuSnapshot<P extends string>(pool: pg.Pool, owners: CpuOwners<P>): Promise<CpuSnapshot<P>> {
  const threads: CpuSnapshot<P>['threads'] = new Map();
  addThreads('self', owners.thread, threads);
  for (const p of owners.processes ?? []) addThreads(String(p.pid), () => p.part, threads);
  const { rows } = await pool.query<{ pid: number; application_name: string; backend_type: string }>(
    `SELECT pid, application_name, backend_type FROM pg_stat_activity`,
  );
  let pgVisible = true;
  for (const r of rows) {
    // A pid of a server elsewhere (another host, a container) may name another process here, or none.
    if (readText(`/proc/${r.pid}/comm`) !== 'postgres') {
      pgVisible = false;
      break;
    }
    const part = pgPart(r.backend_type, r.application_name);
    const ns = onCpuNs(`/proc/${r.pid}/schedstat`);
    if (part && ns !== null) threads.set(String(r.pid), { part, ns });
  }
  return { at: performance.now(), threads, pgVisible, machineNs: machineBusyNs() };
}

/** A session's part by its role; null for the benchmark's own sessions. */
function pgPart(backendType: string, applicationName: string): PgPart | null {
  if (backendType !== 'client backend') return 'pgBackground';
  if (applicationName === 'fleetplane-hub') return 'pgHub';
  if (applicationName === 'fleetplane-jobs' || applicationName === 'fleetplane-attempts') return 'pgJobs';
  return null;
}

function addThreads<P extends string>(pid: string, part: (name: string) => P, into: CpuSnapshot<P>['threads']): void {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return; // gone, or not Linux
  }
  for (const tid of tids) {
    const name = readText(`/proc/${pid}/task/${tid}/comm`);
    const ns = onCpuNs(`/proc/${pid}/task/${tid}/schedstat`);
    if (name !== null && ns !== null) into.set(`${pid}/${tid}`, { part: part(name), ns });
  }
}

/** The machine's busy time: user, nice, system, irq and softirq from /proc/stat (USER_HZ, 100 a second). */
function machineBusyNs(): number {
  const line = readText('/proc/stat')?.split('\n')[0];
  if (!line) return 0;
  const f = line.split(/\s+/).slice(1).map(Number);
  return (f[0]! + f[1]! + f[2]! + f[5]! + f[6]!) * 1e7;
}

function onCpuNs(path: string): number | null {
  const text = readText(path);
  return text === null ? null : Number(text.split(' ')[0]);
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return null;
  }
}
