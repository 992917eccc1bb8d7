import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { Hub } from '../../packages/hub/src/hub.ts';
import { startHub } from '../../packages/hub/src/hub.ts';
import { createLogger } from '../../packages/hub/src/logger.ts';
import { agentsRpc } from './agents-rpc.ts';
import type { BenchDatabase } from './database.ts';
import { describeAnswer, hubRequest, keptAlive } from './http-request.ts';
import { onOwnDatabase, stop } from './interruptible.ts';
import { sizeOption } from './options.ts';
import {
  STORM_BOOT_ID,
  stormNodeId,
  stormReport,
  stormToken,
  type BurstResult,
  type ClientsData,
  type ClientsRequest,
  type OperatorsResult,
  type SteadyResult,
  type Tally,
} from './storm-clients.ts';
import { fleetConfig, runCredentials, setUpFleet } from './tools/fleet.ts';
import * as fmt from './tools/format.ts';
import { goalTable, type Goal } from './tools/goals.ts';
import { liveMemory } from './tools/heap.ts';
import { listenDrops, listenDropsSince, type ListenDrops } from './tools/listen-drops.ts';
import { summary, type Summary } from './tools/percentiles.ts';
import { log } from './tools/progress.ts';
import { createRawTable, rawSlice } from './tools/raw-inserts.ts';
import { newSeries, perSecond } from './tools/series.ts';
import { header, serverSettings } from './tools/server.ts';

/**
 * `npm run bench -- storm`: what one in-process Hub does with more work than it can take at once, and whether
 * one class of client starves the other.
 *  (a) A fleet reconnecting: every node of a share of the fleet (a quarter, a half, all of STORM_NODES, default
 *      10,000) sends its report at the same moment, each on a new connection, as agents do after a Hub restart
 *      or a network blip. A report turned away is sent again after its Retry-After (else 1 s), with jitter.
 *      Meanwhile one operator reads a page of nodes in a loop: is it served behind the burst?
 *  (b) Operators hammering heavy reads while the fleet reports at its own pace (STORM_NODES / 10 a second, one
 *      report a node every 10 s; at most STEADY_SHARE_OF_RAW of the raw rate): OPERATORS clients, each reading in turn a rollout of every node with all its
 *      targets (GET /rollouts/{id}), a page of nodes and the drift (unpaged). Three slices of STORM_SECONDS
 *      (default 20): the fleet alone, the operators alone, both.
 * STORM_CONTROL_API runs the Hub with other control_api keys (its admission bounds, to compare them).
 * Sampled every 100 ms on the Hub: its heap, its pool's connections in use and requests waiting for one; and
 * how late its thread ran a timer (the longest piece of work that held it). Per
 * burst, the SYNs the machine's listen queues dropped (the Hub's queue full: the client sends it again 1 s,
 * 3 s, 7 s … later) from /proc/net/netstat. The
 * baseline: single-row INSERTs at RAW_CLIENTS clients before and after. The long polls agents also open again
 * are left out: each holds a connection, and the fleet's and the Hub's sockets share this process's limit.
 */

const STREAMS_PER_NODE = 3;
const OPERATORS = 16;
/**
 * (b)'s fleet reports at most this share of the raw insert rate measured just before: well within what the
 * Hub takes (74-78% of raw at 10,000 nodes, docs/benchmarks.md), so that what (b) shows is the operators'.
 */
const STEADY_SHARE_OF_RAW = 0.25;
const RAW_CLIENTS = 16;
const RAW_MS = 3_000;
const SAMPLE_EVERY_MS = 100;
/** A burst's report not accepted after this long counts as given up. */
const GIVE_UP_MS = 60_000;
/** The light read one operator repeats during a burst. */
const OPERATOR_PROBE_MS = 5_000;
/** A report in a burst or a slice answered after this is past any agent's patience: the report bound the reconcile goal states. */
const REPORT_P99_BOUND_MS = 100;
const OPERATOR_P99_BOUND_MS = 1_000;

interface Options {
  nodes: number;
  seconds: number;
  /** control_api keys besides the credentials. */
  controlApi: Record<string, unknown>;
}

let workers: Worker[] = [];

