import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { MAX_BATCH_SIZE } from '@fleetplane/core';
import type { Database } from '../../packages/hub/src/database/connect.ts';
import { startHub, type Hub } from '../../packages/hub/src/hub.ts';
import { createLogger } from '../../packages/hub/src/logger.ts';
import type { BenchDatabase } from './database.ts';
import { onOwnDatabase, stop } from './interruptible.ts';
import { benchSeconds, sizeOption } from './options.ts';
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
  type Created,
} from './polling-agents.ts';
import { addCpu, cpuSnapshot, emptyCpu, type CpuOwners, type CpuTotals } from './tools/cpu.ts';
import { fleetConfig, runCredentials, setUpFleet } from './tools/fleet.ts';
import * as fmt from './tools/format.ts';
import { goalTable, ratioOfRaw } from './tools/goals.ts';
import { heldPollCount } from './tools/held-polls.ts';
import { summary } from './tools/percentiles.ts';
import { profilerFromEnv } from './tools/profiler.ts';
import { log } from './tools/progress.ts';
import { createRawTable, rawSlice } from './tools/raw-inserts.ts';
import { newSeries, perSecond, type Series } from './tools/series.ts';
import { header, serverSettings, type Settings } from './tools/server.ts';
import { until } from './tools/until.ts';
import { resetStatements, statementsTable, topStatements, type Statement } from './tools/statements.ts';

/**
 * Issue 5: a configuration rollout to 10,000 simulated nodes, from POST /rollouts to the rollout's state
 * `converged`, on one in-process Hub in `configuration` mode. The issue asks for batches of 500; SPEC G3
 * caps batch_size at 256 (the API refuses 500), so the batches are of 256, the maximum: 40 of them.
 * Every node's agent (a child process, see polling-agents.ts) holds a long poll throughout, and for each
 * batch the Hub opens the intents, the reconcile job queues the attempts and wakes the polls, the agents
 * lease, apply, answer and report, the reports converge the intents (SPEC A10), and the rollout job starts
 * the next batch. A smaller rollout to a tenth of the same nodes (1,000 at most) runs before, as a second row and
 * a warm-up. Raw single-row INSERTs on the same database, before and after, give the machine's baseline.
 *
 * Diagnostics: per batch, where its time went (from the intents and attempts tables); CPU per part over
 * the timed span (from /proc); BENCH_PROFILE=dir writes a V8 CPU profile of the Hub thread over it; a
 * server that preloads pg_stat_statements (FLEETPLANE_BENCH_DATABASE_URL) gets its top statements.
 */

/** The fleet (ROLLOUT_NODES for a quicker run), and the first rollout's share of it. */
const NODES = 10_000;
const firstNodes = (nodes: number) => Math.min(1_000, Math.round(nodes / 10));
const BATCH_SIZE = MAX_BATCH_SIZE;
const GOAL_SECONDS = 60;
/**
 * Round two's goal: 10,000 nodes in 30 s where raw inserts reach 10,000/s (and in 60 s where they reach
 * 5,000/s, the same ratio): targets converged per second as a ratio of raw.
 */
const GOAL_RATIO = ratioOfRaw(NODES / 30, 10_000);
const RAW_CLIENTS = 16;
/** The agents open their first polls over this long (a burst of 10,000 connections overflows the backlog). */
const POLL_SPREAD_MS = 10_000;
/** A rollout not converged after this long is reported as such. */
const ROLLOUT_TIMEOUT_MS = 180_000;

let agentsProcess: ChildProcess | null = null;

export async function run(args: string[]): Promise<number> {
  const rawSeconds = benchSeconds('rollout', args, 5, log);
  const nodes = sizeOption('ROLLOUT_NODES', NODES, 10, log);
  if (rawSeconds === null || nodes === null) return 2;
  const started = performance.now();
  return onOwnDatabase(log, (database) => benchmark(database, nodes, rawSeconds, started), () => agentsProcess?.kill());
}

// ---------------------------------------------------------------------------------------------------------

interface Measured {
  nodes: number;
  created: Created;
  /** POST /rollouts sent → state `converged` seen, seconds; NaN when it did not converge in time. */
  seconds: number;
  /** The batch it was at when it converged or the time ran out. */
  reached: number;
  batches: BatchTimes[];
}

/** One batch, seconds from its start (its intents opened) to its last attempt queued, leased, answered, converged. */
interface BatchTimes {
  batch: number;
  queued: number;
  leased: number;
  answered: number;
  converged: number;
  /** To the next batch's start, or to the rollout's convergence for the last. */
  total: number;
}

/** Where the CPU goes: the Hub's thread (this one), its other threads, the agents' process. */
const CPU_PARTS = ['hubThread', 'hubOther', 'agents'] as const;
type CpuPart = (typeof CPU_PARTS)[number];

