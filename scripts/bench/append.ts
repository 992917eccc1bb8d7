import { randomUUID } from 'node:crypto';
import { ok, type FleetEvent, type NewEvent } from '@fleetplane/core';
import { sql, type Kysely } from 'kysely';
import { systemClock } from '../../packages/hub/src/clock.ts';
import { createPipeline, type Actor, type Command, type Pipeline } from '../../packages/hub/src/commands/pipeline.ts';
import type { Database } from '../../packages/hub/src/database/connect.ts';
import type { Tables } from '../../packages/hub/src/database/tables.ts';
import { keyed, prepared } from '../../packages/hub/src/database/transaction-plan.ts';
import { keepSegmentsAheadEvery, SEGMENT_BOUNDS } from '../../packages/hub/src/event-store/segments.ts';
import { allProjections } from '../../packages/hub/src/projections/all.ts';
import { desiredWrites } from './desired-writes.ts';
import { benchSeconds } from './options.ts';
import type { BenchDatabase } from './database.ts';
import { onOwnDatabase, stop } from './interruptible.ts';
import * as fmt from './tools/format.ts';
import { goalTable, type Goal } from './tools/goals.ts';
import { summary } from './tools/percentiles.ts';
import { log } from './tools/progress.ts';
import { createRawTable, rawInsert } from './tools/raw-inserts.ts';
import { newSeries, slice } from './tools/series.ts';
import { header, serverSettings, type Settings } from './tools/server.ts';

/**
 * Append throughput, all against one database in one run:
 *  (a) single-event commands through the Hub's command pipeline (group commit: commands arriving while its
 *      lanes are busy share a transaction) at 1, 8 and 32 clients;
 *  (b) 100-event commands, single-event commands that load state first (with a load of their own, and
 *      loading together: see `Loads`), and desired writes through the REST API of a Hub in this process
 *      (desired-writes.ts), answered whole and answered minimal, at 8 clients;
 *  (c) the baseline: a single-row INSERT into a plain table in autocommit at 1, 8 and 32 clients.
 * Each client appends to a stream of its own with expected version 'any' (as a node or a deployment
 * writes its own stream): streams grow, and clients never conflict on a version. The command decides on no
 * loaded state and no projection handles its event, like an audit record: the pipeline runs it as one
 * statement (see pipeline.ts, `execute`). Each client holds one pooled connection (pool size = clients).
 *
 * Commit latency (WAL fsync) of a shared or virtual disk drifts by several times within seconds, so the
 * command and raw measurements at one client count are taken in alternating slices, not one after the other.
 */

const CLIENTS = [1, 8, 32] as const;
const BATCH_CLIENTS = 8;
const BATCH_SIZE = 100;
const GOAL_CLIENTS = 8;
const GOAL_RATIO = 0.5;
/**
 * Round two's goal: commands that load state first, at GOAL_CLIENTS, at this ratio of raw inserts too. Judged on
 * commands that load together, as Fleetplane's commands that arrive in numbers do; a command with a load of its
 * own is printed beside it (docs/decisions.md, "Commands with a load: two rows").
 */
const GOAL_LOAD_RATIO = 0.5;
/**
 * And a desired write through the REST API, the whole of it (auth, validation, command, reconcile, answer);
 * judged too on the write answered minimal (`Prefer: return=minimal`: its passes left to its jobs).
 */
const GOAL_REST_RATIO = 0.35;
/** Each measurement is split into this many slices, command and raw alternating. */
const SLICES = 5;
/** Unmeasured operations per client before measuring: connects, plans, compiles plpgsql. */
const WARMUP_OPS = 20;

type Operation = (client: number) => Promise<void>;

interface Result {
  clients: number;
  ops: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
}


export async function run(args: string[]): Promise<number> {
  const seconds = benchSeconds('append', args, 5, log);
  if (seconds === null) return 2;

  const started = performance.now();
  return onOwnDatabase(log, (database) => withSegmentsAhead(database, () => benchmark(database, seconds, started)));
}

/** Runs `work` while the log's segments are kept ahead of its appends, as a Hub keeps them. */
async function withSegmentsAhead<T>(database: BenchDatabase, work: () => Promise<T>): Promise<T> {
  const d = database.connect(1);
  const upkeep = keepSegmentsAheadEvery(d.db, { ...SEGMENT_BOUNDS, durationMs: 3_600_000 }, { everyMs: 1000, now: () => new Date(), onError: (e) => log(`adding log segments failed: ${String(e)}`) });
  try {
    return await work();
  } finally {
    upkeep.stop();
    await d.close();
  }
}