export async function run(args: string[]): Promise<number> {
  if (args.length > 0) {
    log(`storm takes no arguments (got: ${args.join(' ')}); set STORM_NODES, STORM_SECONDS`);
    return 2;
  }
  const nodes = sizeOption('STORM_NODES', 10_000, 100, log);
  const seconds = sizeOption('STORM_SECONDS', 20, 2, log);
  const controlApi = controlApiOption();
  if (nodes === null || seconds === null || controlApi === null) return 2;
  return onOwnDatabase(log, (database) => storm(database, { nodes, seconds, controlApi }), () => workers.forEach((w) => void w.terminate()));
}

/** The Hub's load as sampled over a span: its heap, its pool. */
interface Sampled {
  heapMaxMb: number;
  inUseMax: number;
  waitingMax: number;
  /** Samples with a request waiting for a connection. */
  waitingShare: number;
  /** How late the Hub's thread ran a timer, p99 and at most: how long one piece of work held it. */
  loopDelayMs: [number, number];
  /** Requests of each class in flight and queued at most (admission control), where the Hub has it. */
  admitted: { agent: [number, number]; operator: [number, number] } | null;
}

function sampler(hub: Hub) {
  const pool = hub.context.database.pool;
  // Read as it may be: a build without admission control has none.
  const admission = (hub.context as { admission?: { inFlight(c: string): number; queued(c: string): number } }).admission;
  let samples: Array<{ heap: number; inUse: number; waiting: number; classes: number[] }> = [];
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const timer = setInterval(() => {
    const classes = admission ? ['agent', 'operator'].flatMap((c) => [admission.inFlight(c), admission.queued(c)]) : [];
    samples.push({ heap: process.memoryUsage().heapUsed, inUse: pool.totalCount - pool.idleCount, waiting: pool.waitingCount, classes });
  }, SAMPLE_EVERY_MS);
  return {
    /** What was sampled since the last take. */
    take(): Sampled {
      const s = samples;
      samples = [];
      const loopDelayMs: [number, number] = [loop.percentile(99) / 1e6, loop.max / 1e6];
      loop.reset();
      return {
        loopDelayMs,
        heapMaxMb: Math.max(0, ...s.map((x) => x.heap)) / 2 ** 20,
        inUseMax: Math.max(0, ...s.map((x) => x.inUse)),
        waitingMax: Math.max(0, ...s.map((x) => x.waiting)),
        waitingShare: s.length ? s.filter((x) => x.waiting > 0).length / s.length : 0,
        admitted: admission
          ? {
              agent: [Math.max(0, ...s.map((x) => x.classes[0]!)), Math.max(0, ...s.map((x) => x.classes[1]!))],
              operator: [Math.max(0, ...s.map((x) => x.classes[2]!)), Math.max(0, ...s.map((x) => x.classes[3]!))],
            }
          : null,
      };
    },
    stop: () => {
      clearInterval(timer);
      loop.disable();
    },
  };
}

interface Burst {
  size: number;
  /** SYNs the machine's listen queues dropped during the burst, and SYNs sent again. */
  drops: ListenDrops | null;
  result: BurstResult;
  accepted: Summary;
  firstAnswers: Summary;
  operator: { latency: Summary; tally: Tally };
  sampled: Sampled;
}

interface Slice {
  name: string;
  reports: { latency: Summary; result: SteadyResult } | null;
  operators: Record<string, { latency: Summary; tally: Tally }> | null;
  sampled: Sampled;
}

