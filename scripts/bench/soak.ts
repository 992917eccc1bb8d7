import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import type { Database } from '../../packages/hub/src/database/connect.ts';
import { ADVISORY_LOCKS } from '../../packages/hub/src/database/advisory-locks.ts';
import { JOB_KEPT_SECONDS, JOB_MONITOR_SECONDS } from '../../packages/hub/src/jobs/boss.ts';
import { keepSegmentsAheadEvery, listSegments, SEGMENT_BOUNDS } from '../../packages/hub/src/event-store/segments.ts';
import { startHub, type Hub } from '../../packages/hub/src/hub.ts';
import { counterTotal } from '../../packages/hub/src/metrics.ts';
import type { BenchDatabase } from './database.ts';
import { onOwnDatabase, stop } from './interruptible.ts';
import { sizeOption } from './options.ts';
import {
  agentReport,
  endPollingAgents,
  FIRST_REPORT_SEQ,
  forkPollingAgents,
  POLLING_BOOT_ID,
  pollingAgentToken,
  pollingNodeId,
  type AgentCounts,
  type AgentsRequest,
  type Counts,
  type Created,
  type Progress,
  type Received,
} from './polling-agents.ts';
import { fleetConfig, inParallel, runCredentials, setUpFleet } from './tools/fleet.ts';
import * as fmt from './tools/format.ts';
import { goalTable, type Goal } from './tools/goals.ts';
import { heldPollCount } from './tools/held-polls.ts';
import { capturingLogger, type LogLine } from './tools/log-capture.ts';
import { dropFreshSegments } from './tools/log-segments.ts';
import { summary } from './tools/percentiles.ts';
import { liveMemory, type LiveMemory } from './tools/heap.ts';
import { log } from './tools/progress.ts';
import { createRawTable, rawSlice } from './tools/raw-inserts.ts';
import { newSeries, perSecond, type Series } from './tools/series.ts';
import { header, serverSettings, type Settings } from './tools/server.ts';
import { until } from './tools/until.ts';

/**
 * `npm run bench -- soak`: one in-process Hub with every background duty on, each shortened to run many times
 * in the soak, beside a fleet's and an operator's traffic, for SOAK_MINUTES (default 10), measured in windows
 * of SOAK_WINDOW_SECONDS (default 30). A duty that holds back the fleet's work while it runs (an archive run
 * holding a lock every pass takes) shows as a window whose deliveries stall or whose p99 leaps.
 *
 * The fleet: SOAK_NODES simulated agents (default 1,000; a child process, polling-agents.ts), each holding a
 * long poll, answering its attempts, and sending a full report every 10 s (the agent's default) and after its
 * attempts. The operator: before the soak, STREAMS_PER_NODE streams a node; then a desired write about every
 * second (PUT /streams/{id} with an Idempotency-Key, a new generation of one of a random node's streams), and
 * every two minutes a configuration version rolled out to a twentieth of the nodes, watched until it converges.
 *
 * Measured per window: desired write → attempt delivered (the PUT sent → the node's poll answering with that
 * generation; windows by the write's sending), reports accepted and failed, 5xx answers, what each duty did
 * (from the Hub's log lines and metrics, and the archive's lock seen held), the hot log's and the database's
 * size, the Hub process's memory. Over the run: its live heap at start, middle and end, the largest tables at
 * start, middle and end, warn and error log lines by message, the lock waits sampled with what held them, and
 * the delivery of the writes an archive run overlapped beside the others'. Raw single-row INSERTs just before
 * and after the soak give the machine's speed in that hour.
 */

/** The agent's default report period (packages/agent, REPORT_EVERY_MS). */
const REPORT_EVERY_MS = 10_000;
const WRITE_EVERY_MS = 1_000;
/** Streams of the operator's a node may run. */
const STREAMS_PER_NODE = 2;
/** Writes in flight while the set-up creates the operator's streams. */
const WRITE_CONCURRENCY = 16;
const ROLLOUT_EVERY_MS = 120_000;
const ROLLOUT_SHARE = 1 / 20;
const ROLLOUT_BATCH = 25;
/** After the soak: how long writes and a rollout in flight have to finish. */
const DRAIN_MS = 60_000;
const RAW_CLIENTS = 16;
const RAW_MS = 3_000;
/** The delivery goal under load (docs/benchmarks.md, "reconcile", goal (b)). */
const GOAL_DELIVERY_P99_MS = 500;
/** The Hub's live heap at the end may exceed the middle's by this share before it counts as growth. */
const HEAP_GROWTH = 0.2;
/** The Hub's tables over the last settled windows may exceed the first ones' by this share before they count as growing. */
const TABLE_GROWTH = 0.1;

/** The settings a soak shortens, each against what it stands for in production. */
interface Shortened {
  segmentMinutes: number;
  retentionMinutes: number;
  archiveEverySeconds: number;
  pruneEveryMs: number;
  resyncEveryMs: number;
  forgetKeysEveryMs: number;
  idempotencyTtlMs: number;
  approvalSweepEveryMs: number;
  segmentMinEvents: number;
  segmentMaxEvents: number;
}

/**
 * A third of the soak hot (3 minutes of 10), a minute at least: the log reaches its retention and stays there.
 * Segments at most a minute of the fleet's reports: the Hub sizes a segment from the rate since the segment
 * before the current one, which at first holds the set-up's burst (segments of several minutes, else).
 */
function shortened(minutes: number, nodes: number): Shortened {
  return {
    segmentMinutes: 1,
    retentionMinutes: Math.max(1, Math.round(minutes * 0.3)),
    archiveEverySeconds: 30,
    pruneEveryMs: 60_000,
    resyncEveryMs: 10_000,
    forgetKeysEveryMs: 10_000,
    idempotencyTtlMs: 60_000,
    approvalSweepEveryMs: 10_000,
    segmentMinEvents: 1_000,
    segmentMaxEvents: Math.max(1_000, Math.round((nodes * 60_000) / REPORT_EVERY_MS)),
  };
}

interface Options {
  nodes: number;
  minutes: number;
  windowSeconds: number;
}

function options(args: string[]): Options | null {
  if (args.length > 0) {
    log(`soak takes no arguments (got: ${args.join(' ')}); set SOAK_MINUTES, SOAK_NODES, SOAK_WINDOW_SECONDS`);
    return null;
  }
  const nodes = sizeOption('SOAK_NODES', 1_000, 20, log);
  const minutes = sizeOption('SOAK_MINUTES', 10, 1, log);
  const windowSeconds = sizeOption('SOAK_WINDOW_SECONDS', 30, 5, log);
  return nodes === null || minutes === null || windowSeconds === null ? null : { nodes, minutes, windowSeconds };
}

