import { readdirSync, readFileSync } from 'node:fs';

/**
 * What the process executor puts in each child's environment, so that a child it started can be found again
 * without its pid: an agent killed between spawning a child and saving its pid leaves one running that no
 * state file names.
 */
export const CHILD_ENV = { stateDir: 'FLEETPLANE_STATE_DIR', stream: 'FLEETPLANE_STREAM_ID', generation: 'FLEETPLANE_GENERATION' } as const;

export const childEnv = (stateDir: string, streamId: string, generation: number): Record<string, string> => ({
  [CHILD_ENV.stateDir]: stateDir,
  [CHILD_ENV.stream]: streamId,
  [CHILD_ENV.generation]: String(generation),
});

/** A child of an executor on `stateDir`, as /proc shows it. */
export interface FoundChild {
  pid: number;
  /** Kernel start time (clock ticks since boot), as the executor records it. */
  startTime: string;
  streamId: string;
  generation: number;
}

/**
 * Every live process group leader (the executor starts each child as one) whose environment names `stateDir`:
 * a child's own children inherit the environment but not the leadership, so each stream's child is found
 * once. Only the agent's user's processes are readable, which are the only ones it may have started. Empty
 * without /proc.
 */
export function childrenOf(stateDir: string): FoundChild[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const found: FoundChild[] = [];
  for (const name of pids) {
    const child = childAt(Number(name), stateDir);
    if (child !== null) found.push(child);
  }
  return found;
}

function childAt(pid: number, stateDir: string): FoundChild | null {
  let environ: string;
  try {
    environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
  } catch {
    return null; // gone, or another user's
  }
  const env = new Map(environ.split('\0').map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
  const streamId = env.get(CHILD_ENV.stream);
  const generation = Number(env.get(CHILD_ENV.generation));
  if (env.get(CHILD_ENV.stateDir) !== stateDir || streamId === undefined || !Number.isSafeInteger(generation)) return null;
  const stat = procStat(pid);
  if (stat === null || stat.state === 'Z' || stat.state === 'X' || stat.group !== pid) return null;
  return { pid, startTime: stat.startTime, streamId, generation };
}

/** `/proc/<pid>/stat`: process state letter, process group and start time (in clock ticks since boot). */
export function procStat(pid: number): { state: string; group: number; startTime: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "(comm) ": state, ppid, pgrp, …, start time (the 20th).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', group: Number(fields[2]), startTime: fields[19] ?? '' };
  } catch {
    return null;
  }
}
