import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { MAX_BATCH_SIZE, Report } from '@fleetplane/core';
import type { Actor } from '../../packages/hub/src/commands/pipeline.ts';
import { registerNode } from '../../packages/hub/src/commands/register-node.ts';
import { ConfigFile, hashToken, type HubConfig } from '../../packages/hub/src/config.ts';
import type { Database } from '../../packages/hub/src/database/connect.ts';
import { Registration } from '../../packages/hub/src/http/routes/agent.ts';
import { startHub, type Hub } from '../../packages/hub/src/hub.ts';
import { createLogger } from '../../packages/hub/src/logger.ts';
import { ingestReport } from '../../packages/hub/src/reconcile/ingest-report.ts';
import { RECONCILE_QUEUE } from '../../packages/hub/src/reconcile/queues.ts';
import type { BenchDatabase } from './database.ts';
import { onOwnDatabase, stop } from './interruptible.ts';
import { agentsRpc } from './agents-rpc.ts';
import { benchSeconds } from './options.ts';
import {
  configReport,
  FIRST_REPORT_SEQ,
  ROLLOUT_BOOT_ID,
  rolloutAgentToken,
  rolloutNodeId,
  type AgentCounts,
  type AgentsRequest,
  type Created,
} from './rollout-agents.ts';

/**
 * Issue 5: a configuration rollout to 10,000 simulated nodes, from POST /rollouts to the rollout's state
 * `converged`, on one in-process Hub in `configuration` mode. The issue asks for batches of 500; SPEC G3
 * caps batch_size at 256 (the API refuses 500), so the batches are of 256, the maximum: 40 of them.
 * Every node's agent (a child process, see rollout-agents.ts) holds a long poll throughout, and for each
 * batch the Hub opens the intents, the reconcile job queues the attempts and wakes the polls, the agents
 * lease, apply, answer and report, the reports converge the intents (SPEC A10), and the rollout job starts
 * the next batch. A smaller rollout to FIRST_NODES of the same nodes runs before, as a second row and
 * a warm-up. Raw single-row INSERTs on the same database, before and after, give the machine's baseline.
 *
 * Diagnostics: per batch, where its time went (from the intents and attempts tables); CPU per part over
 * the timed span (from /proc); BENCH_PROFILE=dir writes a V8 CPU profile of the Hub thread over it; a
 * server that preloads pg_stat_statements (FLEETPLANE_BENCH_DATABASE_URL) gets its top statements.
 */

const NODES = 10_000;
const FIRST_NODES = 1_000;
const BATCH_SIZE = MAX_BATCH_SIZE;
const GOAL_SECONDS = 60;
const RAW_CLIENTS = 16;
/** Commands in flight during the set-up (registrations, first reports). */
const SETUP_CONCURRENCY = 256;
/** The agents open their first polls over this long (a burst of 10,000 connections overflows the backlog). */
const POLL_SPREAD_MS = 10_000;
/** A rollout not converged after this long is reported as such. */
const ROLLOUT_TIMEOUT_MS = 180_000;

const log = (line: string) => process.stderr.write(line + '\n');
let agentsProcess: ChildProcess | null = null;

