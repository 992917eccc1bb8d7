import type { AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import express from 'express';
import type { Database } from '../../packages/hub/src/database/connect.ts';
import { startHub, type Hub } from '../../packages/hub/src/hub.ts';
import { counterTotal } from '../../packages/hub/src/metrics.ts';
import type { Counter } from 'prom-client';
import { createLogger } from '../../packages/hub/src/logger.ts';
import { RECONCILE_QUEUE } from '../../packages/hub/src/reconcile/queues.ts';
import {
  agentToken,
  BOOT_ID,
  nodeId,
  probeNodeId,
  reportBody,
  type AgentsData,
  type AgentsRequest,
  type LoadResult,
  type ProbeSamples,
} from './reconcile-agents.ts';
import { agentsRpc } from './agents-rpc.ts';
import { benchSeconds, sustainMinutes } from './options.ts';
import type { BenchDatabase } from './database.ts';
import { onOwnDatabase, stop } from './interruptible.ts';
import { addCpu, cpuSnapshot, emptyCpu, type CpuTotals } from './tools/cpu.ts';
import { firstReport, fleetConfig, inParallel, reconcileJobsQueued, register, runCredentials, SETUP_CONCURRENCY } from './tools/fleet.ts';
import * as fmt from './tools/format.ts';
import { goalTable, ratioOfRaw, type Goal } from './tools/goals.ts';
import { watchHeldPolls } from './tools/held-polls.ts';
import { summary } from './tools/percentiles.ts';
import { profilerFromEnv } from './tools/profiler.ts';
import { log } from './tools/progress.ts';
import { createRawTable, rawSlice } from './tools/raw-inserts.ts';
import { newSeries, perSecond, type Series } from './tools/series.ts';
import { header, serverSettings, type Settings } from './tools/server.ts';
import { resetStatements, statementsTable, topStatements, type Statement } from './tools/statements.ts';
import { addWal, emptyWal, walPer, walSnapshot, type WalSpan } from './tools/wal.ts';

/**
 * Reconciliation throughput and latency of one in-process Hub, its simulated agents speaking HTTP:
 *  (a) full reports ingested per second with 1,000 and with 10,000 registered nodes: CLIENTS concurrent
 *      HTTP clients, each cycling over its share of the nodes, every node reporting STREAMS_PER_NODE
 *      streams with a rising report_seq; most reports repeat the last one (stored as its digest),
 *      CHANGE_FRACTION of them change a stream. Latency is request → 202. Then again at FLEET_CLIENTS,
 *      the goal fleet's concurrency; then sent at fixed rates, the goal's and below it (OPEN_RATES), as a
 *      fleet sends them, whatever the answers' pace. The clients speak HTTP/1.1 on sockets of their own
 *      (report-connection.ts), lighter than Node's HTTP client, so the Hub gets more of the machine.
 *  (b) desired write → attempt delivered: a probe node's long poll (wait=25) is held by the Hub, then a
 *      PUT /streams/{id} places a stream on it; the time from sending the PUT to the poll answering with
 *      the attempt. Idle (IDLE_SAMPLES in a row) and under (a)'s loads (PROBES probe nodes at once): a
 *      phase's slices take turns, reports alone measuring (a), reports and probes measuring (b).
 *  (c) the baseline: single-row INSERTs into a plain table at RAW_CLIENTS clients, autocommit, on the
 *      same database, in slices alternating with (a)'s (shared disks and CPUs drift within seconds).
 *  (d) the other baseline: (a)'s requests from the same clients, answered by a bare Express route (JSON
 *      body parsed, 202 sent; no credential, validation or database): what HTTP alone costs this machine.
 *  (e) (d), each body stored durably before its answer, by the cheapest write there is (see durableStore):
 *      the most reports/s any design that stores every report before answering it could reach here.
 * The agents run on a worker thread, so their JSON and HTTP work is not on the Hub's event loop; the CPU
 * each part takes (Hub thread, other Node threads, agents, PostgreSQL sessions) is read from /proc, and
 * the Hub thread's event-loop delay is sampled. Nodes are registered and send their first report before
 * measuring, in-process through the Hub's pipeline (see setUp).
 *
 * Sustained: BENCH_SUSTAIN_MINUTES=N runs, instead of all the above, the goal's fleet for N minutes: 10,000
 * nodes at the goal's fixed rate, in ten-second windows each with its own p99, marking the windows a
 * checkpoint of the embedded server ran through (a ten-second load rarely meets one; a Hub under this load
 * has one every few minutes).
 *
 * Diagnostics: BENCH_PROFILE=dir writes a V8 CPU profile of the Hub thread over each fleet size's load
 * slices; a server that preloads pg_stat_statements (FLEETPLANE_BENCH_DATABASE_URL) gets a table of the
 * statements per report and their server time.
 */

const NODE_COUNTS = [1_000, 10_000] as const;
const CLIENTS = 64;
/**
 * (a) and (b) again at the concurrency of the goal's fleet: 5,000 reports/s answered in 50 ms (half
 * the p99 budget) keep 250 requests in flight (Little's law). 64 clients cap the rate at 64 / latency,
 * 1,280/s at 50 ms, which a fleet of independent agents does not.
 */
const FLEET_CLIENTS = 256;
const STREAMS_PER_NODE = 3;
const CHANGE_FRACTION = 0.05;
const PROBES = 4;
const IDLE_SAMPLES = 100;
const RAW_CLIENTS = 16;
/** Each load is measured in this many slices, each followed (or preceded) by a raw slice; every other one measures (b). */
const SLICES = 6;
/** Unmeasured report load before the first measurement. */
const WARMUP_MS = 1_000;
/** A raw slice lasts this fraction of a load slice. */
const RAW_SHARE = 0.5;
/** (d) runs after each fleet size's slices, for this long. */
const HTTP_BASELINE_MS = 2_000;

const GOAL_REPORTS_PER_SECOND = 5_000;
/** The raw insert rate of the hour goal (a) is stated for (about half of a quiet hour's): the goal as a ratio of raw. */
const GOAL_RATIO = ratioOfRaw(GOAL_REPORTS_PER_SECOND, 7_000);
/** (a) at a fixed rate: the goal's, and four fifths of it, to show what is sustained below it. */
const OPEN_RATES = [GOAL_REPORTS_PER_SECOND, (GOAL_REPORTS_PER_SECOND * 4) / 5] as const;
const GOAL_INGEST_P99_MS = 100;
/** BENCH_SUSTAIN_MINUTES: the length of each window of the sustained load, and of the raw slices around it. */
const SUSTAIN_WINDOW_S = 10;
const SUSTAIN_RAW_MS = 3_000;
const GOAL_IDLE_P99_MS = 100;
const GOAL_LOADED_P99_MS = 500;

/** The agents' thread: a signal ends it, failing the operation the benchmark waits on (a probe may wait 25 s). */
let agentsThread: Worker | null = null;

export async function run(args: string[]): Promise<number> {
  const seconds = benchSeconds('reconcile', args, 10, log);
  const sustain = sustainMinutes(log);
  if (seconds === null || sustain === undefined) return 2;
  const started = performance.now();
  return onOwnDatabase(log, (database) => benchmark(database, seconds, sustain, started), () => void agentsThread?.terminate());
}

// ---------------------------------------------------------------------------------------------------------

interface Phase {
  nodes: number;
  /** Concurrent report loops. */
  clients: number;
  /** Reports accepted during the slices that measured (b), and their length: the load (b) ran under. */
  probed: { accepted: number; seconds: number };
  seconds: number;
  accepted: number;
  changed: number;
  stale: number;
  errors: number;
  firstError: string | null;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  probe: ProbeSamples;
  cpu: CpuTotals<CpuPart>;
  /** The server's WAL during the load slices. */
  wal: WalSpan;
  raw: Series;
  /** The Hub thread's event-loop delay during the load slices, ms. */
  loopDelay: { p50: number; p99: number; max: number };
  /** Top-level statements during the phase's slices, when pg_stat_statements is loaded. */
  statements: Statement[] | null;
  /** Commands the Hub ran again during the load slices: after a deadlock, and for any other reason. */
  reruns: { deadlock: number; other: number };
}

/** Where this process' CPU goes: the Hub's thread (this one), the agents' worker thread, the rest of Node's. */
const CPU_PARTS = ['hubThread', 'nodeOther', 'agentsThread'] as const;
type CpuPart = (typeof CPU_PARTS)[number];
const cpuOwners = { thread: (name: string): CpuPart => (name === 'MainThread' ? 'hubThread' : name === 'agents' ? 'agentsThread' : 'nodeOther') };

async function benchmark(database: BenchDatabase, seconds: number, sustain: number | null, started: number): Promise<number> {
  const maxNodes = NODE_COUNTS.at(-1)!;
  const bench = database.connect(RAW_CLIENTS + 2);
  try {
    await createRawTable(bench.pool);
    const settings = await serverSettings(bench.pool);

    const { tag, operatorToken } = runCredentials();
    const t = performance.now();
    const nodes = [...Array.from({ length: maxNodes }, (_, i) => nodeId(i)), ...Array.from({ length: PROBES }, (_, p) => probeNodeId(p))];
    const config = fleetConfig(operatorToken, nodes.map((node) => [node, agentToken(tag, node)]));
    log(`config: ${maxNodes + PROBES} agent credentials hashed in ${fmt.ms(performance.now() - t)}`);

    const hub = await startHub({ config, databaseUrl: database.url, port: 0, logger: createLogger('error', true) });
    const parked = new SharedArrayBuffer(4 * PROBES);
    let worker: Worker | null = null;
    try {
      watchProbePolls(hub, new Int32Array(parked));
      const data: AgentsData = {
        fleetplaneAgents: true,
        port: Number(new URL(hub.url).port),
        tag,
        clients: CLIENTS,
        nodes: maxNodes,
        probes: PROBES,
        streamsPerNode: STREAMS_PER_NODE,
        operatorToken,
        parked,
      };
      const thread = new Worker(new URL('./reconcile-agents.ts', import.meta.url), { name: 'agents', workerData: data });
      worker = thread;
      agentsThread = thread;
      const agents = agentsRpc<AgentsRequest>(thread, (r) => thread.postMessage(r), 'thread');

      const phases: Phase[] = [];
      const httpOnly: LoadResult[] = [];
      const stored: LoadResult[] = [];
      const fleet: OpenPhase[] = [];
      if (sustain !== null) {
        const setup = await setUp(hub, bench, 0, maxNodes, true);
        log(`set-up: ${setup}`);
        await agents<LoadResult>({ op: 'load', nodes: maxNodes, ms: WARMUP_MS, probes: 1, changeFraction: CHANGE_FRACTION });
        const sustained = await measureSustained(agents, bench, database, maxNodes, sustain);
        if (stop.requested) return 130;
        await checkReportsLogged(bench, maxNodes + (await agents<{ accepted: number }>({ op: 'stop' })).accepted);
        process.stdout.write(sustainedReport(database, settings, setup, sustained, (performance.now() - started) / 1000));
        return 0;
      }
      let idle: ProbeSamples | null = null;
      let registered = 0;
      /** Reports accepted: the set-up's first reports, then the agents'. */
      let accepted = 0;
      const setup: string[] = [];
      for (const nodes of NODE_COUNTS) {
        if (stop.requested) return 130;
        setup.push(await setUp(hub, bench, registered, nodes, registered === 0));
        log(`set-up: ${setup.at(-1)}`);
        accepted += nodes - registered;
        registered = nodes;
        if (stop.requested) return 130;
        // Unmeasured: the HTTP side's first requests (connections, JIT), which the set-up did not make.
        if (phases.length === 0) await agents<LoadResult>({ op: 'load', nodes, ms: WARMUP_MS, probes: 1, changeFraction: CHANGE_FRACTION });
        if (nodes === maxNodes) {
          idle = await agents<ProbeSamples>({ op: 'probe', samples: IDLE_SAMPLES });
          log(`desired write → attempt delivered, idle: ${fmtSamples(idle)}`);
        }
        phases.push(await measurePhase(agents, bench, hub.context.metrics.commandReruns, nodes, seconds, CLIENTS));
        if (stop.requested) return 130;
        phases.push(await measurePhase(agents, bench, hub.context.metrics.commandReruns, nodes, seconds, FLEET_CLIENTS));
        if (stop.requested) return 130;
        for (const rate of OPEN_RATES) fleet.push(await measureOpen(agents, bench.pool, nodes, seconds, rate));
        if (stop.requested) return 130;
        httpOnly.push(await httpBaseline(agents, nodes, null));
        stored.push(await httpBaseline(agents, nodes, durableStore(bench)));
      }
      if (stop.requested) return 130;

      await checkReportsLogged(bench, accepted + (await agents<{ accepted: number }>({ op: 'stop' })).accepted);

      const total = (performance.now() - started) / 1000;
      process.stdout.write(report(database, settings, seconds, setup, phases, fleet, idle!, httpOnly, stored, total));
      return 0;
    } finally {
      agentsThread = null;
      await worker?.terminate();
      await hub.stop();
    }
  } finally {
    await bench.close();
  }
}

/** Every accepted report is one NodeReported event, and nothing else appended one. */
async function checkReportsLogged(bench: Database, accepted: number): Promise<void> {
  const logged = Number((await bench.pool.query<{ n: string }>(`SELECT count(*) AS n FROM events WHERE type = 'NodeReported'`)).rows[0]!.n);
  if (logged !== accepted) throw new Error(`expected ${accepted} NodeReported events in the log, found ${logged}`);
}

/**
 * (d) and (e): the agents' report requests, for HTTP_BASELINE_MS, to an Express app on this thread that
 * parses the body as the Hub does and answers 202: at once (d), or once `store` has stored it (e). The Hub
 * stays up beside it, idle.
 */
async function httpBaseline(agents: <T>(r: AgentsRequest) => Promise<T>, nodes: number, store: ((body: unknown) => Promise<void>) | null): Promise<LoadResult> {
  const app = express();
  app.use(express.json({ limit: '1mb' }));
  app.post('/api/v1/agent/reports', (req, res) => {
    if (!store) return void res.status(202).json({ accepted: true });
    store(req.body).then(
      () => void res.status(202).json({ accepted: true }),
      () => void res.status(500).end(),
    );
  });
  const server = await new Promise<ReturnType<typeof app.listen>>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  try {
    return await agents<LoadResult>({ op: 'baseline', port: (server.address() as AddressInfo).port, nodes, ms: HTTP_BASELINE_MS });
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

/**
 * (e)'s store, the cheapest durable write of a report: bodies arriving while a write is in flight wait for
 * the next one, and each write is one multi-row INSERT of their JSON into a table with nothing but a key,
 * autocommitted (fsync on), at most two at once (the Hub's pipeline lanes). No validation, no event store,
 * no projection: whatever the Hub does beyond this is its own cost.
 */
function durableStore(bench: Database): (body: unknown) => Promise<void> {
  const LANES = 2;
  let waiting: Array<{ body: string; done: (error?: unknown) => void }> = [];
  let busy = 0;
  const flush = (): void => {
    if (busy >= LANES || waiting.length === 0) return;
    const batch = waiting;
    waiting = [];
    busy++;
    bench.pool
      .query(`INSERT INTO bench_raw (stream_id, data, recorded_at) SELECT 'report', d, now() FROM unnest($1::jsonb[]) AS d`, [batch.map((b) => b.body)])
      .then(
        () => batch.forEach((b) => b.done()),
        (error: unknown) => batch.forEach((b) => b.done(error)),
      )
      .finally(() => {
        busy--;
        flush();
      });
  };
  return (body) =>
    new Promise((resolve, reject) => {
      waiting.push({ body: JSON.stringify(body), done: (error) => (error === undefined ? resolve() : reject(error)) });
      flush();
    });
}

/**
 * Counts, per probe node, the long polls the Hub is holding (waiting on the pull transport), in memory
 * shared with the agents: a probe writes only once its poll is held, as the measurement demands.
 */
function watchProbePolls(hub: Hub, parked: Int32Array): void {
  const slots = new Map(Array.from({ length: PROBES }, (_, p) => [probeNodeId(p), p]));
  watchHeldPolls(hub, (node) => {
    const slot = slots.get(node);
    if (slot === undefined) return null;
    Atomics.add(parked, slot, 1);
    Atomics.notify(parked, slot);
    return () => void Atomics.sub(parked, slot, 1);
  });
}

/**
 * Registers nodes [from, to) (and the probe nodes, first time) and sends each node's first report (its
 * streams stored), running the commands the agent routes run through the Hub's pipeline, in-process: the
 * HTTP side is measured later, and 10,000 nodes over HTTP would take the run past its time budget.
 */
async function setUp(hub: Hub, bench: Database, from: number, to: number, withProbes: boolean): Promise<string> {
  let t = performance.now();
  if (withProbes) for (let p = 0; p < PROBES; p++) await register(hub, probeNodeId(p), BOOT_ID);
  await inParallel(from, to, SETUP_CONCURRENCY, (i) => register(hub, nodeId(i), BOOT_ID));
  const registerSeconds = (performance.now() - t) / 1000;
  t = performance.now();
  const drained = await drainReconcileQueue(hub, bench);
  const drainSeconds = (performance.now() - t) / 1000;
  t = performance.now();
  const first = new Array<number>(STREAMS_PER_NODE).fill(1);
  await inParallel(from, to, SETUP_CONCURRENCY, (i) => firstReport(hub, nodeId(i), reportBody(i, 1, first)));
  const reportSeconds = (performance.now() - t) / 1000;
  const n = to - from;
  return (
    `${fmt.count(n)} nodes registered in ${registerSeconds.toFixed(1)} s (${fmt.count(n / registerSeconds)}/s); ` +
    (drained === null
      ? 'their reconcile jobs were still queued 2 minutes later; '
      : `their reconcile jobs run in ${drainSeconds.toFixed(1)} s (${fmt.count(drained)} by a helper worker); `) +
    `first reports (streams stored) in ${reportSeconds.toFixed(1)} s (${fmt.count(n / reportSeconds)}/s)`
  );
}

/**
 * Runs registration's reconcile jobs (one per node) before measuring: a steady fleet has none queued.
 * The Hub's own worker takes a batch of 20 per NOTIFY, else one per second (its poll, JOB_POLL_SECONDS; no
 * burst while batches come back full): after a registration burst it would take minutes.
 * So a helper worker drains the queue beside it, with the Hub's handler, as a second Hub would (its batch's
 * jobs at once, so that the pipeline group-commits them), and stops.
 * Returns the jobs it ran, or null when the queue did not empty within 2 minutes.
 */
async function drainReconcileQueue(hub: Hub, bench: Database): Promise<number | null> {
  let ran = 0;
  const id = await hub.context.boss.work<{ node_id: string; correlation_id?: string }>(
    RECONCILE_QUEUE,
    { batchSize: 128, pollingIntervalSeconds: 0.5, burstWhenBatchFull: true },
    async (jobs) => {
      await Promise.all(jobs.map((job) => hub.context.reconciler.reconcile(job.data.node_id, job.data.correlation_id ?? job.id)));
      ran += jobs.length;
    },
  );
  try {
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline && !stop.requested) {
      if ((await reconcileJobsQueued(bench.pool)) === 0) return ran;
      await new Promise((r) => setTimeout(r, 100));
    }
    return null;
  } finally {
    await hub.context.boss.offWork(RECONCILE_QUEUE, { id });
  }
}

async function measurePhase(
  agents: <T>(r: AgentsRequest) => Promise<T>,
  bench: Database,
  reruns: Counter,
  nodes: number,
  seconds: number,
  clients: number,
): Promise<Phase> {
  const loadMs = (seconds * 1000) / SLICES;
  const rawMs = loadMs * RAW_SHARE;
  const latencies: Float64Array[] = [];
  const probe: ProbeSamples = { delivery: [], write: [], repolls: 0, failures: [] };
  const raw = newSeries();
  const cpu = emptyCpu(CPU_PARTS);
  const wal = emptyWal();
  const tracking = await resetStatements(bench.pool);
  const loop = monitorEventLoopDelay({ resolution: 5 });
  const profiler = await profilerFromEnv(200);
  let total = { seconds: 0, accepted: 0, changed: 0, stale: 0, errors: 0, firstError: null as string | null };
  const rerun = { deadlock: 0, other: 0 };
  const rerunsNow = async () => {
    const deadlock = await counterTotal(reruns, { reason: 'deadlock' });
    return { deadlock, other: (await counterTotal(reruns)) - deadlock };
  };
  const probed = { accepted: 0, seconds: 0 };
  /** A slice of reports alone measures (a), its CPU and its profile; a slice with probes measures (b). */
  const loadSlice = async (probing: boolean) => {
    const before = await cpuSnapshot(bench.pool, cpuOwners);
    const walBefore = await walSnapshot(bench.pool);
    const rerunsBefore = await rerunsNow();
    if (!probing) await profiler?.start();
    loop.enable();
    const r = await agents<LoadResult>({ op: 'load', nodes, ms: loadMs, probes: probing ? PROBES : 0, changeFraction: CHANGE_FRACTION, clients });
    loop.disable();
    if (!probing) profiler?.pause();
    const rerunsAfter = await rerunsNow();
    rerun.deadlock += rerunsAfter.deadlock - rerunsBefore.deadlock;
    rerun.other += rerunsAfter.other - rerunsBefore.other;
    total = { ...total, stale: total.stale + r.stale, errors: total.errors + r.errors, firstError: total.firstError ?? r.firstError };
    if (probing) {
      probe.delivery.push(...r.probe.delivery);
      probe.write.push(...r.probe.write);
      probe.repolls += r.probe.repolls;
      probe.failures.push(...r.probe.failures);
      probed.accepted += r.accepted;
      probed.seconds += r.seconds;
      return;
    }
    addCpu(cpu, before, await cpuSnapshot(bench.pool, cpuOwners));
    addWal(wal, walBefore, await walSnapshot(bench.pool));
    latencies.push(r.latencies);
    total = { ...total, seconds: total.seconds + r.seconds, accepted: total.accepted + r.accepted, changed: total.changed + r.changed };
  };
  for (let slice = 0; slice < SLICES && !stop.requested; slice++) {
    const probing = slice % 2 === 1;
    if (slice % 4 < 2) {
      await loadSlice(probing);
      await rawSlice(bench.pool, 'reconcile', RAW_CLIENTS, rawMs, raw);
    } else {
      await rawSlice(bench.pool, 'reconcile', RAW_CLIENTS, rawMs, raw);
      await loadSlice(probing);
    }
  }
  if (profiler) log(`  CPU profile of the Hub thread during the load slices: ${await profiler.save(`reconcile-${nodes}-nodes-${clients}-clients`)}`);
  const { p50, p99, max } = summary(...latencies);
  const phase: Phase = {
    nodes,
    clients,
    probed,
    ...total,
    perSecond: total.accepted / total.seconds,
    p50,
    p99,
    max,
    probe,
    cpu,
    wal,
    raw,
    loopDelay: { p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
    statements: tracking ? await topStatements(bench.pool) : null,
    reruns: rerun,
  };
  log(
    `${fmt.count(nodes)} nodes, ${clients} clients: ${fmt.count(phase.perSecond)} reports/s (${fmt.count(phase.accepted)} in ${phase.seconds.toFixed(1)} s, ` +
      `p50 ${fmt.ms(phase.p50)}, p99 ${fmt.ms(phase.p99)}, max ${fmt.ms(phase.max)}, ${phase.stale} stale, ${phase.errors} errors)` +
      (phase.firstError ? `; first error: ${phase.firstError}` : ''),
  );
  log(`  desired write → attempt delivered under that load: ${fmtSamples(probe)}`);
  log(`  raw INSERT, ${RAW_CLIENTS} clients: ${fmt.count(perSecond(raw))}/s`);
  return phase;
}

function fmtSamples(s: ProbeSamples): string {
  const d = summary(s.delivery);
  const w = summary(s.write);
  return (
    `N=${d.n}, p50 ${fmt.ms(d.p50)}, p99 ${fmt.ms(d.p99)}, max ${fmt.ms(d.max)} (the PUT alone: p50 ${fmt.ms(w.p50)}, p99 ${fmt.ms(w.p99)})` +
    (s.repolls ? `, ${s.repolls} polls answered empty` : '') +
    (s.failures.length ? `, ${s.failures.length} failed; first: ${s.failures[0]}` : '')
  );
}

function report(
  database: BenchDatabase,
  settings: Settings,
  seconds: number,
  setup: string[],
  phases: Phase[],
  fleet: OpenPhase[],
  idle: ProbeSamples,
  httpOnly: LoadResult[],
  stored: LoadResult[],
  total: number,
): string {
  const verdict = fmt.verdict;
  const rows: string[] = [];
  for (const p of phases) {
    rows.push(
      `| (a) reports ingested, ${load(p)} | ${fmt.count(p.perSecond)} reports/s | ${fmt.ms(p.p50)} | ${fmt.ms(p.p99)} | ` +
        `≥ ${fmt.count(GOAL_REPORTS_PER_SECOND)}/s, p99 ≤ ${GOAL_INGEST_P99_MS} ms | ` +
        `${verdict(p.perSecond >= GOAL_REPORTS_PER_SECOND && p.p99 <= GOAL_INGEST_P99_MS)} |`,
    );
  }
  for (const f of fleet) {
    const due = Math.floor(f.seconds * f.rate);
    const s = summary(f.result.latencies);
    const all = f.result.accepted === due && f.result.errors === 0 && f.result.stale === 0;
    const atGoal = f.rate >= GOAL_REPORTS_PER_SECOND;
    rows.push(
      `| (a) reports ingested, ${fmt.count(f.nodes)} nodes, ${fmt.count(f.rate)}/s sent at a fixed rate ` +
        `(${fmt.count(f.result.accepted)} of ${fmt.count(due)} accepted, at most ${f.result.connections} connections; WAL ${walPer(f.wal, f.result.accepted)} a report) | ` +
        `${fmt.count(f.result.accepted / f.seconds)} reports/s | ${fmt.ms(s.p50)} | ${fmt.ms(s.p99)} | ` +
        (atGoal
          ? `≥ ${fmt.count(GOAL_REPORTS_PER_SECOND)}/s, p99 ≤ ${GOAL_INGEST_P99_MS} ms | ${verdict(all && s.p99 <= GOAL_INGEST_P99_MS)} |`
          : `below the goal's rate | – |`),
    );
  }
  const idleStats = summary(idle.delivery);
  rows.push(
    `| (b) desired write → attempt delivered, idle, ${fmt.count(NODE_COUNTS.at(-1)!)} nodes registered (N=${idleStats.n}) | – | ${fmt.ms(idleStats.p50)} | ${fmt.ms(idleStats.p99)} | ` +
      `p99 ≤ ${GOAL_IDLE_P99_MS} ms | ${verdict(idleStats.n > 0 && idle.failures.length === 0 && idleStats.p99 <= GOAL_IDLE_P99_MS)} |`,
  );
  for (const p of phases) {
    const s = summary(p.probe.delivery);
    rows.push(
      `| (b) desired write → attempt delivered, under the load of ${load(p)} (N=${s.n}) | – | ${fmt.ms(s.p50)} | ${fmt.ms(s.p99)} | ` +
        `p99 ≤ ${GOAL_LOADED_P99_MS} ms | ${verdict(s.n > 0 && p.probe.failures.length === 0 && s.p99 <= GOAL_LOADED_P99_MS)} |`,
    );
  }
  const raw = newSeries();
  for (const p of phases) {
    raw.ops += p.raw.ops;
    raw.seconds += p.raw.seconds;
    raw.latencies.push(...p.raw.latencies);
  }
  const rawStats = summary(raw.latencies);
  rows.push(
    `| (c) raw single-row INSERT, ${RAW_CLIENTS} clients, autocommit | ${fmt.count(perSecond(raw))} inserts/s | ` +
      `${fmt.ms(rawStats.p50)} | ${fmt.ms(rawStats.p99)} | baseline | – |`,
  );
  const httpRate = (runs: LoadResult[]) => runs.reduce((n, r) => n + r.accepted, 0) / runs.reduce((t, r) => t + r.seconds, 0);
  const httpStats = summary(...httpOnly.map((r) => r.latencies));
  rows.push(
    `| (d) the same report requests to a bare Express route (JSON parsed, 202; no credential, validation or database), ${CLIENTS} clients | ` +
      `${fmt.count(httpRate(httpOnly))} requests/s | ${fmt.ms(httpStats.p50)} | ${fmt.ms(httpStats.p99)} | baseline | – |`,
  );
  const storedStats = summary(...stored.map((r) => r.latencies));
  rows.push(
    `| (e) (d), each body stored before its answer (multi-row INSERT of the waiting bodies, 2 at once, fsync on), ${CLIENTS} clients | ` +
      `${fmt.count(httpRate(stored))} requests/s | ${fmt.ms(storedStats.p50)} | ${fmt.ms(storedStats.p99)} | baseline | – |`,
  );

  const detail = phases.map((p) => {
    const s = summary(p.probe.delivery);
    const w = summary(p.probe.write);
    return (
      `| ${load(p)} | ${fmt.count(p.accepted)} in ${p.seconds.toFixed(1)} s | ${fmt.percent(p.changed / p.accepted)} | ${fmt.ms(p.max)} | ` +
      `${p.stale} / ${p.errors} | ${fmt.count(p.probed.accepted / p.probed.seconds)} | ${fmt.ms(w.p50)} / ${fmt.ms(w.p99)} | ${fmt.ms(s.max)}${p.probe.repolls ? `, ${p.probe.repolls} empty polls` : ''} | ` +
      `${fmt.ms(p.loopDelay.p50)} / ${fmt.ms(p.loopDelay.p99)} | ${p.reruns.deadlock} / ${p.reruns.other} | ${fmt.count(perSecond(p.raw))}/s | ` +
      `${p.clients === CLIENTS ? `${fmt.count(httpRate([httpOnly[NODE_COUNTS.indexOf(p.nodes as (typeof NODE_COUNTS)[number])]!]))}/s` : '–'} |`
    );
  });
  const idleWrite = summary(idle.write);

  const us = (part: number, p: Phase) => (p.accepted > 0 ? `${Math.round((part / p.accepted) * 1e6)} µs` : '–');
  const cores = (part: number, p: Phase) => `${(part / p.cpu.seconds).toFixed(2)}`;
  const cpuRows = phases.map((p) => {
    const c = p.cpu;
    const pgCells = c.pgVisible
      ? `${us(c.pgHub, p)} | ${us(c.pgJobs, p)} | ${us(c.pgBackground, p)}`
      : 'n/a | n/a | n/a';
    const ours = c.hubThread + c.nodeOther + c.agentsThread + (c.pgVisible ? c.pgHub + c.pgJobs + c.pgBackground : 0);
    return (
      `| ${load(p)} | ${us(c.hubThread, p)} | ${us(c.nodeOther, p)} | ${us(c.agentsThread, p)} | ${pgCells} | ` +
      `${cores(c.machine, p)} of ${cpus().length} | ${c.pgVisible ? cores(Math.max(0, c.machine - ours), p) : 'n/a'} | ${walPer(p.wal, p.accepted)} |`
    );
  });
  const cpuShares = phases.map((p) => {
    const c = p.cpu;
    return (
      `${load(p)}, cores in use: Hub thread ${cores(c.hubThread, p)}, other Node threads ${cores(c.nodeOther, p)}, ` +
      `agents ${cores(c.agentsThread, p)}` +
      (c.pgVisible ? `, PostgreSQL ${cores(c.pgHub + c.pgJobs + c.pgBackground, p)}` : '') +
      `; machine ${cores(c.machine, p)}`
    );
  });

  return [
    ...header('reconcile', database, settings, HUB_SETUP),
    `Load: ${CLIENTS} HTTP clients, then ${FLEET_CLIENTS}, each cycling over its share of the nodes; ${STREAMS_PER_NODE} streams per node; ` +
      `${fmt.percent(CHANGE_FRACTION)} of reports change a stream, the rest repeat (stored as digest); ` +
      `${seconds} s per load in ${SLICES} slices alternating with raw INSERT slices, half of them (a), half (b); ` +
      `(b) under load: ${PROBES} probe nodes at once, each write after the Hub holds the poll; whole run ${total.toFixed(1)} s`,
    ...setup.map((r) => `Set-up (in-process, through the Hub's pipeline, ${SETUP_CONCURRENCY} commands in flight): ${r}`),
    '',
    '| measurement | throughput | p50 | p99 | goal | verdict |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    '| load | (a) reports measured | changed | ingest max | stale / errors | reports/s during (b) | (b) PUT alone p50 / p99 | (b) delivery max | Hub event-loop delay p50 / p99 | commands run again: deadlock / other | raw INSERT in the same phase | (d) HTTP alone after it |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...detail,
    `| idle | – | – | – | – | – | ${fmt.ms(idleWrite.p50)} / ${fmt.ms(idleWrite.p99)} | ${fmt.ms(idleStats.max)}${idle.repolls ? `, ${idle.repolls} empty polls` : ''} | – | – | – | – |`,
    '',
    'CPU per accepted report during the load slices (on-CPU time from /proc; PostgreSQL split by session):',
    '',
    '| load | Hub main thread | other Node threads (GC, libuv) | agents thread (load generator) | PG: Hub sessions | PG: pg-boss + attempt channel | PG: background | machine busy (cores) | of which neither this process nor its PostgreSQL (cores) | WAL per report (bytes, full-page images) |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...cpuRows,
    '',
    ...cpuShares,
    '',
    ...phases.flatMap((p) =>
      p.statements ? statementsTable(`during the slices of ${load(p)}`, p.statements, p.accepted, 'accepted report') : [],
    ),
    'Goals, normalised by the raw inserts of the same phase (see docs/benchmarks.md, "Reading a report"):',
    '',
    ...goalTable(goals(phases, fleet, idle, raw)),
    '',
    // What HTTP alone allows today: no report path behind the same server and clients can go faster.
    `ceiling (d): a bare Express route answered ${fmt.count(httpRate(httpOnly))} requests/s from the same clients, ` +
      `${Math.round((100 * httpRate(httpOnly)) / GOAL_REPORTS_PER_SECOND)}% of goal (a)'s rate`,
    `floor (e): storing each body before answering, by the cheapest durable write, answered ${fmt.count(httpRate(stored))} requests/s, ` +
      `${Math.round((100 * httpRate(stored)) / GOAL_REPORTS_PER_SECOND)}% of goal (a)'s rate`,
    '',
  ].join('\n');
}

interface OpenPhase {
  nodes: number;
  /** Reports per second sent. */
  rate: number;
  /** The window the reports were due in. */
  seconds: number;
  result: LoadResult;
  /** The server's WAL while the reports were sent. */
  wal: WalSpan;
}

/**
 * (a) as the goal states it: reports sent at `rate` whatever the answers' pace, as a fleet's agents send
 * them, for `seconds`; latency from each report's due time (openLoad in reconcile-agents.ts).
 */
async function measureOpen(agents: <T>(r: AgentsRequest) => Promise<T>, pool: Database['pool'], nodes: number, seconds: number, rate: number): Promise<OpenPhase> {
  const before = await walSnapshot(pool);
  const result = await agents<LoadResult>({ op: 'open', nodes, ms: seconds * 1000, rate, changeFraction: CHANGE_FRACTION });
  const wal = emptyWal();
  addWal(wal, before, await walSnapshot(pool));
  const s = summary(result.latencies);
  log(
    `${fmt.count(nodes)} nodes, ${fmt.count(rate)}/s at a fixed rate: ${fmt.count(result.accepted)} accepted in ${seconds} s, ` +
      `p50 ${fmt.ms(s.p50)}, p99 ${fmt.ms(s.p99)}, max ${fmt.ms(s.max)}, ${result.stale} stale, ${result.errors} errors, ` +
      `${result.connections} connections; WAL ${walPer(wal, result.accepted)} a report` + (result.firstError ? `; first error: ${result.firstError}` : ''),
  );
  return { nodes, rate, seconds, result, wal };
}

const HUB_SETUP = 'one Hub in-process (pipeline: 2 lanes, batches ≤ 64), agents on a worker thread over HTTP keep-alive';

/**
 * The goals as ratios of raw inserts: (a) by the reports/s the goal fleet's 256 waiting clients reach
 * (what the Hub can take in that phase's minutes), its latency at the fixed goal rate; (b) by latency alone.
 */
function goals(phases: Phase[], fleet: OpenPhase[], idle: ProbeSamples, raw: Series): Goal[] {
  const ingest: Goal[] = NODE_COUNTS.flatMap((nodes) => {
    const p = phases.find((x) => x.nodes === nodes && x.clients === FLEET_CLIENTS);
    const f = fleet.find((x) => x.nodes === nodes && x.rate === GOAL_REPORTS_PER_SECOND);
    if (!p || !f) return [];
    const due = Math.floor(f.seconds * f.rate);
    const s = summary(f.result.latencies);
    return [
      {
        goal: `(a) ≥ ${fmt.count(GOAL_REPORTS_PER_SECOND)} reports/s with p99 ≤ ${GOAL_INGEST_P99_MS} ms where raw inserts reach 7,000/s, ${fmt.count(nodes)} nodes`,
        measured: `${fmt.count(p.perSecond)} reports/s from ${p.clients} clients; at a fixed ${fmt.count(f.rate)}/s ${fmt.count(f.result.accepted)} of ${fmt.count(due)} accepted, p99 ${fmt.ms(s.p99)}`,
        rate: p.perSecond,
        raw: perSecond(p.raw),
        ratio: GOAL_RATIO,
        holds: f.result.accepted === due && f.result.errors === 0 && f.result.stale === 0 && s.p99 <= GOAL_INGEST_P99_MS,
      },
    ];
  });
  const delivery = (goal: string, samples: ProbeSamples, limit: number, rawRate: number): Goal => {
    const s = summary(samples.delivery);
    return { goal, measured: `p99 ${fmt.ms(s.p99)} (N=${s.n})`, rate: null, raw: rawRate, ratio: null, holds: s.n > 0 && samples.failures.length === 0 && s.p99 <= limit };
  };
  return [
    ...ingest,
    delivery(`(b) desired write → attempt delivered, idle: p99 ≤ ${GOAL_IDLE_P99_MS} ms`, idle, GOAL_IDLE_P99_MS, perSecond(raw)),
    ...phases.map((p) => delivery(`(b) … under the load of ${load(p)}: p99 ≤ ${GOAL_LOADED_P99_MS} ms`, p.probe, GOAL_LOADED_P99_MS, perSecond(p.raw))),
  ];
}

/** A sustained run's window, and whether a checkpoint of the server was running during it. */
interface SustainedWindow {
  /** Seconds since the load began, at the window's start. */
  at: number;
  open: OpenPhase;
  checkpoint: boolean;
}

interface Sustained {
  minutes: number;
  windows: SustainedWindow[];
  /** The server's checkpoint log lines, with the seconds since the load began; null on an external server. */
  checkpoints: string[] | null;
  /** Raw inserts just before and just after the load. */
  raw: Series;
}

/**
 * BENCH_SUSTAIN_MINUTES: the goal's fleet for that long instead of the phases: `nodes` nodes reporting at
 * the goal's fixed rate, in windows of SUSTAIN_WINDOW_S (each a fixed-rate load of its own, so each has
 * its own p99), with the embedded server's checkpoints, which a ten-second load rarely meets, marked on
 * the windows they ran through. Raw inserts are measured just before and just after.
 */
async function measureSustained(
  agents: <T>(r: AgentsRequest) => Promise<T>,
  bench: Database,
  database: BenchDatabase,
  nodes: number,
  minutes: number,
): Promise<Sustained> {
  const raw = newSeries();
  await rawSlice(bench.pool, 'reconcile', RAW_CLIENTS, SUSTAIN_RAW_MS, raw);
  const start = performance.now();
  const since = () => (performance.now() - start) / 1000;
  const checkpoints: string[] | null = database.embedded ? [] : null;
  /** The checkpoints' spans, in seconds since the load began; `to` null while one runs. */
  const spans: { from: number; to: number | null }[] = [];
  let listening = true;
  database.onServerLog((line) => {
    const m = /checkpoint (starting|complete): .*/.exec(line);
    if (!m || !checkpoints || !listening) return;
    checkpoints.push(`${since().toFixed(0)} s: ${m[0].slice(0, 160)}`);
    log(`  ${checkpoints.at(-1)}`);
    if (m[1] === 'starting') spans.push({ from: since(), to: null });
    else if (spans.at(-1)) spans.at(-1)!.to = since();
  });
  const loads: { at: number; open: OpenPhase; until: number }[] = [];
  for (let at = 0; at < minutes * 60 && !stop.requested; at = since()) {
    const open = await measureOpen(agents, bench.pool, nodes, SUSTAIN_WINDOW_S, GOAL_REPORTS_PER_SECOND);
    loads.push({ at, open, until: since() });
  }
  await rawSlice(bench.pool, 'reconcile', RAW_CLIENTS, SUSTAIN_RAW_MS, raw);
  listening = false;
  const windows = loads.map(({ at, open, until }) => ({ at, open, checkpoint: spans.some((c) => c.from < until && (c.to === null || c.to > at)) }));
  return { minutes, windows, checkpoints, raw };
}

function sustainedReport(database: BenchDatabase, settings: Settings, setup: string, run: Sustained, total: number): string {
  const s = summary(...run.windows.map((w) => w.open.result.latencies));
  const due = run.windows.reduce((n, w) => n + Math.floor(w.open.seconds * w.open.rate), 0);
  const count = (k: 'accepted' | 'errors' | 'stale') => run.windows.reduce((n, w) => n + w.open.result[k], 0);
  const worst = run.windows.map((w) => summary(w.open.result.latencies)).sort((a, b) => b.p99 - a.p99)[0]!;
  const goal: Goal = {
    goal: `(a) sustained for ${run.minutes} min: ${fmt.count(GOAL_REPORTS_PER_SECOND)} reports/s at a fixed rate with p99 ≤ ${GOAL_INGEST_P99_MS} ms where raw inserts reach 7,000/s`,
    measured: `${fmt.count(count('accepted'))} of ${fmt.count(due)} accepted, ${count('errors')} errors, ${count('stale')} stale, p50 ${fmt.ms(s.p50)}, p99 ${fmt.ms(s.p99)}, max ${fmt.ms(s.max)}`,
    rate: count('accepted') / run.windows.reduce((t, w) => t + w.open.seconds, 0),
    raw: perSecond(run.raw),
    ratio: GOAL_RATIO,
    holds: count('accepted') === due && count('errors') === 0 && count('stale') === 0 && s.p99 <= GOAL_INGEST_P99_MS,
  };
  const rawStats = summary(run.raw.latencies);
  return [
    ...header('reconcile', database, settings, HUB_SETUP),
    `Load: ${fmt.count(run.windows[0]?.open.nodes ?? 0)} nodes sending ${fmt.count(GOAL_REPORTS_PER_SECOND)} reports/s at a fixed rate for ${run.minutes} min, ` +
      `in windows of ${SUSTAIN_WINDOW_S} s; ${STREAMS_PER_NODE} streams per node; ${fmt.percent(CHANGE_FRACTION)} of reports change a stream; whole run ${total.toFixed(1)} s`,
    `Set-up (in-process, through the Hub's pipeline, ${SETUP_CONCURRENCY} commands in flight): ${setup}`,
    '',
    '| window (s from the start) | accepted | p50 | p99 | max | connections | WAL per report | a checkpoint ran |',
    '|---|---|---|---|---|---|---|---|',
    ...run.windows.map((w) => {
      const ws = summary(w.open.result.latencies);
      return `| ${w.at.toFixed(0)} | ${fmt.count(w.open.result.accepted)} | ${fmt.ms(ws.p50)} | ${fmt.ms(ws.p99)} | ${fmt.ms(ws.max)} | ${w.open.result.connections} | ${walPer(w.open.wal, w.open.result.accepted)} | ${w.checkpoint ? 'yes' : ''} |`;
    }),
    '',
    `The server's checkpoints: ${run.checkpoints === null ? 'not seen (an external server)' : run.checkpoints.length === 0 ? 'none' : ''}`,
    ...(run.checkpoints ?? []).map((c) => `- ${c}`),
    '',
    `(c) raw single-row INSERT, ${RAW_CLIENTS} clients, just before and just after: ${fmt.count(perSecond(run.raw))} inserts/s, p99 ${fmt.ms(rawStats.p99)}`,
    `worst window: p99 ${fmt.ms(worst.p99)}, max ${fmt.ms(worst.max)}`,
    '',
    ...goalTable([goal]),
    '',
  ].join('\n');
}

/** A phase's load, as the tables name it. */
const load = (p: Phase) => `${fmt.count(p.nodes)} nodes, ${p.clients} clients`;
