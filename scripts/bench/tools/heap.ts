import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The process's memory at one moment: its RSS and the heap still live after a full garbage collection. */
export interface LiveMemory {
  rss: number;
  heap: number;
  /** The collection's pause, ms: the process stood still that long. */
  gcMs: number;
}

/**
 * Collects garbage fully, then reads the process's memory: the heap used between collections rises and falls
 * by tens of MB, so only the heap after a full collection compares from one moment of a run to another.
 */
export function liveMemory(): LiveMemory {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const t = performance.now();
  gc();
  const gcMs = performance.now() - t;
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed, gcMs };
}