export async function run(args: string[]): Promise<number> {
  const rawSeconds = benchSeconds('rollout', args, 5, log);
  if (rawSeconds === null) return 2;
  const started = performance.now();
  return onOwnDatabase(log, (database) => benchmark(database, rawSeconds, started), () => agentsProcess?.kill());
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

interface RawSeries {
  ops: number;
  seconds: number;
}

async function benchmark(database: BenchDatabase, rawSeconds: number, started: number): Promise<number> {
  const bench = database.connect(RAW_CLIENTS + 2);
  try {
    await bench.pool.query(`CREATE TABLE bench_raw (id bigserial primary key, stream_id text, data jsonb, recorded_at timestamptz)`);
    const { rows } = await bench.pool.query<{ name: string; setting: string }>(
      `SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'shared_buffers')`,
    );
    const settings = Object.fromEntries(rows.map((r) => [r.name, r.setting]));
    const tag = randomBytes(4).toString('hex');
    const operatorToken = `bench-${tag}-operator`;
    const hub = await startHub({ config: benchConfig(tag, operatorToken), databaseUrl: database.url, port: 0, logger: createLogger('error', true) });
    let agents: ChildProcess | null = null;
    try {
      const held = countHeldPolls(hub);
      const setup = await setUp(hub, bench);
      log(`set-up: ${setup}`);
      if (stop.requested) return 130;

      const child = fork(fileURLToPath(new URL('./rollout-agents.ts', import.meta.url)), [], {
        serialization: 'advanced',
        env: { ...process.env, FLEETPLANE_ROLLOUT_AGENTS: '1' },
      });
      agents = child;
      agentsProcess = child;
      const call = agentsRpc<AgentsRequest>(child, (r) => child.send(r), 'process');
      let t = performance.now();
      await call({ op: 'start', options: { port: Number(new URL(hub.url).port), tag, nodes: NODES, operatorToken }, spreadMs: POLL_SPREAD_MS });
      if (!(await until(() => held() >= NODES, 120_000))) throw new Error(`only ${held()} of ${NODES} long polls held after 2 minutes`);
      const pollsSeconds = (performance.now() - t) / 1000;
      log(`${NODES.toLocaleString('en-US')} long polls held after ${pollsSeconds.toFixed(1)} s`);

      const raw: RawSeries = { ops: 0, seconds: 0 };
      await rawSlice(bench, (rawSeconds * 1000) / 2, raw);
      const progress = (rolloutId: string, batch: number) => batchLog(bench, rolloutId, batch, held());
      const small = await measureRollout(call, bench, FIRST_NODES, 'warm-up', progress);
      if (!Number.isFinite(small.seconds)) throw new Error(`the ${fmt(FIRST_NODES)}-node rollout did not converge: its targets stay busy`);
      log(`${fmt(FIRST_NODES)} nodes: converged in ${small.seconds.toFixed(1)} s`);
      if (stop.requested) return 130;
      const cpu = await cpuSnapshot(bench, agents.pid!);
      const profiler = process.env.BENCH_PROFILE ? await hubProfiler(process.env.BENCH_PROFILE) : null;
      const tracking = await resetStatements(bench);
      const big = await measureRollout(call, bench, NODES, 'headline', progress);
      const cpuUsed = cpuSpent(cpu, await cpuSnapshot(bench, agents.pid!));
      const statements = tracking ? await topStatements(bench) : null;
      if (profiler) log(`CPU profile of the Hub thread over the ${fmt(NODES)}-node rollout: ${await profiler.save(`rollout-${NODES}-nodes`)}`);
      log(`${fmt(NODES)} nodes: converged in ${big.seconds.toFixed(1)} s`);
      await rawSlice(bench, (rawSeconds * 1000) / 2, raw);

      const counts = await call<AgentCounts>({ op: 'stop' });
      // Converged: every target reported the version, so at least one accepted report per target.
      const expected = FIRST_NODES + NODES;
      if (Number.isFinite(big.seconds) && counts.reports < expected) {
        throw new Error(`the agents sent ${counts.reports} reports for ${expected} targets, ${counts.errors} errors; first: ${counts.firstError}`);
      }
      const total = (performance.now() - started) / 1000;
      process.stdout.write(
        report({ database, settings, setup, pollsSeconds, runs: [small, big], raw, cpu: cpuUsed, statements, counts, total }),
      );
      return 0;
    } finally {
      agentsProcess = null;
      if (agents && agents.exitCode === null) {
        const exited = new Promise((r) => agents!.once('exit', r));
        agents.kill();
        await exited;
      }
      await hub.stop();
    }
  } finally {
    await bench.close();
  }
}

/** A config in `configuration` mode with one operator and one agent credential per simulated node. */
function benchConfig(tag: string, operatorToken: string): HubConfig {
  const file = ConfigFile.parse({
    control_api: {
      credentials: [
        { id: 'bench-operator', role: 'operator', token_sha256: hashToken(operatorToken) },
        ...Array.from({ length: NODES }, (_, i) => {
          const node = rolloutNodeId(i);
          return { id: `${node}-agent`, role: 'agent', node_id: node, token_sha256: hashToken(rolloutAgentToken(tag, node)) };
        }),
      ],
    },
    reconciliation: { mode: 'configuration' },
  });
  return { port: 0, dataDir: '/nonexistent', databaseUrl: null, embeddedPort: 0, file, generatedAdminToken: null, adminTokenFile: null };
}

/** Counts the long polls the Hub holds right now (waiting on the pull transport). */
function countHeldPolls(hub: Hub): () => number {
  let held = 0;
  const transport = hub.context.transport;
  const wait = transport.wait.bind(transport);
  transport.wait = (node, ms, signal, since) => {
    held++;
    return wait(node, ms, signal, since).finally(() => held--);
  };
  return () => held;
}

/**
 * Registers the nodes and sends each one's first report (no configuration yet), in-process through the
 * Hub's pipeline as the agent routes would: a steady fleet before the rollout. Registration queues a
 * reconcile job per node; the Hub's worker runs them before the rollout, so none is ahead of its jobs.
 */
async function setUp(hub: Hub, bench: Database): Promise<string> {
  const { pipeline } = hub.context;
  const actor = (node: string): Actor => ({ principal: `${node}-agent`, role: 'agent', source: 'agent', correlationId: randomUUID() });
  let t = performance.now();
  await inParallel(NODES, async (i) => {
    const node = rolloutNodeId(i);
    const outcome = await pipeline.run(actor(node), registerNode(Registration.parse({ node_id: node, boot_id: ROLLOUT_BOOT_ID, agent_version: 'bench' })));
    if (!outcome.ok) throw new Error(`registering ${node}: ${outcome.error.code}: ${outcome.error.message}`);
  });
  const registered = (performance.now() - t) / 1000;
  t = performance.now();
  await inParallel(NODES, async (i) => {
    const node = rolloutNodeId(i);
    const outcome = await pipeline.run(actor(node), ingestReport(Report.parse(configReport(node, FIRST_REPORT_SEQ, null))));
    if (!outcome.ok || !outcome.value.result.accepted) throw new Error(`first report of ${node}: ${JSON.stringify(outcome)}`);
  });
  const reported = (performance.now() - t) / 1000;
  t = performance.now();
  const queued = async () =>
    Number(
      (
        await bench.pool.query<{ n: string }>(`SELECT count(*) AS n FROM pgboss.job WHERE name = $1 AND state IN ('created', 'retry', 'active')`, [
          RECONCILE_QUEUE,
        ])
      ).rows[0]!.n,
    );
  let left = await queued();
  if (!(await until(async () => (left = await queued()) === 0, 180_000))) throw new Error(`${left} reconcile jobs still queued after 3 minutes`);
  return (
    `${fmt(NODES)} nodes registered in ${registered.toFixed(1)} s, first reports in ${reported.toFixed(1)} s ` +
    `(in-process, ${SETUP_CONCURRENCY} commands in flight); registration's reconcile jobs done ${((performance.now() - t) / 1000).toFixed(1)} s later`
  );
}

async function inParallel(n: number, f: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: SETUP_CONCURRENCY }, async () => {
      while (next < n && !stop.requested) await f(next++);
    }),
  );
}