async function storm(database: BenchDatabase, o: Options): Promise<number> {
  const bench = database.connect(RAW_CLIENTS + 2);
  try {
    await createRawTable(bench.pool);
    const settings = await serverSettings(bench.pool);
    const { tag, operatorToken } = runCredentials();
    const nodes = Array.from({ length: o.nodes }, (_, i) => stormNodeId(i));
    const config = fleetConfig(operatorToken, nodes.map((node) => [node, stormToken(tag, node)]), { control_api: o.controlApi });
    const hub = await startHub({ config, databaseUrl: database.url, port: 0, logger: createLogger('error', true) });
    try {
      const port = Number(new URL(hub.url).port);
      const setup = await setUpFleet(hub, bench.pool, nodes, STORM_BOOT_ID, (node) => stormReport(nodes.indexOf(node), 1, STREAMS_PER_NODE));
      log(`set-up: ${setup}`);
      const rolloutId = await heavyRollout(port, operatorToken, nodes);
      log(`a paused rollout of ${fmt.count(o.nodes)} targets: ${rolloutId}`);

      const raw = newSeries();
      await rawSlice(bench.pool, 'storm', RAW_CLIENTS, RAW_MS, raw);
      // The fleet's own pace, unless this hour's machine could not take it beside anything else.
      const rate = Math.round(Math.min(o.nodes / 10, STEADY_SHARE_OF_RAW * perSecond(raw)));
      const data: ClientsData = { fleetplaneStormClients: true, port, tag, nodes: o.nodes, streamsPerNode: STREAMS_PER_NODE, operatorToken };
      const spawn = (name: string) => {
        const w = new Worker(new URL('./storm-clients.ts', import.meta.url), { name, workerData: data });
        workers.push(w);
        return agentsRpc<ClientsRequest>(w, (r) => w.postMessage(r), 'thread');
      };
      const agents = spawn('agents');
      const operators = spawn('operators');
      const sampled = sampler(hub);
      const heapBefore = liveMemory();

      const bursts: Burst[] = [];
      for (const size of [Math.round(o.nodes / 4), Math.round(o.nodes / 2), o.nodes]) {
        if (stop.requested) break;
        log(`storm (a): ${fmt.count(size)} reports at once`);
        sampled.take();
        const dropsBefore = listenDrops();
        const [result, operator] = await Promise.all([
          agents<BurstResult>({ op: 'burst', from: 0, count: size, giveUpMs: GIVE_UP_MS }),
          operators<OperatorsResult>({ op: 'operators', clients: 1, paths: ['/api/v1/nodes?limit=100'], ms: OPERATOR_PROBE_MS }),
        ]);
        const read = Object.values(operator.paths)[0]!;
        bursts.push({
          size,
          drops: listenDropsSince(dropsBefore),
          result,
          accepted: summary(result.accepted),
          firstAnswers: summary(result.firstAnswers),
          operator: { latency: summary(read.latencies), tally: read.tally },
          sampled: sampled.take(),
        });
        log(`  accepted ${fmt.count(result.accepted.length)}, last after ${fmt.ms(summary(result.accepted).max)}`);
        await new Promise((r) => setTimeout(r, 2_000));
      }

      const heavy = [`/api/v1/rollouts/${rolloutId}`, '/api/v1/nodes?limit=100', '/api/v1/drift'];
      const ms = o.seconds * 1000;
      const slices: Slice[] = [];
      const steadySlice = async (name: string, withReports: boolean, withOperators: boolean) => {
        log(`storm (b): ${name}`);
        sampled.take();
        const [reports, reads] = await Promise.all([
          withReports ? agents<SteadyResult>({ op: 'steady', rate, ms }) : null,
          withOperators ? operators<OperatorsResult>({ op: 'operators', clients: OPERATORS, paths: heavy, ms }) : null,
        ]);
        slices.push({
          name,
          reports: reports && { latency: summary(reports.latencies), result: reports },
          operators: reads && Object.fromEntries(Object.entries(reads.paths).map(([p, r]) => [p, { latency: summary(r.latencies), tally: r.tally }])),
          sampled: sampled.take(),
        });
      };
      if (!stop.requested) await steadySlice('the fleet alone', true, false);
      if (!stop.requested) await steadySlice('the operators alone', false, true);
      if (!stop.requested) await steadySlice('the fleet and the operators', true, true);
      sampled.stop();
      const heapAfter = liveMemory();
      await rawSlice(bench.pool, 'storm', RAW_CLIENTS, RAW_MS, raw);
      const admission = hub.context.config.file.control_api;
      const setupLine =
        `${fmt.count(o.nodes)} nodes of ${STREAMS_PER_NODE} streams; bursts of a quarter, a half and all of them; ` +
        `steady ${fmt.count(rate)} reports/s; ${OPERATORS} operators; slices of ${o.seconds} s; admission: ${JSON.stringify(admissionOf(admission))}`;
      process.stdout.write(report(database, settings, setupLine, perSecond(raw), bursts, slices, heapBefore.heap, heapAfter.heap, rolloutId).join('\n') + '\n');
      return 0;
    } finally {
      await Promise.all(workers.map((w) => w.terminate()));
      workers = [];
      await hub.stop();
    }
  } finally {
    await bench.close();
  }
}

/** The admission keys of control_api, where this build has them. */
function admissionOf(controlApi: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(controlApi).filter(([k]) => k.includes('_max_')));
}

