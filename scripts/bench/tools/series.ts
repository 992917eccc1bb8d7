import { stop } from '../interruptible.ts';

/** A measurement accumulated over its slices: operations done, the seconds they took, each one's latency (ms). */
export interface Series {
  ops: number;
  seconds: number;
  latencies: number[];
}

export const newSeries = (): Series => ({ ops: 0, seconds: 0, latencies: [] });

/** Operations per second over the series' slices. */
export const perSecond = (s: Series): number => s.ops / s.seconds;

/**
 * One slice: `clients` loops each running `op` one at a time until `ms` have passed (or Ctrl-C), added
 * to `into`. The slice lasts from its start to its last operation's end.
 */
export async function slice(op: (client: number) => Promise<void>, clients: number, ms: number, into: Series): Promise<void> {
  const start = performance.now();
  const deadline = start + ms;
  const counts = await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      let n = 0;
      for (let t = performance.now(); t < deadline && !stop.requested; n++) {
        await op(c);
        const done = performance.now();
        into.latencies.push(done - t);
        t = done;
      }
      return n;
    }),
  );
  into.ops += counts.reduce((a, b) => a + b, 0);
  into.seconds += (performance.now() - start) / 1000;
}