let agentsProcess: ChildProcess | null = null;

export async function run(args: string[]): Promise<number> {
  const o = options(args);
  if (o === null) return 2;
  const started = performance.now();
  return onOwnDatabase(log, (database) => soak(database, o, started), () => agentsProcess?.kill());
}

// ---------------------------------------------------------------------------------------------------------

/** One desired write: sent (ms since the epoch), its generation once answered, the attempt's arrival. */
interface Write {
  window: number;
  stream: string;
  sentAt: number;
  generation: number | null;
  failure: string | null;
  deliveredAt: number | null;
}

interface Rollout {
  /** Seconds since the soak began. */
  at: number;
  targets: number;
  created: Created | null;
  error: string | null;
  /** POST /rollouts sent → converged seen, seconds; null while it has not. */
  seconds: number | null;
}

interface Duties {
  archived: number;
  archivedEvents: number;
  segmentsAdded: number;
  pruned: number;
  leaseExpiries: number;
  resyncFound: number;
  /** Seconds the archive's lock was seen held (sampled). */
  archiveLockSeconds: number;
}

interface Window {
  index: number;
  /** Seconds since the soak began, at its start; its length. */
  at: number;
  seconds: number;
  writes: Write[];
  /** The operator's attempts the agents received during the window. */
  deliveredHere: number;
  counts: Counts;
  http5xx: number;
  duties: Duties;
  warnings: number;
  errors: number;
  rollouts: string[];
  hotLogBytes: number;
  hotSegments: number;
  /** The Hub's tables besides the log's and pg-boss's. */
  tableBytes: number;
  pgbossBytes: number;
  databaseBytes: number;
  rss: number;
  heap: number;
}

interface Sizes {
  database: number;
  hotLog: number;
  hotSegments: number;
  tables: Array<{ name: string; bytes: number }>;
}

/** The Hub process's memory at a moment of the soak (seconds since it began). */
interface MemorySample extends LiveMemory {
  at: number;
}