/** STORM_CONTROL_API: keys of control_api to run the Hub with (a JSON object), to compare bounds; null after saying what is wrong. */
function controlApiOption(): Record<string, unknown> | null {
  const given = process.env.STORM_CONTROL_API;
  if (given === undefined || given === '') return {};
  try {
    const parsed: unknown = JSON.parse(given);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // said below
  }
  log(`STORM_CONTROL_API must be a JSON object of control_api keys (got ${given})`);
  return null;
}

/** A rollout of every node, paused at once with the fleet in observe mode: GET /rollouts/{id} reads all its targets. */
async function heavyRollout(port: number, token: string, nodes: string[]): Promise<string> {
  const keepAlive = keptAlive();
  const call = async (method: string, path: string, body: unknown, want: number) => {
    const a = await hubRequest(keepAlive, port, method, path, token, body);
    if (a.status !== want) throw new Error(`${method} ${path}: ${describeAnswer(a)}`);
    return a.body;
  };
  try {
    await call('PUT', '/api/v1/settings/reconciliation', { mode: 'observe' }, 200);
    const version = await call('POST', '/api/v1/config-versions', { content: 'storm', format: 'text' }, 201);
    const rollout = await call('POST', '/api/v1/rollouts', { config_version: version.config_version, targets: { nodes }, batch_size: 256 }, 201);
    await call('POST', `/api/v1/rollouts/${rollout.rollout_id}/actions`, { action: 'pause' }, 200);
    return rollout.rollout_id as string;
  } finally {
    keepAlive.destroy();
  }
}

const tallyCell = (t: Tally) => `${fmt.count(t.ok)} / ${fmt.count(t.refused)} / ${fmt.count(t.failed + t.errors)}`;
const pool = (s: Sampled) => `${s.inUseMax} / ${s.waitingMax} (${fmt.percent(s.waitingShare)} of samples)`;
const loopDelay = (s: Sampled) => `${fmt.ms(s.loopDelayMs[0])} / ${fmt.ms(s.loopDelayMs[1])}`;
const admitted = (s: Sampled) => (s.admitted ? `${s.admitted.agent.join(' / ')}, ${s.admitted.operator.join(' / ')}` : '–');