async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (!stop.requested) {
    if (await check()) return true;
    if (performance.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
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
  const b = (await batchTimes(bench, rolloutId)).find((x) => x.batch === batch);
  if (!b) return;
  log(
    `  batch ${b.batch}: last attempt queued ${secs(b.queued)}, leased ${secs(b.leased)}, answered ${secs(b.answered)}, ` +
      `converged ${secs(b.converged)}, next batch ${secs(b.total)}; ${fmt(held)} long polls held`,
  );
}

async function batchTimes(bench: Database, rolloutId: string): Promise<BatchTimes[]> {
  const ms = (column: string) => `extract(epoch FROM ${column}) * 1000`;
  const { rows } = await bench.pool.query<Record<'batch' | 'started' | 'queued' | 'leased' | 'answered' | 'converged', string>>(
    `SELECT t.batch, ${ms('min(i.created_at)')} AS started, ${ms('max(a.created_at)')} AS queued, ${ms('max(a.dispatched_at)')} AS leased,
            ${ms('max(a.completed_at)')} AS answered, ${ms('max(i.converged_at)')} AS converged
       FROM rollout_targets t
       JOIN intents i ON i.intent_id = t.intent_id
       LEFT JOIN attempts a ON a.intent_id = i.intent_id
      WHERE t.rollout_id = $1
      GROUP BY t.batch ORDER BY t.batch`,
    [rolloutId],
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

async function rawSlice(bench: Database, ms: number, into: RawSeries): Promise<void> {
  const start = performance.now();
  const deadline = start + ms;
  const counts = await Promise.all(
    Array.from({ length: RAW_CLIENTS }, async (_, c) => {
      let n = 0;
      while (performance.now() < deadline && !stop.requested) {
        await bench.pool.query('INSERT INTO bench_raw (stream_id, data, recorded_at) VALUES ($1, $2, $3)', [
          `bench-raw-${c}`,
          JSON.stringify({ client: c, note: 'fleetplane rollout benchmark', at: Date.now() }),
          new Date(),
        ]);
        n++;
      }
      return n;
    }),
  );
  into.ops += counts.reduce((a, b) => a + b, 0);
  into.seconds += (performance.now() - start) / 1000;
}

// ---------------------------------------------------------------------------------------------------------
// CPU over the timed span, from /proc (Linux): on-CPU nanoseconds from schedstat, per thread of this
// process, of the agents' process, and of each PostgreSQL process by role (when visible from here).

const CPU_PARTS = ['hubThread', 'hubOther', 'agents', 'pgHub', 'pgJobs', 'pgBackground', 'machine'] as const;
type CpuPart = (typeof CPU_PARTS)[number];
type Cpu = Record<CpuPart, number> & { seconds: number; pgVisible: boolean };

interface CpuSnapshot {
  at: number;
  ns: Map<string, { part: CpuPart; ns: number }>;
  pgVisible: boolean;
}

function onCpuNs(path: string): number {
  try {
    return Number(readFileSync(path, 'utf8').split(' ')[0]);
  } catch {
    return 0; // gone, or not Linux
  }
}

function threadsNs(pid: string, part: (comm: string) => CpuPart, into: CpuSnapshot['ns']): boolean {
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      into.set(`${pid}/${tid}`, { part: part(comm), ns: onCpuNs(`/proc/${pid}/task/${tid}/schedstat`) });
    }
    return true;
  } catch {
    return false;
  }
}

async function cpuSnapshot(bench: Database, agentsPid: number): Promise<CpuSnapshot> {
  const ns: CpuSnapshot['ns'] = new Map();
  threadsNs('self', (comm) => (comm === 'MainThread' ? 'hubThread' : 'hubOther'), ns);
  threadsNs(String(agentsPid), () => 'agents', ns);
  let pgVisible = true;
  const { rows } = await bench.pool.query<{ pid: number; application_name: string; backend_type: string }>(
    `SELECT pid, application_name, backend_type FROM pg_stat_activity`,
  );
  for (const r of rows) {
    const part: CpuPart | null =
      r.backend_type !== 'client backend'
        ? 'pgBackground'
        : r.application_name === 'fleetplane-hub'
          ? 'pgHub'
          : r.application_name === 'fleetplane-jobs' || r.application_name === 'fleetplane-attempts'
            ? 'pgJobs'
            : null; // the benchmark's own sessions
    if (part && !threadsNs(String(r.pid), () => part, ns)) pgVisible = false;
  }
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq, in USER_HZ (100/s): busy is what ran on this machine
    ns.set('machine', { part: 'machine', ns: (f[0]! + f[1]! + f[2]! + f[5]! + f[6]!) * 1e7 });
  } catch {
    // not Linux
  }
  return { at: performance.now(), ns, pgVisible };
}