async function soak(database: BenchDatabase, o: Options, started: number): Promise<number> {
  const s = shortened(o.minutes, o.nodes);
  const bench = database.connect(RAW_CLIENTS + 2);
  const scratch = await mkdtemp(join(tmpdir(), 'fleetplane-bench-soak-'));
  try {
    await createRawTable(bench.pool);
    const settings = await serverSettings(bench.pool);
    await dropFreshSegments(database);
    const { tag, operatorToken } = runCredentials();
    const nodes = Array.from({ length: o.nodes }, (_, i) => pollingNodeId(i));
    const config = {
      ...fleetConfig(
        operatorToken,
        nodes.map((n): [string, string] => [n, pollingAgentToken(tag, n)]),
        {
          reconciliation: { mode: 'configuration' },
          control_api: { idempotency_ttl_ms: s.idempotencyTtlMs },
          log: {
            segment_duration: `${s.segmentMinutes}m`,
            hot_retention: `${s.retentionMinutes}m`,
            archive: join(scratch, 'archive'),
            archive_every: `${s.archiveEverySeconds}s`,
          },
        },
      ),
      dataDir: scratch,
    };
    const segmentBounds = { ...SEGMENT_BOUNDS, minEvents: s.segmentMinEvents, maxEvents: s.segmentMaxEvents };
    const captured = capturingLogger();
    const hubStarted = performance.now();
    const hub = await startHub({
      config,
      databaseUrl: database.url,
      port: 0,
      logger: captured.logger,
      resyncEveryMs: s.resyncEveryMs,
      pruneIntentsEveryMs: s.pruneEveryMs,
      forgetKeysEveryMs: s.forgetKeysEveryMs,
      approvalSweepEveryMs: s.approvalSweepEveryMs,
      segmentBounds,
    });
    let child: ChildProcess | null = null;
    try {
      const held = heldPollCount(hub);
      // The set-up's burst of registrations and first reports can fill the two segments ahead, this small, before
      // the Hub's upkeep (every 5 s) adds more: an append past them fails. Kept ahead every 100 ms meanwhile, as a
      // tool that appends in a burst does.
      const upkeep = keepSegmentsAheadEvery(bench.db, { ...segmentBounds, durationMs: s.segmentMinutes * 60_000 }, {
        everyMs: 100,
        now: () => new Date(),
        onError: (error) => log(`set-up: keeping segments ahead failed: ${(error as Error).message}`),
      });
      const setup = await setUpFleet(hub, bench.pool, nodes, POLLING_BOOT_ID, (node) => agentReport(node, FIRST_REPORT_SEQ, null)).finally(() => upkeep.stop());
      log(`set-up: ${setup}`);
      if (stop.requested) return 130;
      const forked = forkPollingAgents();
      child = agentsProcess = forked.child;
      const call = serially(forked.call);
      const port = Number(new URL(hub.url).port);
      // Started over one report period, so that the fleet's reports come at a steady rate.
      await call({ op: 'start', options: { port, tag, nodes: o.nodes, operatorToken, reportEveryMs: REPORT_EVERY_MS }, spreadMs: REPORT_EVERY_MS });
      if (!(await until(() => held() >= o.nodes, 120_000))) throw new Error(`only ${held()} of ${o.nodes} long polls held after 2 minutes`);
      log(`${fmt.count(o.nodes)} long polls held`);
      if (stop.requested) return 130;
      const streams = await createStreams(port, operatorToken, o.nodes, call);
      log(`streams: ${streams}`);
      if (stop.requested) return 130;

      const raw = newSeries();
      await rawSlice(bench.pool, 'soak', RAW_CLIENTS, RAW_MS, raw);
      const before = await sizes(bench);
      const run = await soakWindows(hub, bench, call, o, operatorToken, captured.lines, hubStarted);
      if (stop.requested) return 130;
      const after = await sizes(bench);
      await rawSlice(bench.pool, 'soak', RAW_CLIENTS, RAW_MS, raw);
      const counts = await call<AgentCounts>({ op: 'stop' });
      const total = (performance.now() - started) / 1000;
      const judged = judge(o, s, run, counts, captured.lines, raw);
      process.stdout.write(report({ database, settings, o, s, setup: `${setup}; ${streams}`, run, before, after, raw, counts, lines: captured.lines, judged, total }));
      return judged.verdicts.every((v) => v.holds) ? 0 : 1;
    } finally {
      agentsProcess = null;
      await endPollingAgents(child);
      await hub.stop();
    }
  } finally {
    await bench.close();
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The operator's streams, STREAMS_PER_NODE a node: the soak's writes are new generations of them, so its state tables stay as large. */
const operatorStream = (node: number, k: number) => `soak-${pollingNodeId(node)}-${k + 1}`;

/** Creates every operator stream (as the soak's writes do, SETUP_CONCURRENCY at once) and waits for their attempts to be delivered. */
async function createStreams(port: number, token: string, nodes: number, call: <T>(r: AgentsRequest) => Promise<T>): Promise<string> {
  const t = performance.now();
  const total = nodes * STREAMS_PER_NODE;
  await inParallel(0, total, WRITE_CONCURRENCY, async (i) => {
    const node = i % nodes;
    const answer = await desiredWrite(port, token, operatorStream(node, Math.floor(i / nodes)), pollingNodeId(node));
    if ('failure' in answer) throw new Error(answer.failure);
  });
  const created = (performance.now() - t) / 1000;
  const delivered = new Set<string>();
  if (!(await until(async () => {
    for (const r of (await call<Progress>({ op: 'progress' })).received) if (r.streamId?.startsWith('soak-')) delivered.add(r.streamId);
    return delivered.size >= total;
  }, 120_000, 500))) throw new Error(`${delivered.size} of ${total} streams delivered after 2 minutes`);
  return `${fmt.count(total)} streams created in ${created.toFixed(1)} s, their attempts delivered ${((performance.now() - t) / 1000 - created).toFixed(1)} s later`;
}

/** The agents' requests one at a time (their channel answers one at a time), whoever asks. */
function serially(call: <T>(r: AgentsRequest) => Promise<T>): <T>(r: AgentsRequest) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(r: AgentsRequest) => {
    const next = last.then(() => call<T>(r));
    last = next.catch(() => {});
    return next;
  };
}

interface Run {
  windows: Window[];
  writes: Write[];
  rollouts: Rollout[];
  memory: MemorySample[];
  /** The largest closed segment seen, bytes. */
  largestSegment: number;
  /** When archive runs were seen holding their lock. */
  archiveSpans: Span[];
  /** Sessions seen waiting on a lock. */
  lockWaits: LockWait[];
  /** The sizes at the middle of the soak, and when (seconds since it began). */
  middle: { at: number; sizes: Sizes } | null;
  /** Seconds from the Hub's start to the soak's. */
  hubAge: number;
  /** The drain after the soak: until the last writes were delivered and the last rollout converged, DRAIN_MS at most. */
  drainSeconds: number;
}

/**
 * The soak itself: the operator's writes and rollouts on timers of their own, the windows measured one after
 * another, then a drain in which the last writes and rollout may finish.
 */
async function soakWindows(
  hub: Hub,
  bench: Database,
  call: <T>(r: AgentsRequest) => Promise<T>,
  o: Options,
  token: string,
  lines: LogLine[],
  hubStarted: number,
): Promise<Run> {
  const pool = bench.pool;
  const start = performance.now();
  const since = () => (performance.now() - start) / 1000;
  const port = Number(new URL(hub.url).port);
  const writes: Write[] = [];
  const rollouts: Rollout[] = [];
  const memory: MemorySample[] = [];
  const windows: Window[] = [];
  let window = 0;
  let operating = true;
  let finished = false;
  /** While the Hub's memory is read, the operator holds its writes. */
  let holding = false;
  const pending: Promise<unknown>[] = [];
  const watchers: Promise<void>[] = [];

  // The operator's desired writes, about one a second, each answered whenever the Hub answers.
  const writeLoop = (async () => {
    while (operating && !stop.requested) {
      if (holding) {
        await pause(50);
        continue;
      }
      const i = Math.floor(Math.random() * o.nodes);
      const node = pollingNodeId(i);
      const stream = operatorStream(i, Math.floor(Math.random() * STREAMS_PER_NODE));
      const w: Write = { window, stream, sentAt: performance.timeOrigin + performance.now(), generation: null, failure: null, deliveredAt: null };
      writes.push(w);
      pending.push(desiredWrite(port, token, stream, node).then(
        (answer) => {
          if ('generation' in answer) w.generation = answer.generation;
          else w.failure = answer.failure;
        },
        (e: unknown) => void (w.failure = String(e)),
      ));
      await pause(WRITE_EVERY_MS * (0.5 + Math.random()));
    }
  })();

  // A configuration rollout every ROLLOUT_EVERY_MS, the first after half of that: created, then watched.
  const targets = Math.max(1, Math.round(o.nodes * ROLLOUT_SHARE));
  const rolloutLoop = (async () => {
    await pause(ROLLOUT_EVERY_MS / 2, () => !operating);
    while (operating && !stop.requested) {
      const r: Rollout = { at: since(), targets, created: null, error: null, seconds: null };
      rollouts.push(r);
      const from = Math.floor(Math.random() * o.nodes);
      try {
        r.created = await call<Created>({ op: 'rollout', content: `soak ${randomUUID()}`, batchSize: ROLLOUT_BATCH, nodes: targets, from });
        if (!r.created.rolloutId) r.error = `POST /rollouts: ${r.created.error}`;
      } catch (e) {
        r.error = String(e);
      }
      const id = r.created?.rolloutId;
      if (id) {
        const sentAt = r.created!.sentAt;
        watchers.push(
          (async () => {
            while (!finished && !stop.requested) {
              const { rows } = await pool.query<{ state: string }>(`SELECT state FROM rollouts WHERE rollout_id = $1`, [id]);
              if (rows[0]?.state === 'converged') return void (r.seconds = (performance.timeOrigin + performance.now() - sentAt) / 1000);
              await pause(250);
            }
          })(),
        );
      }
      await pause(ROLLOUT_EVERY_MS, () => !operating);
    }
  })();

  // Start, middle and end: after a full collection each, which stops the Hub's thread for 100-300 ms here, so
  // the operator holds its writes from a second before it until it is done: no delivery waits on it.
  const remember = async () => {
    holding = true;
    await pause(1_000);
    memory.push({ at: since(), ...liveMemory() });
    holding = false;
  };
  await remember();
  const archiveLock = lockSampler(pool, ADVISORY_LOCKS.archive);
  const received: Received[] = [];
  let counts: Counts = { emptyPolls: 0, attempts: 0, results: 0, reports: 0, resent: 0, errors: 0, firstError: null };
  let largestSegment = 0;
  let metrics = await hubCounters(hub);
  let linesRead = lines.length;
  let rolloutsSeen = 0;
  let middle: Run['middle'] = null;
  const count = Math.max(1, Math.round((o.minutes * 60) / o.windowSeconds));
  try {
    for (; window < count && !stop.requested; ) {
      const at = since();
      const end = start + (window + 1) * o.windowSeconds * 1000;
      await pause(end - performance.now());
      const progress = await call<Progress>({ op: 'progress' });
      const windowStart = performance.timeOrigin + start + window * o.windowSeconds * 1000;
      const operators = progress.received.filter((r) => r.streamId?.startsWith('soak-'));
      received.push(...operators);
      const m = await hubCounters(hub);
      const newLines = lines.slice(linesRead);
      linesRead = lines.length;
      const hot = await hotLog(bench);
      largestSegment = Math.max(largestSegment, hot.largestClosed);
      const mem = process.memoryUsage();
      const w: Window = {
        index: window,
        at,
        seconds: since() - at,
        writes: writes.filter((x) => x.window === window),
        deliveredHere: operators.filter((r) => r.at >= windowStart).length,
        counts: minus(progress.counts, counts),
        http5xx: m.http5xx - metrics.http5xx,
        duties: {
          archived: newLines.filter((l) => l.message === 'log segment archived').length,
          archivedEvents: newLines.filter((l) => l.message === 'log segment archived').reduce((n, l) => n + Number(l.fields.events ?? 0), 0),
          segmentsAdded: newLines.filter((l) => l.message === 'log segments added').reduce((n, l) => n + ((l.fields.segments as unknown[] | undefined)?.length ?? 0), 0),
          pruned: newLines.filter((l) => l.message === 'intents pruned').reduce((n, l) => n + Number(l.fields.intents ?? 0) + Number(l.fields.attempts ?? 0), 0),
          leaseExpiries: m.leaseExpiries - metrics.leaseExpiries,
          resyncFound: m.resyncFound - metrics.resyncFound,
          archiveLockSeconds: archiveLock.take(),
        },
        warnings: newLines.filter((l) => l.level === 'warn').length,
        errors: newLines.filter((l) => l.level === 'error').length,
        rollouts: rollouts.slice(rolloutsSeen).map((r) => `started at ${r.at.toFixed(0)} s`),
        ...hot,
        rss: mem.rss,
        heap: mem.heapUsed,
      };
      rolloutsSeen = rollouts.length;
      counts = progress.counts;
      metrics = m;
      windows.push(w);
      window++;
      match(writes, received);
      log(windowLine(w));
      if (window === Math.ceil(count / 2)) middle = { at: since(), sizes: await sizes(bench) };
      if (window === Math.ceil(count / 2) || window === count) await remember();
    }
  } finally {
    operating = false;
    await writeLoop;
    await rolloutLoop;
  }
  // The drain: the last writes delivered, the last rollout converged, or DRAIN_MS gone.
  const drainStart = performance.now();
  await until(async () => {
    received.push(...(await call<Progress>({ op: 'progress' })).received.filter((r) => r.streamId?.startsWith('soak-')));
    match(writes, received);
    return writes.every((w) => w.failure !== null || (w.generation !== null && w.deliveredAt !== null)) && rollouts.every((r) => r.error !== null || r.seconds !== null);
  }, DRAIN_MS, 500);
  finished = true;
  await Promise.all(watchers);
  await archiveLock.stop();
  // A write still unanswered (a Hub that stalls) is left: it fails as the Hub stops.
  await Promise.race([Promise.allSettled(pending), pause(1_000)]);
  return { windows, writes, rollouts, memory, largestSegment, archiveSpans: archiveLock.spans, lockWaits: [...archiveLock.waits.values()], middle, hubAge: (start - hubStarted) / 1000, drainSeconds: (performance.now() - drainStart) / 1000 };
}

/** Waits `ms`, or less once `cancelled` says so (asked every 200 ms). */
async function pause(ms: number, cancelled: () => boolean = () => false): Promise<void> {
  const end = performance.now() + ms;
  while (performance.now() < end && !cancelled() && !stop.requested) await new Promise((r) => setTimeout(r, Math.max(1, Math.min(200, end - performance.now()))));
}

/** The operator's desired write: a new spec (so a new generation) of `stream`, placed on `node`, with an Idempotency-Key. */
async function desiredWrite(port: number, token: string, stream: string, node: string): Promise<{ generation: number } | { failure: string }> {
  const answer = await fetch(`http://127.0.0.1:${port}/api/v1/streams/${stream}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify({ desired_state: 'running', spec: { command: 'sleep', args: [randomUUID().slice(0, 8)] }, placement: { nodes: [node] } }),
  });
  const text = await answer.text();
  if (answer.status !== 200) return { failure: `PUT ${stream}: ${answer.status} ${text.slice(0, 300)}` };
  return { generation: (JSON.parse(text) as { generation: number }).generation };
}

/** Each write's delivery: the first attempt its node received for its stream at its generation or later, after it was sent. */
function match(writes: Write[], received: readonly Received[]): void {
  for (const w of writes) {
    if (w.generation === null || w.deliveredAt !== null) continue;
    for (const r of received) {
      if (r.streamId === w.stream && r.generation >= w.generation && r.at >= w.sentAt && (w.deliveredAt === null || r.at < w.deliveredAt)) w.deliveredAt = r.at;
    }
  }
}

const delivery = (writes: readonly Write[]) => summary(writes.filter((w) => w.deliveredAt !== null).map((w) => w.deliveredAt! - w.sentAt));

function minus(a: Counts, b: Counts): Counts {
  return {
    emptyPolls: a.emptyPolls - b.emptyPolls,
    attempts: a.attempts - b.attempts,
    results: a.results - b.results,
    reports: a.reports - b.reports,
    resent: a.resent - b.resent,
    errors: a.errors - b.errors,
    firstError: a.firstError !== b.firstError ? a.firstError : null,
  };
}

/** The Hub's counters a window reads: 5xx answers, leases expired, work the resync found. */
async function hubCounters(hub: Hub): Promise<{ http5xx: number; leaseExpiries: number; resyncFound: number }> {
  const { values } = await hub.context.metrics.httpRequests.get();
  return {
    http5xx: values.filter((v) => Number(v.labels.status) >= 500).reduce((n, v) => n + v.value, 0),
    leaseExpiries: await counterTotal(hub.context.metrics.leaseExpiries),
    resyncFound: await counterTotal(hub.context.metrics.resyncFound),
  };
}

const SAMPLE_MS = 200;

/** A span a lock was seen held, in ms since the epoch (comparable with the writes' times). */
interface Span {
  from: number;
  to: number;
}

/** Sessions seen waiting on a lock, by what waited and what held it: how often, the longest wait seen, when. */
interface LockWait {
  waiting: string;
  blocking: string;
  samples: number;
  longest: number;
  /** ms since the epoch, of each sample. */
  seen: number[];
}

/**
 * Samples every SAMPLE_MS whether a session holds the one-key advisory lock `key` exclusively (an archive run
 * holds it while it works; commands that share a key take it shared): `take` answers the seconds seen held
 * since it was last called, `spans` every span seen. Each sample also notes the sessions waiting on a lock,
 * with the statements that hold them back: where a duty holds back the fleet's work, and with what.
 */
function lockSampler(pool: pg.Pool, key: number): { take(): number; spans: Span[]; waits: Map<string, LockWait>; stop(): Promise<void> } {
  let held = 0;
  let running = true;
  const spans: Span[] = [];
  const waits = new Map<string, LockWait>();
  let open: Span | null = null;
  const loop = (async () => {
    while (running) {
      const { rows } = await pool.query<{ held: boolean; waiting: string | null; blocking: string | null; waited: number | null }>(
        `SELECT EXISTS (SELECT FROM pg_locks WHERE locktype = 'advisory' AND granted AND mode = 'ExclusiveLock' AND objsubid = 1
                  AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) AND ((classid::bigint << 32) | objid::bigint) = $1) AS held,
                w.waiting, w.blocking, w.waited
           FROM (SELECT 1) one LEFT JOIN (
             SELECT left(a.query, 80) AS waiting, extract(epoch FROM now() - a.state_change) * 1000 AS waited,
                    (SELECT string_agg(DISTINCT left(b.query, 80), ' | ') FROM pg_stat_activity b WHERE b.pid = ANY (pg_blocking_pids(a.pid))) AS blocking
               FROM pg_stat_activity a WHERE a.datname = current_database() AND a.wait_event_type = 'Lock') w ON true`,
        [key],
      );
      const now = performance.timeOrigin + performance.now();
      if (rows[0]!.held) {
        held += SAMPLE_MS / 1000;
        if (open) open.to = now;
        else spans.push((open = { from: now - SAMPLE_MS / 2, to: now }));
      } else if (open) {
        open.to = now - SAMPLE_MS / 2;
        open = null;
      }
      for (const r of rows) {
        if (r.waiting === null) continue;
        const [waiting, blocking] = [r.waiting, r.blocking ?? '?'].map((q) => q.replace(/\s+/g, ' '));
        const id = `${waiting} ← ${blocking}`;
        const w = waits.get(id) ?? { waiting: waiting!, blocking: blocking!, samples: 0, longest: 0, seen: [] };
        w.samples++;
        w.longest = Math.max(w.longest, Number(r.waited));
        w.seen.push(now);
        waits.set(id, w);
      }
      await new Promise((r) => setTimeout(r, SAMPLE_MS));
    }
  })();
  return {
    take() {
      const seconds = held;
      held = 0;
      return seconds;
    },
    spans,
    waits,
    async stop() {
      running = false;
      await loop;
    },
  };
}

/** The Hub's tables besides the log's segments and pg-boss's (whose ended jobs stay a day, JOB_KEPT_SECONDS). */
const hubTables = (sizes: Sizes) => sizes.tables.filter((t) => !t.name.startsWith('pgboss.')).reduce((n, t) => n + t.bytes, 0);

const TABLES_SQL = `
  SELECT n.nspname AS schema, c.relname AS name, pg_total_relation_size(c.oid) AS bytes
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE c.relkind = 'r' AND NOT c.relispartition AND n.nspname IN ('public', 'pgboss') AND c.relname <> 'bench_raw'`;

/** The hot log (its segments), the Hub's other tables, pg-boss's, the database. */
async function hotLog(bench: Database): Promise<{ hotLogBytes: number; hotSegments: number; largestClosed: number; tableBytes: number; pgbossBytes: number; databaseBytes: number }> {
  const pool = bench.pool;
  const segments = await listSegments(bench.db);
  const { rows } = await pool.query<{ schema: string; bytes: string }>(TABLES_SQL);
  const database = Number((await pool.query<{ bytes: string }>(`SELECT pg_database_size(current_database()) AS bytes`)).rows[0]!.bytes);
  const sum = (schema: string) => rows.filter((r) => r.schema === schema).reduce((n, r) => n + Number(r.bytes), 0);
  return {
    hotLogBytes: segments.reduce((n, x) => n + x.bytes, 0),
    hotSegments: segments.filter((x) => !x.ahead).length,
    largestClosed: Math.max(0, ...segments.filter((x) => x.closed).map((x) => x.bytes)),
    tableBytes: sum('public'),
    pgbossBytes: sum('pgboss'),
    databaseBytes: database,
  };
}

async function sizes(bench: Database): Promise<Sizes> {
  const hot = await hotLog(bench);
  const { rows } = await bench.pool.query<{ schema: string; name: string; bytes: string }>(TABLES_SQL);
  return {
    database: hot.databaseBytes,
    hotLog: hot.hotLogBytes,
    hotSegments: hot.hotSegments,
    tables: rows.map((r) => ({ name: r.schema === 'public' ? r.name : `${r.schema}.${r.name}`, bytes: Number(r.bytes) })),
  };
}

const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;

function windowLine(w: Window): string {
  const d = delivery(w.writes);
  const duties = [
    w.duties.archived ? `segments archived: ${w.duties.archived} (${fmt.count(w.duties.archivedEvents)} events)` : '',
    w.duties.archiveLockSeconds ? `archive lock held ${w.duties.archiveLockSeconds.toFixed(1)} s` : '',
    w.duties.segmentsAdded ? `segments added: ${w.duties.segmentsAdded}` : '',
    w.duties.pruned ? `intents and attempts pruned: ${fmt.count(w.duties.pruned)}` : '',
    w.duties.leaseExpiries ? `leases expired: ${w.duties.leaseExpiries}` : '',
    w.duties.resyncFound ? `resync found ${w.duties.resyncFound}` : '',
  ].filter(Boolean);
  return (
    `window ${w.index + 1} (${w.at.toFixed(0)} s): ${w.writes.length} writes, ${w.deliveredHere} delivered in it, delivery p50 ${fmt.ms(d.p50)}, p99 ${fmt.ms(d.p99)}, max ${fmt.ms(d.max)}; ` +
    `${fmt.count(w.counts.reports / w.seconds)} reports/s, ${w.counts.errors} agent failures, ${w.http5xx} 5xx, ${w.warnings} warn, ${w.errors} error; ` +
    `${duties.join(', ') || 'no duty logged'}; hot log ${mb(w.hotLogBytes)} in ${w.hotSegments} segments, tables ${mb(w.tableBytes)}, heap ${mb(w.heap)}` +
    (w.counts.firstError ? `; first failure: ${w.counts.firstError}` : '')
  );
}

/** A verdict: a goal row whose conditions are judged. */
interface Verdict extends Goal {
  holds: boolean;
}

interface Judged {
  verdicts: Verdict[];
  /** Delivery of the writes an archive run overlapped, beside the others'. */
  overlap: string;
  /** The slowest deliveries, when their writes were sent (seconds after the first write), and whether an archive run overlapped them. */
  slow: string;
  /** Checks not judged, and why. */
  unjudged: string[];
}

function judge(o: Options, s: Shortened, run: Run, counts: AgentCounts, lines: readonly LogLine[], raw: Series): Judged {
  const rawRate = perSecond(raw);
  const verdicts: Verdict[] = [];
  const unjudged: string[] = [];
  const add = (goal: string, measured: string, holds: boolean) => verdicts.push({ goal, measured, rate: null, raw: rawRate, ratio: null, holds });
  const ws = run.windows;
  let overlap = '';
  let slow = '';

  const worst = ws.map((w) => ({ w, d: delivery(w.writes) })).sort((a, b) => (b.d.p99 || 0) - (a.d.p99 || 0))[0];
  const all = delivery(run.writes);
  add(
    `desired write → attempt delivered: p99 ≤ ${GOAL_DELIVERY_P99_MS} ms in every ${o.windowSeconds} s window (reconcile's goal (b) under load)`,
    `overall p50 ${fmt.ms(all.p50)}, p99 ${fmt.ms(all.p99)}, max ${fmt.ms(all.max)} (N=${all.n}); worst window ${worst ? `${worst.w.index + 1}: p99 ${fmt.ms(worst.d.p99)}` : '–'}`,
    ws.every((w) => w.writes.length === 0 || delivery(w.writes).p99 <= GOAL_DELIVERY_P99_MS),
  );
  const stalls = ws.filter((w) => w.writes.length > 0 && w.deliveredHere === 0);
  // A write made while an archive run held its lock, or whose delivery that run overlapped.
  const duringArchive = (w: Write) => run.archiveSpans.some((x) => x.to >= w.sentAt && x.from <= (w.deliveredAt ?? Infinity));
  const [archiving, others] = [run.writes.filter(duringArchive), run.writes.filter((w) => !duringArchive(w))].map(delivery);
  const slowest = run.writes.filter((w) => w.deliveredAt !== null).sort((a, b) => b.deliveredAt! - b.sentAt - (a.deliveredAt! - a.sentAt)).slice(0, 5);
  const soakStart = run.writes[0]?.sentAt ?? 0;
  slow = slowest.map((w) => `${fmt.ms(w.deliveredAt! - w.sentAt)} (sent at ${((w.sentAt - soakStart) / 1000).toFixed(1)} s${duringArchive(w) ? ', an archive run overlapping' : ''})`).join(', ');
  add(
    `the archive holds back no delivery: the writes whose wait an archive run overlapped delivered with p50 ≤ ${GOAL_DELIVERY_P99_MS} ms (a run holding what passes take makes them wait for its end)`,
    archiving!.n === 0 ? 'no write overlapped an archive run' : `p50 ${fmt.ms(archiving!.p50)}, max ${fmt.ms(archiving!.max)} (N=${archiving!.n}); the others p50 ${fmt.ms(others!.p50)}`,
    archiving!.n === 0 || archiving!.p50 <= GOAL_DELIVERY_P99_MS,
  );
  overlap = `writes whose wait an archive run overlapped: N=${archiving!.n}, p50 ${fmt.ms(archiving!.p50)}, max ${fmt.ms(archiving!.max)}; the others: N=${others!.n}, p50 ${fmt.ms(others!.p50)}, p99 ${fmt.ms(others!.p99)}, max ${fmt.ms(others!.max)}`;
  add('no stall: every window in which writes were made delivered some', stalls.length ? `${stalls.length} windows delivered nothing: ${stalls.map((w) => w.index + 1).join(', ')}` : 'none', stalls.length === 0);
  const failed = run.writes.filter((w) => w.failure !== null);
  const undelivered = run.writes.filter((w) => w.failure === null && w.deliveredAt === null);
  add(
    'every desired write answered 200 and its attempt delivered',
    `${fmt.count(run.writes.length)} writes: ${failed.length} failed, ${undelivered.length} not delivered (the drain after the last: ${run.drainSeconds.toFixed(1)} s)` + (failed[0] ? ` (first: ${failed[0].failure})` : ''),
    failed.length === 0 && undelivered.length === 0,
  );
  const http5xx = ws.reduce((n, w) => n + w.http5xx, 0);
  add('no 5xx answer', `${http5xx}`, http5xx === 0);
  const errors = lines.filter((l) => l.level === 'error');
  add('no `error` log line', `${errors.length}` + (errors[0] ? ` (first: ${errors[0].message})` : ''), errors.length === 0);
  const reports = ws.reduce((n, w) => n + w.counts.reports, 0);
  const seconds = ws.reduce((n, w) => n + w.seconds, 0);
  add(
    "the agents' requests (polls, results, reports) all answered",
    `${fmt.count(reports / seconds)} reports/s accepted (${fmt.count(o.nodes / (REPORT_EVERY_MS / 1000))}/s due, and one after each attempt); ${counts.errors} failed` + (counts.firstError ? ` (first: ${counts.firstError})` : ''),
    counts.errors === 0,
  );
  const notConverged = run.rollouts.filter((r) => r.seconds === null);
  add(
    'every configuration rollout converged',
    `${run.rollouts.length} rollouts, ${notConverged.length} not converged` + (run.rollouts.length ? `; POST → converged ${run.rollouts.filter((r) => r.seconds !== null).map((r) => fmt.seconds(r.seconds!)).join(', ')}` : ''),
    notConverged.length === 0,
  );

  // From (retention + 2 segments) after the Hub began: the oldest segment then hot is one being archived.
  const settledFrom = (s.retentionMinutes + 2 * s.segmentMinutes) * 60 - run.hubAge;
  const settled = ws.filter((w) => w.at >= settledFrom);
  if (settled.length >= 2) {
    const hot = settled.map((w) => w.hotLogBytes);
    const [min, max] = [Math.min(...hot), Math.max(...hot)];
    add(
      `hot log bounded: over the windows from ${settledFrom.toFixed(0)} s (retention reached), within one segment of its smallest`,
      `${mb(min)} to ${mb(max)}; largest segment ${mb(run.largestSegment)}`,
      max - min <= run.largestSegment,
    );
  } else {
    unjudged.push(
      `hot log bounded: not judged, the log reaches its retention ${settledFrom.toFixed(0)} s into the soak (hot_retention ${s.retentionMinutes}m and two segments of ${s.segmentMinutes}m after the Hub began), and ${settled.length} window(s) came after`,
    );
  }
  if (settled.length >= 4) {
    // The largest of each half: autovacuum makes the tables a sawtooth, which one moment's size would misread.
    const half = Math.floor(settled.length / 2);
    const [earlier, later] = [settled.slice(0, half), settled.slice(half)].map((ws) => Math.max(...ws.map((w) => w.tableBytes)));
    add(
      `tables bounded (the Hub's, besides the log and pg-boss's): their largest over the last half of the windows from ${settledFrom.toFixed(0)} s within ${fmt.percent(TABLE_GROWTH)} of their largest over the first half`,
      `${mb(earlier!)} then ${mb(later!)} (${fmt.percent(later! / earlier! - 1, 1)})`,
      later! <= earlier! * (1 + TABLE_GROWTH),
    );
  } else {
    unjudged.push(`tables bounded: not judged, fewer than 4 windows after the log reached its retention (${settledFrom.toFixed(0)} s)`);
  }
  const [, middle, end] = run.memory;
  if (middle && end) {
    add(
      `Hub memory not growing: its live heap (after a full collection) at the end within ${fmt.percent(HEAP_GROWTH)} of the middle's`,
      `${mb(middle.heap)} at ${middle.at.toFixed(0)} s, ${mb(end.heap)} at ${end.at.toFixed(0)} s (${fmt.percent(end.heap / middle.heap - 1, 1)}); RSS ${mb(middle.rss)}, ${mb(end.rss)}`,
      end.heap <= middle.heap * (1 + HEAP_GROWTH),
    );
  }
  return { verdicts, overlap, slow, unjudged };
}

interface Results {
  database: BenchDatabase;
  settings: Settings;
  o: Options;
  s: Shortened;
  setup: string;
  run: Run;
  before: Sizes;
  after: Sizes;
  raw: Series;
  counts: AgentCounts;
  lines: readonly LogLine[];
  judged: Judged;
  total: number;
}

const YEAR_S = 365 * 86_400;

function report(r: Results): string {
  const { o, s, run } = r;
  const soakS = run.windows.reduce((n, w) => n + w.seconds, 0);
  const sum = (k: keyof Duties) => run.windows.reduce((n, w) => n + w.duties[k], 0);
  const runs = (everyS: number) => `≈ ${fmt.count(soakS / everyS)} runs`;
  const yearly = (everyS: number) => fmt.count(YEAR_S / everyS);
  const settings = fmt.table(
    ['duty', 'setting', 'in production (default)', 'in this soak', 'in a year of production', 'in this soak'],
    [
      [
        'log segments',
        '`log.segment_duration`; segment bounds',
        '1d; 100,000 to 50,000,000 events',
        `${s.segmentMinutes}m; ${fmt.count(s.segmentMinEvents)} to ${fmt.count(s.segmentMaxEvents)} events (a minute of reports)`, '365 segments', `${sum('segmentsAdded')} segments added`],
      ['hot log', '`log.hot_retention`', '7d', `${s.retentionMinutes}m`, '7 days hot, 358 archived', `${s.retentionMinutes} min hot`],
      [
        'archive run (segment file, checkpoint, record, drop)',
        '`log.archive_every`, a directory archive',
        '1m',
        `${s.archiveEverySeconds}s`,
        `${yearly(60)} runs, 358 segments archived`,
        `${runs(s.archiveEverySeconds)}, ${sum('archived')} segments archived (${fmt.count(sum('archivedEvents'))} events), lock seen held ${sum('archiveLockSeconds').toFixed(1)} s`,
      ],
      ['intents and attempts pruned', '`pruneIntentsEveryMs`', '1 h', `${s.pruneEveryMs / 60_000} min`, `${yearly(3_600)} runs`, `${runs(s.pruneEveryMs / 1000)}, ${fmt.count(sum('pruned'))} rows pruned`],
      ['resync', '`resyncEveryMs`', '1 min', `${s.resyncEveryMs / 1000} s`, `${yearly(60)} runs`, `${runs(s.resyncEveryMs / 1000)}, found work ${sum('resyncFound')} times`],
      ['lease sweep', '`sweepEveryMs`', '1 s', '1 s', `${yearly(1)} runs`, `${runs(1)}, ${sum('leaseExpiries')} leases expired`],
      [
        'Idempotency-Key expiry',
        '`forgetKeysEveryMs`; `control_api.idempotency_ttl_ms`',
        '1 min; 1 day',
        `${s.forgetKeysEveryMs / 1000} s; ${s.idempotencyTtlMs / 60_000} min`,
        `${yearly(60)} runs`,
        `${runs(s.forgetKeysEveryMs / 1000)}; every write carries a key`,
      ],
      ['approval sweep', '`approvalSweepEveryMs`', '60 s', `${s.approvalSweepEveryMs / 1000} s`, `${yearly(60)} runs`, runs(s.approvalSweepEveryMs / 1000)],
      ['segment upkeep', '`segmentsEveryMs`', '5 s', '5 s', `${yearly(5)} runs`, runs(5)],
      [
        'pg-boss supervision and maintenance',
        'JOB_MONITOR_SECONDS; ended jobs kept JOB_KEPT_SECONDS',
        `${JOB_MONITOR_SECONDS} s; ${JOB_KEPT_SECONDS / 3_600} h`,
        'the same (not shortened)',
        `${yearly(JOB_MONITOR_SECONDS)} runs`,
        `${runs(JOB_MONITOR_SECONDS)}; no job is old enough to go`,
      ],
    ],
  );
  const windows = fmt.table(
    ['window', 'from (s)', 'writes', 'delivered in it', 'delivery p50 / p99 / max', 'reports/s', 'agent failures', '5xx', 'archived (lock held)', 'segments added', 'pruned', 'leases expired', 'warn / error', 'hot log (segments)', 'tables', 'pg-boss', 'database', 'heap', 'rollouts'],
    run.windows.map((w) => {
      const d = delivery(w.writes);
      return [
        `${w.index + 1}`,
        w.at.toFixed(0),
        `${w.writes.length}`,
        `${w.deliveredHere}`,
        `${fmt.ms(d.p50)} / ${fmt.ms(d.p99)} / ${fmt.ms(d.max)}`,
        fmt.count(w.counts.reports / w.seconds),
        `${w.counts.errors}`,
        `${w.http5xx}`,
        `${w.duties.archived} (${w.duties.archiveLockSeconds.toFixed(1)} s)`,
        `${w.duties.segmentsAdded}`,
        fmt.count(w.duties.pruned),
        `${w.duties.leaseExpiries}`,
        `${w.warnings} / ${w.errors}`,
        `${mb(w.hotLogBytes)} (${w.hotSegments})`,
        mb(w.tableBytes),
        mb(w.pgbossBytes),
        mb(w.databaseBytes),
        mb(w.heap),
        w.rollouts.join(', '),
      ];
    }),
  );
  const memory = run.memory.map((m) => `${m.at.toFixed(0)} s: RSS ${mb(m.rss)}, live heap ${mb(m.heap)} (the collection took ${fmt.ms(m.gcMs)})`).join('; ');
  const largest = [...r.after.tables].sort((a, b) => b.bytes - a.bytes).slice(0, 10);
  const beforeOf = (name: string) => r.before.tables.find((t) => t.name === name)?.bytes ?? 0;
  const mid = run.middle?.sizes;
  const middleOf = (name: string) => (mid ? mb(mid.tables.find((t) => t.name === name)?.bytes ?? 0) : '–');
  const tables = fmt.table(
    ['table', 'at the start', `at the middle (${run.middle ? `${run.middle.at.toFixed(0)} s` : '–'})`, 'at the end'],
    [
      [`events (the hot log: its segments)`, `${mb(r.before.hotLog)} (${r.before.hotSegments})`, mid ? `${mb(mid.hotLog)} (${mid.hotSegments})` : '–', `${mb(r.after.hotLog)} (${r.after.hotSegments})`],
      ...largest.map((t) => [t.name, mb(beforeOf(t.name)), middleOf(t.name), mb(t.bytes)]),
      [`the Hub's tables besides the log and pg-boss's`, mb(hubTables(r.before)), mid ? mb(hubTables(mid)) : '–', mb(hubTables(r.after))],
      ['the database', mb(r.before.database), mid ? mb(mid.database) : '–', mb(r.after.database)],
    ],
  );
  const byMessage = new Map<string, number>();
  for (const l of r.lines.filter((x) => x.level === 'warn' || x.level === 'error')) byMessage.set(`${l.level}: ${l.message}`, (byMessage.get(`${l.level}: ${l.message}`) ?? 0) + 1);
  const rawStats = summary(r.raw.latencies);
  return [
    ...header('soak', r.database, r.settings, 'one Hub in-process with every background duty on, shortened; agents in a child process over HTTP keep-alive, one long poll held per node (wait 20-25 s)'),
    `Fleet: ${fmt.count(o.nodes)} nodes, each reporting every ${REPORT_EVERY_MS / 1000} s and after its attempts, holding a long poll; reconciliation mode \`configuration\`. ` +
      `Operator: a desired write about every ${WRITE_EVERY_MS / 1000} s (a new generation of one of a random node's ${STREAMS_PER_NODE} streams, with an Idempotency-Key), ` +
      `a configuration rollout to ${fmt.count(Math.max(1, Math.round(o.nodes * ROLLOUT_SHARE)))} nodes (batches of ${ROLLOUT_BATCH}) every ${ROLLOUT_EVERY_MS / 60_000} min. ` +
      `${o.minutes} min in windows of ${o.windowSeconds} s; whole run ${r.total.toFixed(0)} s`,
    `Set-up: ${r.setup}`,
    '',
    `What each duty's setting stands for: a soak minute is a day of the log (segments of a minute's events for a day's, ${s.retentionMinutes} min hot for 7 days), ` +
      `so the soak passes its segments through their whole life (written, closed, archived with a checkpoint, dropped) as ${o.minutes} days of a year do; the duties on timers run as often as production's or up to 60 times more.`,
    '',
    ...settings,
    '',
    ...windows,
    '',
    `Delivery and the archive (its lock seen held ${run.archiveSpans.length} times, ${run.archiveSpans.map((x) => fmt.seconds((x.to - x.from) / 1000)).join(', ') || 'never'}): ${r.judged.overlap}.`,
    `The slowest deliveries: ${r.judged.slow || 'none'}.`,
    `Sessions seen waiting on a lock (sampled every ${SAMPLE_MS} ms), by what waited ← what held it: ${run.lockWaits.length === 0 ? 'none' : ''}`,
    ...[...run.lockWaits]
      .sort((a, b) => b.samples - a.samples)
      .slice(0, 8)
      .map((w) => `- ${w.samples} × \`${w.waiting}\` ← \`${w.blocking}\`, longest ${fmt.ms(w.longest)}, at ${w.seen.slice(0, 6).map((t) => `${((t - (run.writes[0]?.sentAt ?? t)) / 1000).toFixed(0)} s`).join(', ')}`),
    `Agents: ${fmt.count(r.counts.attempts)} attempts received, ${fmt.count(r.counts.results)} results and ${fmt.count(r.counts.reports)} reports accepted, ` +
      `${fmt.count(r.counts.emptyPolls)} polls ran out empty and were sent again, ${fmt.count(r.counts.resent)} requests sent again on a new socket, ${r.counts.errors} failed.`,
    `Hub process (this one; the agents are another): ${memory}.`,
    `(c) raw single-row INSERT, ${RAW_CLIENTS} clients, autocommit, just before and just after: ${fmt.count(perSecond(r.raw))} inserts/s, p99 ${fmt.ms(rawStats.p99)}.`,
    '',
    ...tables,
    '',
    `Log lines at warn and error, by message: ${byMessage.size === 0 ? 'none' : ''}`,
    ...[...byMessage].sort((a, b) => b[1] - a[1]).map(([m, n]) => `- ${n} × ${m}`),
    '',
    'Verdicts (latency and counts: the raw rate beside them says what hour it was; see docs/benchmarks.md, "Reading a report"):',
    '',
    ...goalTable(r.judged.verdicts),
    ...r.judged.unjudged.map((u) => `- ${u}`),
    '',
  ].join('\n');
}