function report(
  database: BenchDatabase,
  settings: Awaited<ReturnType<typeof serverSettings>>,
  setup: string,
  raw: number,
  bursts: Burst[],
  slices: Slice[],
  heapBefore: number,
  heapAfter: number,
  rolloutId: string,
): string[] {
  const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MB`;
  const lines = [...header('storm', database, settings, setup), '', `Raw single-row INSERTs, ${RAW_CLIENTS} clients, before and after: ${fmt.count(raw)}/s`, ''];
  lines.push('### (a) the fleet reconnecting: reports sent at once', '');
  lines.push(
    ...fmt.table(
      ['reports at once', 'accepted p50 / p99 / last', 'first answer p99', 'ok / refused / 5xx or lost', 'resent', 'SYNs dropped / resent', 'accepted/s (of raw)', 'operator GET /nodes p50 / p99 (ok / refused / 5xx)', 'heap max', 'pool in use / waiting max', "Hub's thread late p99 / max", 'in flight / queued max: agents, operators'],
      bursts.map((b) => [
        fmt.count(b.size),
        `${fmt.ms(b.accepted.p50)} / ${fmt.ms(b.accepted.p99)} / ${fmt.ms(b.accepted.max)}`,
        fmt.ms(b.firstAnswers.p99),
        tallyCell(b.result),
        fmt.count(b.result.retries),
        b.drops ? `${fmt.count(b.drops.overflows)} / ${fmt.count(b.drops.synRetransmits)}` : '–',
        `${fmt.count(b.accepted.n / (b.accepted.max / 1000))} (${fmt.percent(b.accepted.n / (b.accepted.max / 1000) / raw)})`,
        `${fmt.ms(b.operator.latency.p50)} / ${fmt.ms(b.operator.latency.p99)} (${tallyCell(b.operator.tally)})`,
        `${b.sampled.heapMaxMb.toFixed(0)} MB`,
        pool(b.sampled),
        loopDelay(b.sampled),
        admitted(b.sampled),
      ]),
    ),
  );
  const firstFailure = [...bursts.map((b) => b.result.first), ...bursts.map((b) => b.operator.tally.first)].find((f) => f);
  if (firstFailure) lines.push('', `First failure: ${firstFailure}`);
  lines.push('', '### (b) operators reading heavily beside the fleet', '');
  const paths = [`/api/v1/rollouts/${rolloutId}`, '/api/v1/nodes?limit=100', '/api/v1/drift'];
  const pathName = (p: string) => (p.includes('/rollouts/') ? 'GET /rollouts/{id}' : p.includes('/drift') ? 'GET /drift' : 'GET /nodes');
  lines.push(
    ...fmt.table(
      ['slice', 'reports p50 / p99 (ok / refused / 5xx)', ...paths.map((p) => `${pathName(p)} p50 / p99 (ok / refused / 5xx)`), 'heap max', 'pool in use / waiting max', "Hub's thread late p99 / max", 'in flight / queued max: agents, operators'],
      slices.map((s) => [
        s.name,
        s.reports ? `${fmt.ms(s.reports.latency.p50)} / ${fmt.ms(s.reports.latency.p99)} (${tallyCell(s.reports.result)})` : '–',
        ...paths.map((p) => {
          const r = s.operators?.[p];
          return r ? `${fmt.ms(r.latency.p50)} / ${fmt.ms(r.latency.p99)} (${tallyCell(r.tally)})` : '–';
        }),
        `${s.sampled.heapMaxMb.toFixed(0)} MB`,
        pool(s.sampled),
        loopDelay(s.sampled),
        admitted(s.sampled),
      ]),
    ),
  );
  const sliceFailure = slices.flatMap((s) => [s.reports?.result.first, ...Object.values(s.operators ?? {}).map((r) => r.tally.first)]).find((f) => f);
  if (sliceFailure) lines.push('', `First failure: ${sliceFailure}`);
  lines.push('', `Hub's live heap (after a full collection): ${mb(heapBefore)} before the storms, ${mb(heapAfter)} after.`, '');

  const whole = bursts.at(-1);
  const alone = slices.find((s) => s.name === 'the fleet alone');
  const both = slices.find((s) => s.name === 'the fleet and the operators');
  const fives = [...bursts.map((b) => b.result.failed + b.operator.tally.failed), ...slices.flatMap((s) => [s.reports?.result.failed ?? 0, ...Object.values(s.operators ?? {}).map((r) => r.tally.failed)])].reduce((a, b) => a + b, 0);
  const goals: Goal[] = [];
  if (whole)
    goals.push({
      goal: `(a) the whole fleet's burst: every report accepted, none answered 5xx`,
      measured: `${fmt.count(whole.accepted.n)} of ${fmt.count(whole.size)} in ${fmt.ms(whole.accepted.max)}, ${fmt.count(whole.result.failed)} 5xx`,
      rate: whole.accepted.n / (whole.accepted.max / 1000),
      raw,
      ratio: null,
      holds: whole.accepted.n === whole.size && whole.result.failed === 0,
    });
  if (whole)
    goals.push({
      goal: `(a) an operator's read during the whole fleet's burst: p99 ≤ ${fmt.ms(OPERATOR_P99_BOUND_MS)}`,
      measured: `p99 ${fmt.ms(whole.operator.latency.p99)}`,
      rate: null,
      raw,
      ratio: null,
      holds: whole.operator.latency.p99 <= OPERATOR_P99_BOUND_MS,
    });
  if (alone?.reports && both?.reports)
    goals.push({
      goal: `(b) the fleet's reports beside the operators: p99 ≤ ${fmt.ms(REPORT_P99_BOUND_MS)}, none refused or 5xx`,
      measured: `p99 ${fmt.ms(both.reports.latency.p99)} (alone ${fmt.ms(alone.reports.latency.p99)}), ${fmt.count(both.reports.result.refused)} refused, ${fmt.count(both.reports.result.failed)} 5xx`,
      rate: null,
      raw,
      ratio: null,
      holds: both.reports.latency.p99 <= REPORT_P99_BOUND_MS && both.reports.result.refused === 0 && both.reports.result.failed === 0,
    });
  goals.push({ goal: 'no request answered 5xx in any storm', measured: `${fmt.count(fives)}`, rate: null, raw, ratio: null, holds: fives === 0 });
  lines.push(...goalTable(goals));
  return lines;
}
