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