async function benchmark(database: BenchDatabase, seconds: number, started: number): Promise<number> {
  const settings = await withPool(database, 1, async ({ pool }) => {
    await createRawTable(pool);
    // A throwaway embedded server is ours to configure: time its WAL fsyncs, to tell disk from CPU.
    if (database.embedded) {
      await pool.query(`ALTER SYSTEM SET track_wal_io_timing = on`);
      await pool.query(`SELECT pg_reload_conf()`);
    }
    return serverSettings(pool);
  });
  const walBefore = database.embedded ? await walStats(database) : null;

  const tag = randomUUID().slice(0, 8);
  let appended = 0;
  const commands: Result[] = [];
  const raws: Result[] = [];
  const rawWorkload = (clients: number, group: string): Workload => ({
    label: `raw INSERT, ${clients} clients`,
    prepare: ({ pool }) => (client) => rawInsert(pool, `bench-raw-${tag}-${group}-${client}`, client, 'append'),
  });
  for (const clients of CLIENTS) {
    if (stop.requested) return 130;
    const [command, raw] = await alternating(database, clients, seconds, [
      {
        label: `command, 1 event, ${clients} clients`,
        prepare: ({ db }) => {
          const deps = pipelineDeps(db);
          return async (client) => {
            await append(deps, `bench-${tag}-${clients}-${client}`, client, 1);
            appended += 1;
          };
        },
      },
      rawWorkload(clients, String(clients)),
    ]);
    commands.push(command!);
    raws.push(raw!);
  }
  if (stop.requested) return 130;
  // Each group of rows takes turns with raw inserts of its own minutes.
  const [batch, loading, together, loadRaw] = await alternating(database, BATCH_CLIENTS, seconds, [
    {
      label: `command, ${BATCH_SIZE} events, ${BATCH_CLIENTS} clients`,
      prepare: ({ db }) => {
        const deps = pipelineDeps(db);
        return async (client) => {
          await append(deps, `bench-batch-${tag}-${client}`, client, BATCH_SIZE);
          appended += BATCH_SIZE;
        };
      },
    },
    ...(['alone', 'together'] as const).map((loads) => ({
      label: `command with a load${loads === 'together' ? ' loading together' : ''}, 1 event, ${BATCH_CLIENTS} clients`,
      prepare: ({ db }: Database) => {
        const deps = pipelineDeps(db);
        return async (client: number) => {
          await append(deps, `bench-loading-${loads}-${tag}-${client}`, client, 1, loads);
          appended += 1;
        };
      },
    })),
    rawWorkload(BATCH_CLIENTS, 'loads'),
  ]);
  if (stop.requested) return 130;
  // The REST rows last, with a Hub of their own: its jobs (a write's backstop pass, 2 s later) run in its own slices.
  const rest = await desiredWrites(database, BATCH_CLIENTS);
  const [written, minimal, restRaw] = await alternating(database, BATCH_CLIENTS, seconds, [
    { label: `desired write through the REST API, ${BATCH_CLIENTS} clients`, prepare: () => rest.write },
    { label: `desired write through the REST API answered minimal, ${BATCH_CLIENTS} clients`, prepare: () => rest.writeMinimal },
    rawWorkload(BATCH_CLIENTS, 'rest'),
  ]).finally(() => rest.close());

  if (stop.requested) return 130;
  // Every measured and warm-up append is in the log, and nothing else.
  const stored = await withPool(database, 1, async ({ pool }) =>
    Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM events WHERE type = 'BenchAppended'`)).rows[0]!.n),
  );
  if (stored !== appended) throw new Error(`expected ${appended} BenchAppended events in the log, found ${stored}`);

  let fsync: string | null = null;
  if (walBefore) {
    const walAfter = await walStats(database);
    if (walAfter && walAfter.syncs > walBefore.syncs) {
      const syncs = walAfter.syncs - walBefore.syncs;
      fsync = `WAL fsyncs during the run: ${fmt.count(syncs)}, ${fmt.ms((walAfter.syncMs - walBefore.syncMs) / syncs)} on average`;
    }
  }
  const total = (performance.now() - started) / 1000;
  process.stdout.write(report(database, settings, fsync, seconds, commands, raws, { batch: batch!, loading: loading!, together: together!, raw: loadRaw! }, { written: written!, minimal: minimal!, raw: restRaw! }, total));
  return 0;
}

// ---------------------------------------------------------------------------------------------------------

/** The pipeline as the Hub builds it, without a job queue (no command here enqueues one). */
function pipelineDeps(db: Database['db']): Pipeline {
  return createPipeline({ db, boss: null, clock: systemClock, projections: allProjections });
}

function eventData(client: number) {
  return { client, note: 'fleetplane append benchmark', at: Date.now() };
}

/**
 * How a benchmark command reads its stream's head before it decides, as a command reads the state it
 * decides on (which takes it off the one-statement path into a transaction: BEGIN, the read, the append,
 * COMMIT): `none` reads nothing; `alone` has a `load` of its own, one round trip in turn in a shared
 * transaction; `together` declares a bulk load too (commands/command.ts, BulkLoad), as Fleetplane's commands
 * that arrive in numbers do (desired writes, reports, leases, results): commands of the kind that share a
 * transaction read all their heads in one statement.
 */
type Loads = 'none' | 'alone' | 'together';

/**
 * The heads of `streamIds`, in one statement prepared as the Hub's own loads are (`keyed`): one stream by
 * equality, several as one array.
 */
async function streamHeads(trx: Kysely<Tables>, streamIds: readonly string[]): Promise<Map<string, string | undefined>> {
  const { match, name } = keyed(streamIds, 'bench_head', 'bench_heads');
  const heads = sql<{ stream_id: string; stream_version: string }>`SELECT stream_id, stream_version FROM stream_heads WHERE stream_id = ${match}`;
  const { rows } = await trx.executeQuery(prepared(name('load'), { compile: () => heads.compile(trx) }).compile());
  const versions = new Map(rows.map((r) => [r.stream_id, r.stream_version]));
  return new Map(streamIds.map((id) => [id, versions.get(id)]));
}

/** One BenchAppend command of `count` events to `streamId`, expected version 'any', reading its stream's head as `loads` says. */
async function append(pipeline: Pipeline, streamId: string, client: number, count: number, loads: Loads = 'none'): Promise<void> {
  const command: Command<unknown, null> = {
    name: 'BenchAppend',
    ...(loads !== 'none' && { load: (trx) => streamHeads(trx, [streamId]) }),
    ...(loads === 'together' && { bulk: { kind: 'bench-append', key: streamId, loadMany: streamHeads } }),
    decide: () =>
      ok({
        // An event type of the benchmark's own, which no projection handles: the pipeline appends it like Fleetplane's.
        events: Array.from({ length: count }, () => ({ streamId, type: 'BenchAppended', data: eventData(client) }) satisfies NewEvent as unknown as FleetEvent),
        result: null,
      }),
  };
  const actor: Actor = { principal: 'bench', role: 'system', source: 'cli', correlationId: randomUUID() };
  const outcome = await pipeline.run(actor, command);
  if (!outcome.ok) throw new Error(`BenchAppend failed: ${outcome.error.code}: ${outcome.error.message}`);
}

async function withPool<T>(database: BenchDatabase, max: number, f: (d: Database) => Promise<T>): Promise<T> {
  const d = database.connect(max);
  try {
    return await f(d);
  } finally {
    await d.close();
  }
}

async function walStats(database: BenchDatabase): Promise<{ syncs: number; syncMs: number } | null> {
  try {
    return await withPool(database, 1, async ({ pool }) => {
      await pool.query('SELECT pg_stat_force_next_flush()');
      const { rows } = await pool.query<{ syncs: string; sync_ms: number }>(
        'SELECT wal_sync AS syncs, wal_sync_time AS sync_ms FROM pg_stat_wal',
      );
      return { syncs: Number(rows[0]!.syncs), syncMs: Number(rows[0]!.sync_ms) };
    });
  } catch {
    return null; // PostgreSQL 18 moved these counters to pg_stat_io
  }
}

interface Workload {
  label: string;
  prepare: (d: Database) => Operation;
}

/**
 * Measures workloads at `clients` concurrent loops each, every workload on a pool of its own of `clients`
 * connections: a warm-up, then `seconds` per workload in SLICES slices, the workloads taking turns (and
 * the order flipping every slice). Throughput counts operations completed from a slice's start to its
 * last finish.
 */
async function alternating(database: BenchDatabase, clients: number, seconds: number, workloads: Workload[]): Promise<Result[]> {
  const pools = workloads.map(() => database.connect(clients));
  try {
    const ops = workloads.map((w, i) => w.prepare(pools[i]!));
    for (const op of ops) {
      await Promise.all(range(clients).map(async (c) => {
        for (let i = 0; i < WARMUP_OPS && !stop.requested; i++) await op(c);
      }));
    }
    const series = workloads.map(() => newSeries());
    for (let k = 0; k < SLICES; k++) {
      const order = range(workloads.length);
      if (k % 2 === 1) order.reverse();
      for (const i of order) await slice(ops[i]!, clients, (seconds * 1000) / SLICES, series[i]!);
    }
    return workloads.map((w, i) => {
      const s = series[i]!;
      const { p50, p99 } = summary(s.latencies);
      const r: Result = { clients, ops: s.ops, seconds: s.seconds, perSecond: s.ops / s.seconds, p50, p99 };
      log(`${w.label}: ${fmt.count(r.perSecond)}/s (${r.ops} ops in ${r.seconds.toFixed(1)} s, p50 ${fmt.ms(r.p50)}, p99 ${fmt.ms(r.p99)})`);
      return r;
    });
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

// ---------------------------------------------------------------------------------------------------------

function report(
  database: BenchDatabase,
  settings: Settings,
  fsync: string | null,
  seconds: number,
  commands: Result[],
  raws: Result[],
  { batch, loading, together, raw }: { batch: Result; loading: Result; together: Result; raw: Result },
  rest: { written: Result; minimal: Result; raw: Result },
  total: number,
): string {
  const latency = (r: Result, unit = '') => `${fmt.ms(r.p50)} / ${fmt.ms(r.p99)}${unit}`;
  const rows = commands.map((c, i) => {
    const r = raws[i]!;
    return [`${c.clients}`, fmt.count(c.perSecond), fmt.count(r.perSecond), fmt.percent(c.perSecond / r.perSecond), latency(c), latency(r)];
  });
  // The batch and load rows took turns with raw inserts of their own, and so did the REST rows.
  const batchEvents = batch.perSecond * BATCH_SIZE;
  rows.push(
    [`${loading.clients}, command with a load of its own`, fmt.count(loading.perSecond), fmt.count(raw.perSecond), fmt.percent(loading.perSecond / raw.perSecond), latency(loading), latency(raw)],
    [`${together.clients}, command with a load, loading together`, fmt.count(together.perSecond), fmt.count(raw.perSecond), fmt.percent(together.perSecond / raw.perSecond), latency(together), latency(raw)],
    ...(
      [
        ['desired write through the REST API', rest.written],
        ['desired write through the REST API, answered minimal', rest.minimal],
      ] as const
    ).map(([label, r]) => [`${r.clients}, ${label}`, fmt.count(r.perSecond), fmt.count(rest.raw.perSecond), fmt.percent(r.perSecond / rest.raw.perSecond), latency(r), latency(rest.raw)]),
    [
      `${batch.clients}, ${BATCH_SIZE}-event batches`,
      `${fmt.count(batchEvents)} events/s (${fmt.count(batch.perSecond)} batches/s)`,
      fmt.count(raw.perSecond),
      fmt.percent(batchEvents / raw.perSecond),
      latency(batch, ' per batch'),
      latency(raw),
    ],
  );
  const single = commands.find((c) => c.clients === GOAL_CLIENTS)!;
  const singleRaw = raws.find((r) => r.clients === GOAL_CLIENTS)!;
  const goals: Goal[] = [
    {
      goal: `single-event appends at ${GOAL_CLIENTS} clients`,
      measured: `${fmt.count(single.perSecond)} appends/s`,
      rate: single.perSecond,
      raw: singleRaw.perSecond,
      ratio: GOAL_RATIO,
    },
    {
      goal: `single-event commands that load state first, loading together, at ${GOAL_CLIENTS} clients`,
      measured: `${fmt.count(together.perSecond)} commands/s`,
      rate: together.perSecond,
      raw: raw.perSecond,
      ratio: GOAL_LOAD_RATIO,
    },
    ...(
      [
        ['(PUT /streams/{id})', rest.written],
        ['answered minimal (Prefer: return=minimal)', rest.minimal],
      ] as const
    ).map(([how, r]) => ({
      goal: `desired writes through the REST API ${how}, at ${GOAL_CLIENTS} clients`,
      measured: `${fmt.count(r.perSecond)} writes/s`,
      rate: r.perSecond,
      raw: rest.raw.perSecond,
      ratio: GOAL_REST_RATIO,
    })),
  ];
  return [
    ...header('append', database, settings, `whole run ${total.toFixed(1)} s`),
    `${seconds} s per measurement in ${SLICES} slices, command and raw alternating, after ${WARMUP_OPS} warm-up ops per client; ` +
      `one pooled connection per client; each client appends to a stream of its own, expected version 'any', ` +
      `a command without a load or projection (one statement)`,
    ...(fsync ? [fsync] : []),
    '',
    ...fmt.table(['clients', 'command appends/s', 'raw inserts/s', 'ratio', 'command p50 / p99', 'raw p50 / p99'], rows),
    '',
    ...goalTable(goals),
    '',
  ].join('\n');
}
