import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * BENCH_PROFILE=dir: a V8 CPU profile of this thread (the Hub's, in-process) over the spans between
 * `start` and `pause`, written as dir/<name>.cpuprofile (open it in Chrome DevTools or speedscope).
 * Samples outside the spans are dropped and the spans laid end to end, so a benchmark's raw slices and
 * set-up do not show.
 */
export interface Profiler {
  start(): Promise<void>;
  pause(): void;
  /** Stops profiling and writes the file; answers its path. */
  save(name: string): Promise<string>;
}

/** A profiler when BENCH_PROFILE is set, else null; `samplingUs`: the interval between samples. */
export async function profilerFromEnv(samplingUs: number): Promise<Profiler | null> {
  const dir = process.env.BENCH_PROFILE;
  if (!dir) return null;
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: samplingUs });
  // Profile times are microseconds of the monotonic clock, as process.hrtime.
  const now = () => Number(process.hrtime.bigint() / 1000n);
  const spans: Array<[number, number]> = [];
  let started = false;
  return {
    async start() {
      if (!started) {
        await session.post('Profiler.start');
        started = true;
      }
      spans.push([now(), Infinity]);
    },
    pause() {
      const last = spans.at(-1);
      if (last) last[1] = now();
    },
    async save(name) {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      const p = profile as unknown as { startTime: number; endTime: number; samples: number[]; timeDeltas: number[] };
      let t = p.startTime;
      const samples: number[] = [];
      const deltas: number[] = [];
      for (let i = 0; i < p.samples.length; i++) {
        const delta = p.timeDeltas[i]!;
        t += delta;
        if (!spans.some(([a, b]) => t >= a && t <= b)) continue;
        samples.push(p.samples[i]!);
        deltas.push(Math.min(delta, 10_000)); // the first sample after a gap
      }
      p.samples = samples;
      p.timeDeltas = deltas;
      p.endTime = p.startTime + deltas.reduce((a, b) => a + b, 0);
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `${name}.cpuprofile`);
      writeFileSync(file, JSON.stringify(p));
      return file;
    },
  };
}