async function benchmark(database: BenchDatabase, nodes: number, rawSeconds: number, started: number): Promise<number> {
  const first = firstNodes(nodes);
  const bench = database.connect(RAW_CLIENTS + 2);
  try {
    await createRawTable(bench.pool);
    const settings = await serverSettings(bench.pool);
    const { tag, operatorToken } = runCredentials();
    const tokens = Array.from({ length: nodes }, (_, i): [string, string] => [pollingNodeId(i), pollingAgentToken(tag, pollingNodeId(i))]);
    const config = fleetConfig(operatorToken, tokens, { reconciliation: { mode: 'configuration' } });
    const hub = await startHub({ config, databaseUrl: database.url, port: 0, logger: createLogger('error', true) });
    let agents: ChildProcess | null = null;
    try {
      const held = heldPollCount(hub);
      const ids = Array.from({ length: nodes }, (_, i) => pollingNodeId(i));
      const setup = await setUpFleet(hub, bench.pool, ids, POLLING_BOOT_ID, (node) => agentReport(node, FIRST_REPORT_SEQ, null));
      log(`set-up: ${setup}`);
      if (stop.requested) return 130;

      const { child, call } = forkPollingAgents();
      agents = child;
      agentsProcess = child;
      const t = performance.now();
      await call({ op: 'start', options: { port: Number(new URL(hub.url).port), tag, nodes, operatorToken, reportEveryMs: null }, spreadMs: POLL_SPREAD_MS });
      if (!(await until(() => held() >= nodes, 120_000))) throw new Error(`only ${held()} of ${nodes} long polls held after 2 minutes`);
      const pollsSeconds = (performance.now() - t) / 1000;
      log(`${fmt.count(nodes)} long polls held after ${pollsSeconds.toFixed(1)} s`);

      const raw = newSeries();
      await rawSlice(bench.pool, 'rollout', RAW_CLIENTS, (rawSeconds * 1000) / 2, raw);
      const progress = (rolloutId: string, batch: number) => batchLog(bench, rolloutId, batch, held());
      const small = await measureRollout(call, bench, first, 'warm-up', progress);
      if (!Number.isFinite(small.seconds)) throw new Error(`the ${fmt.count(first)}-node rollout did not converge: its targets stay busy`);
      log(`${fmt.count(first)} nodes: converged in ${small.seconds.toFixed(1)} s`);
      if (stop.requested) return 130;
      const owners: CpuOwners<CpuPart> = {
        thread: (name) => (name === 'MainThread' ? 'hubThread' : 'hubOther'),
        processes: [{ pid: agents.pid!, part: 'agents' }],
      };
      const before = await cpuSnapshot(bench.pool, owners);
      const profiler = await profilerFromEnv(500);
      await profiler?.start();
      const tracking = await resetStatements(bench.pool);
      const big = await measureRollout(call, bench, nodes, 'headline', progress);
      const cpu = emptyCpu(CPU_PARTS);
      addCpu(cpu, before, await cpuSnapshot(bench.pool, owners));
      const statements = tracking ? await topStatements(bench.pool, ['FROM rollouts WHERE rollout_id = $1']) : null;
      if (profiler) log(`CPU profile of the Hub thread over the ${fmt.count(nodes)}-node rollout: ${await profiler.save(`rollout-${nodes}-nodes`)}`);
      log(`${fmt.count(nodes)} nodes: converged in ${big.seconds.toFixed(1)} s`);
      await rawSlice(bench.pool, 'rollout', RAW_CLIENTS, (rawSeconds * 1000) / 2, raw);

      const counts = await call<AgentCounts>({ op: 'stop' });
      // Converged: every target reported the version, so at least one accepted report per target.
      const expected = first + nodes;
      if (Number.isFinite(big.seconds) && counts.reports < expected) {
        throw new Error(`the agents sent ${counts.reports} reports for ${expected} targets, ${counts.errors} errors; first: ${counts.firstError}`);
      }
      const total = (performance.now() - started) / 1000;
      process.stdout.write(
        report({ database, settings, setup, pollsSeconds, runs: [small, big], raw, cpu, statements, counts, total }),
      );
      return 0;
    } finally {
      agentsProcess = null;
      await endPollingAgents(agents);
      await hub.stop();
    }
  } finally {
    await bench.close();
  }
}

/**
 * Rolls a new version out to the first `nodes` nodes: the agents' process sends POST /rollouts, this
 * thread watches the rollouts table (GET /rollouts/{id} carries every target: too heavy to poll) until the
 * rollout converges. Per-batch times come from the tables afterwards.
 */