function cpuSpent(a: CpuSnapshot, b: CpuSnapshot): Cpu {
  const cpu = { ...(Object.fromEntries(CPU_PARTS.map((p) => [p, 0])) as Record<CpuPart, number>), seconds: (b.at - a.at) / 1000, pgVisible: a.pgVisible && b.pgVisible };
  for (const [key, { part, ns }] of b.ns) cpu[part] += (ns - (a.ns.get(key)?.ns ?? 0)) / 1e9;
  return cpu;
}

/** BENCH_PROFILE=dir: a V8 CPU profile of the Hub's thread (this one) over the timed rollout. */
async function hubProfiler(dir: string) {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  return {
    async save(name: string): Promise<string> {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      const { mkdirSync, writeFileSync } = await import('node:fs');
      const { join } = await import('node:path');
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `${name}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      return file;
    },
  };
}

interface Statement {
  query: string;
  calls: number;
  ms: number;
}

/** pg_stat_statements, when the server preloads it (an embedded server does not): reset before the span. */
async function resetStatements(bench: Database): Promise<boolean> {
  try {
    await bench.pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await bench.pool.query('SELECT pg_stat_statements_reset()');
    return true;
  } catch {
    return false;
  }
}

/** The span's top-level statements on this database by server time (execution + planning), but the benchmark's own. */
async function topStatements(bench: Database): Promise<Statement[]> {
  const { rows } = await bench.pool.query<{ query: string; calls: string; ms: number }>(
    `SELECT query, calls, total_exec_time + total_plan_time AS ms
       FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND toplevel
        AND query NOT LIKE '%bench_raw%' AND query NOT LIKE '%pg_stat_%' AND query NOT LIKE '%FROM rollouts WHERE rollout_id = $1%'
      ORDER BY ms DESC LIMIT 15`,
  );
  return rows.map((r) => ({ query: r.query.replace(/\s+/g, ' ').trim(), calls: Number(r.calls), ms: Number(r.ms) }));
}

// ---------------------------------------------------------------------------------------------------------

interface Results {
  database: BenchDatabase;
  settings: Record<string, string>;
  setup: string;
  pollsSeconds: number;
  runs: Measured[];
  raw: RawSeries;
  cpu: Cpu;
  statements: Statement[] | null;
  counts: AgentCounts;
  total: number;
}

function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}

/** p50 and p99 of the samples (over 40 batches, the p99 is the slowest). */
function spread(samples: ArrayLike<number>): { p50: number; p99: number } {
  const sorted = Float64Array.from(samples).filter(Number.isFinite).sort(); // a batch cut short has no end
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const secs = (s: number) => (Number.isFinite(s) ? `${s.toFixed(s < 10 ? 2 : 1)} s` : '–');
const ms = (x: number) => (Number.isFinite(x) ? `${x < 10 ? x.toFixed(2) : x < 1000 ? x.toFixed(1) : fmt(x)} ms` : '–');

function report(r: Results): string {
  const verdict = (m: Measured) => (m.seconds <= GOAL_SECONDS ? 'PASS' : 'BELOW');
  const took = (m: Measured) =>
    Number.isFinite(m.seconds) ? secs(m.seconds) : `not converged after ${ROLLOUT_TIMEOUT_MS / 1000} s (at batch ${m.reached})`;
  const headline = r.runs.at(-1)!;
  const rows = r.runs.map((m) => {
    const b = spread(m.batches.map((x) => x.total));
    const goal = m.nodes === NODES ? `≤ ${GOAL_SECONDS} s | ${verdict(m)}` : '– | –';
    return (
      `| ${fmt(m.nodes)} | ${BATCH_SIZE} | ${Math.ceil(m.nodes / BATCH_SIZE)} | ${took(m)} | ${secs(b.p50)} / ${secs(b.p99)} | ` +
      `${ms(m.created.answeredAt - m.created.sentAt)} | ${goal} |`
    );
  });
  const phases = (['queued', 'leased', 'answered', 'converged', 'total'] as const).map((k) => spread(headline.batches.map((b) => b[k])));
  const applied = spread(r.counts.applyMs);
  const c = r.cpu;
  // Targets the span covered: all of them, or the batches started before the time ran out.
  const covered = Number.isFinite(headline.seconds) ? headline.nodes : Math.min(headline.nodes, (headline.reached + 1) * BATCH_SIZE);
  const per = (part: number) => `${(part / c.seconds).toFixed(2)} cores, ${fmt((part / covered) * 1e6)} µs/target`;
  const knobs = ['fsync', 'synchronous_commit', 'shared_buffers']
    .filter((k) => r.settings[k] !== undefined)
    .map((k) => `${k}=${r.settings[k]}${k === 'shared_buffers' ? '×8kB' : ''}`)
    .join(', ');
  const cpu = cpus();
  return [
    '',
    '## rollout benchmark',
    '',
    `PostgreSQL ${r.database.serverVersion}, ${r.database.embedded ? 'embedded (started by the benchmark)' : 'external server'}; ${knobs}`,
    `Machine: ${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; Node ${process.version}; ` +
      `one Hub in-process, reconciliation mode \`configuration\`; agents in a child process over HTTP keep-alive, one long poll held per node (wait 20-25 s)`,
    `Set-up: ${r.setup}; ${fmt(NODES)} long polls held ${r.pollsSeconds.toFixed(1)} s after the agents started; whole run ${r.total.toFixed(1)} s`,
    `Batches of ${BATCH_SIZE}: issue 5 asks for 500, SPEC G3 caps batch_size at ${BATCH_SIZE} (the API refuses 500), so ${Math.ceil(NODES / BATCH_SIZE)} batches of the maximum.`,
    '',
    '| nodes | batch size | batches | POST /rollouts → converged | per batch p50 / p99 | rollout creation (POST answered) | goal | verdict |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    `| raw single-row INSERT, ${RAW_CLIENTS} clients, autocommit, same database, before and after | ${fmt(r.raw.ops / r.raw.seconds)} inserts/s | | | | | baseline | – |`,
    '',
    `Where a ${fmt(headline.nodes)}-node batch's time goes, p50 / p99 over its ${headline.batches.length} batches, seconds from the batch's start (intents opened):`,
    '',
    '| last attempt queued (reconcile jobs) | last leased (polls answered) | last result recorded | last intent converged (reports) | next batch started (rollout job) |',
    '|---|---|---|---|---|',
    `| ${phases.map((p) => `${secs(p.p50)} / ${secs(p.p99)}`).join(' | ')} |`,
    '',
    `Agents: attempt received → report answered p50 ${ms(applied.p50)}, p99 ${ms(applied.p99)}; ${fmt(r.counts.emptyPolls)} polls ran out empty and were sent again; ` +
      `${fmt(r.counts.resent)} requests sent again on a new socket (the Hub had closed the idle one); ${fmt(r.counts.errors)} failed` +
      (r.counts.firstError ? ` (first: ${r.counts.firstError})` : '') +
      '.',
    `CPU over the ${fmt(headline.nodes)}-node rollout (${c.seconds.toFixed(1)} s, on-CPU time from /proc): Hub main thread ${per(c.hubThread)}; ` +
      `other Hub threads ${per(c.hubOther)}; agents ${per(c.agents)}` +
      (c.pgVisible
        ? `; PostgreSQL: Hub sessions ${per(c.pgHub)}, pg-boss and attempt channel ${per(c.pgJobs)}, background ${per(c.pgBackground)}`
        : '; PostgreSQL not visible from here') +
      `; machine busy ${(c.machine / c.seconds).toFixed(2)} of ${cpu.length} cores.`,
    '',
    ...statementsTable(r.statements, headline.nodes),
    `goal: ${fmt(NODES)} nodes, POST /rollouts → converged ≤ ${GOAL_SECONDS} s: ${took(headline)} → ${verdict(headline)}`,
    '',
  ].join('\n');
}

function statementsTable(statements: Statement[] | null, targets: number): string[] {
  if (!statements) return [];
  return [
    `PostgreSQL statements over the ${fmt(targets)}-node rollout (pg_stat_statements, top level, all sessions on the database), by server time:`,
    '',
    '| statement | calls per target | µs per target | µs per call |',
    '|---|---|---|---|',
    ...statements.map((st) => {
      const q = st.query.length > 110 ? st.query.slice(0, 107) + '…' : st.query;
      return `| \`${q.replace(/\|/g, '\\|')}\` | ${(st.calls / targets).toFixed(2)} | ${fmt((st.ms / targets) * 1000)} | ${fmt((st.ms / st.calls) * 1000)} |`;
    }),
    '',
  ];
}
