/**
 * The seconds each measurement runs (BENCH_SECONDS, else `fallback`), or null after saying what is wrong:
 * benchmarks take no arguments.
 */
export function benchSeconds(name: string, args: string[], fallback: number, log: (line: string) => void): number | null {
  if (args.length > 0) {
    log(`${name} takes no arguments (got: ${args.join(' ')}); set BENCH_SECONDS to change the duration`);
    return null;
  }
  const seconds = Number(process.env.BENCH_SECONDS ?? fallback);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    log(`BENCH_SECONDS must be a positive number of seconds (got ${process.env.BENCH_SECONDS})`);
    return null;
  }
  return seconds;
}

/**
 * BENCH_SUSTAIN_MINUTES: a benchmark's longer mode, for that many minutes; null when unset, undefined
 * after saying what is wrong.
 */
export function sustainMinutes(log: (line: string) => void): number | null | undefined {
  const given = process.env.BENCH_SUSTAIN_MINUTES;
  if (given === undefined || given === '') return null;
  const minutes = Number(given);
  if (Number.isFinite(minutes) && minutes > 0) return minutes;
  log(`BENCH_SUSTAIN_MINUTES must be a positive number of minutes (got ${given})`);
  return undefined;
}

/**
 * A benchmark's size from the environment variable `name` (e.g. REPLAY_EVENTS), `fallback` when unset;
 * null after saying what is wrong. A smaller size is a quicker run, not the goal's measurement.
 */
export function sizeOption(name: string, fallback: number, least: number, log: (line: string) => void): number | null {
  const given = process.env[name];
  const size = given === undefined || given === '' ? fallback : Number(given);
  if (Number.isInteger(size) && size >= least) return size;
  log(`${name} must be an integer of at least ${least} (got ${given})`);
  return null;
}