async function measureRollout(
  call: <T>(r: AgentsRequest) => Promise<T>,
  bench: Database,
  nodes: number,
  label: string,
  progress: (rolloutId: string, batch: number) => Promise<void>,
): Promise<Measured> {
  const created = await call<Created>({ op: 'rollout', content: `bench ${label} ${randomUUID()}`, batchSize: BATCH_SIZE, nodes });
  if (!created.rolloutId) throw new Error(`POST /rollouts: ${created.error}`);
  const id = created.rolloutId;
  let state = '';
  let batch = 0;
  const converged = await until(async () => {
    const { rows } = await bench.pool.query<{ state: string; current_batch: number }>(`SELECT state, current_batch FROM rollouts WHERE rollout_id = $1`, [id]);
    if (rows[0]!.current_batch !== batch) await progress(id, batch);
    ({ state, current_batch: batch } = rows[0]!);
    if (state !== 'applying' && state !== 'converged') throw new Error(`rollout ${id} is ${state}`);
    return state === 'converged';
  }, ROLLOUT_TIMEOUT_MS);
  const seenAt = performance.timeOrigin + performance.now();
  if (!converged) log(`rollout ${id} still ${state} at batch ${batch} after ${ROLLOUT_TIMEOUT_MS / 1000} s`);
  return { nodes, created, seconds: converged ? (seenAt - created.sentAt) / 1000 : NaN, reached: batch, batches: await batchTimes(bench, id) };
}

/** Logs a finished batch: where its time went (a run slower than the goal shows where, batch by batch). */
async function batchLog(bench: Database, rolloutId: string, batch: number, held: number): Promise<void> {
  const b = (await batchTimes(bench, rolloutId, batch)).find((x) => x.batch === batch);
  if (!b) return;
  log(
    `  batch ${b.batch}: last attempt queued ${secs(b.queued)}, leased ${secs(b.leased)}, answered ${secs(b.answered)}, ` +
      `converged ${secs(b.converged)}, next batch ${secs(b.total)}; ${fmt.count(held)} long polls held`,
  );
}

/** Each batch's times, or only `batch`'s and the next's start (a log line during the run reads no more than that). */
async function batchTimes(bench: Database, rolloutId: string, batch?: number): Promise<BatchTimes[]> {
  const ms = (column: string) => `extract(epoch FROM ${column}) * 1000`;
  const batches = batch === undefined ? [] : [batch, batch + 1];
  const { rows } = await bench.pool.query<Record<'batch' | 'started' | 'queued' | 'leased' | 'answered' | 'converged', string>>(
    `SELECT t.batch, ${ms('min(i.created_at)')} AS started, ${ms('max(a.created_at)')} AS queued, ${ms('max(a.dispatched_at)')} AS leased,
            ${ms('max(a.completed_at)')} AS answered, ${ms('max(i.converged_at)')} AS converged
       FROM rollout_targets t
       JOIN intents i ON i.intent_id = t.intent_id
       LEFT JOIN attempts a ON a.intent_id = i.intent_id
      WHERE t.rollout_id = $1 AND (cardinality($2::int[]) = 0 OR t.batch = any($2::int[]))
      GROUP BY t.batch ORDER BY t.batch`,
    [rolloutId, batches],
  );
  const end = Number(
    (await bench.pool.query<{ at: string }>(`SELECT ${ms('updated_at')} AS at FROM rollouts WHERE rollout_id = $1 AND state = 'converged'`, [rolloutId]))
      .rows[0]?.at, // NaN while it has not converged
  );
  return rows.map((r, k) => {
    const start = Number(r.started);
    const since = (at: string) => (Number(at) - start) / 1000;
    const next = k + 1 < rows.length ? Number(rows[k + 1]!.started) : end;
    return { batch: Number(r.batch), queued: since(r.queued), leased: since(r.leased), answered: since(r.answered), converged: since(r.converged), total: (next - start) / 1000 };
  });
}

// ---------------------------------------------------------------------------------------------------------

interface Results {
  database: BenchDatabase;
  settings: Settings;
  setup: string;
  pollsSeconds: number;
  runs: Measured[];
  raw: Series;
  cpu: CpuTotals<CpuPart>;
  statements: Statement[] | null;
  counts: AgentCounts;
  total: number;
}

const secs = fmt.seconds;

function report(r: Results): string {
  const verdict = (m: Measured) => (m.seconds <= GOAL_SECONDS ? 'PASS' : 'BELOW');
  const took = (m: Measured) =>
    Number.isFinite(m.seconds) ? secs(m.seconds) : `not converged after ${ROLLOUT_TIMEOUT_MS / 1000} s (at batch ${m.reached})`;
  const headline = r.runs.at(-1)!;
  const rows = r.runs.map((m) => {
    const b = summary(m.batches.map((x) => x.total));
    const goal = m.nodes === NODES ? `≤ ${GOAL_SECONDS} s | ${verdict(m)}` : '– | –';
    return (
      `| ${fmt.count(m.nodes)} | ${BATCH_SIZE} | ${Math.ceil(m.nodes / BATCH_SIZE)} | ${took(m)} | ${secs(b.p50)} / ${secs(b.p99)} | ` +
      `${fmt.ms(m.created.answeredAt - m.created.sentAt)} | ${goal} |`
    );
  });
  const phases = (['queued', 'leased', 'answered', 'converged', 'total'] as const).map((k) => summary(headline.batches.map((b) => b[k])));
  const applied = summary(r.counts.applyMs);
  const c = r.cpu;
  // Targets the span covered: all of them, or the batches started before the time ran out.
  const covered = Number.isFinite(headline.seconds) ? headline.nodes : Math.min(headline.nodes, (headline.reached + 1) * BATCH_SIZE);
  const per = (part: number) => `${(part / c.seconds).toFixed(2)} cores, ${fmt.count((part / covered) * 1e6)} µs/target`;
  const rawRate = perSecond(r.raw);
  return [
    ...header(
      'rollout',
      r.database,
      r.settings,
      'one Hub in-process, reconciliation mode `configuration`; agents in a child process over HTTP keep-alive, one long poll held per node (wait 20-25 s)',
    ),
    `Set-up: ${r.setup}; ${fmt.count(headline.nodes)} long polls held ${r.pollsSeconds.toFixed(1)} s after the agents started; whole run ${r.total.toFixed(1)} s`,
    `Batches of ${BATCH_SIZE}: issue 5 asks for 500, SPEC G3 caps batch_size at ${BATCH_SIZE} (the API refuses 500), so ${Math.ceil(headline.nodes / BATCH_SIZE)} batches of the maximum.`,
    '',
    '| nodes | batch size | batches | POST /rollouts → converged | per batch p50 / p99 | rollout creation (POST answered) | goal | verdict |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    `| raw single-row INSERT, ${RAW_CLIENTS} clients, autocommit, same database, before and after | ${fmt.count(rawRate)} inserts/s | | | | | baseline | – |`,
    '',
    `Where a ${fmt.count(headline.nodes)}-node batch's time goes, p50 / p99 over its ${headline.batches.length} batches, seconds from the batch's start (intents opened):`,
    '',
    '| last attempt queued (reconcile jobs) | last leased (polls answered) | last result recorded | last intent converged (reports) | next batch started (rollout job) |',
    '|---|---|---|---|---|',
    `| ${phases.map((p) => `${secs(p.p50)} / ${secs(p.p99)}`).join(' | ')} |`,
    '',
    `Agents: attempt received → report answered p50 ${fmt.ms(applied.p50)}, p99 ${fmt.ms(applied.p99)}; ${fmt.count(r.counts.emptyPolls)} polls ran out empty and were sent again; ` +
      `${fmt.count(r.counts.resent)} requests sent again on a new socket (the Hub had closed the idle one); ${fmt.count(r.counts.errors)} failed` +
      (r.counts.firstError ? ` (first: ${r.counts.firstError})` : '') +
      '.',
    `CPU over the ${fmt.count(headline.nodes)}-node rollout (${c.seconds.toFixed(1)} s, on-CPU time from /proc): Hub main thread ${per(c.hubThread)}; ` +
      `other Hub threads ${per(c.hubOther)}; agents ${per(c.agents)}` +
      (c.pgVisible
        ? `; PostgreSQL: Hub sessions ${per(c.pgHub)}, pg-boss and attempt channel ${per(c.pgJobs)}, background ${per(c.pgBackground)}`
        : '; PostgreSQL not visible from here') +
      `; machine busy ${(c.machine / c.seconds).toFixed(2)} of ${cpus().length} cores.`,
    '',
    ...(r.statements ? statementsTable(`over the ${fmt.count(covered)}-target rollout`, r.statements, covered, 'target', 15) : []),
    'Goal, normalised by the raw inserts of the same run (see docs/benchmarks.md, "Reading a report"):',
    '',
    ...goalTable([
      {
        goal: `${fmt.count(NODES)} nodes${headline.nodes === NODES ? '' : ` (this run: ${fmt.count(headline.nodes)})`}, POST /rollouts → converged ≤ 30 s where raw inserts reach 10,000/s (≤ 60 s where they reach 5,000/s)`,
        measured: `${took(headline)}, ${fmt.count(headline.nodes / headline.seconds)} targets/s`,
        rate: headline.nodes / headline.seconds,
        raw: rawRate,
        ratio: GOAL_RATIO,
        holds: Number.isFinite(headline.seconds),
      },
    ]),
    '',
  ].join('\n');
}
