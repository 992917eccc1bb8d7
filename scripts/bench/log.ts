import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Report } from '@fleetplane/core';
import { sql, type Kysely } from 'kysely';
import { openDestination } from '../../packages/hub/src/archive/destination-url.ts';
import { readContainerHeader, SEGMENT_FILE } from '../../packages/hub/src/archive/segment-container.ts';
import { archiveDueSegments, type ArchiveStep } from '../../packages/hub/src/archiver/archive-segments.ts';
import { planSegments } from '../../packages/hub/src/archiver/plan.ts';
import { run as fleetplane } from '../../packages/hub/src/cli/run.ts';
import { registerNode } from '../../packages/hub/src/nodes/register-node.ts';
import type { Actor } from '../../packages/hub/src/commands/pipeline.ts';
import { archiveDestination, ConfigFile, type HubConfig } from '../../packages/hub/src/config.ts';
import type { Tables } from '../../packages/hub/src/database/tables.ts';
import { listSegments, SEGMENT_BOUNDS } from '../../packages/hub/src/event-store/segments.ts';
import { startHub, type Hub } from '../../packages/hub/src/hub.ts';
import { createLogger } from '../../packages/hub/src/logger.ts';
import { allProjections } from '../../packages/hub/src/projections/all.ts';
import { ingestReport } from '../../packages/hub/src/reconcile/ingest-report.ts';
import { timeOrderedUuid } from '../../packages/hub/src/time-ordered-id.ts';
import type { BenchDatabase } from './database.ts';
import { onOwnDatabase, stop } from './interruptible.ts';
import { sizeOption } from './options.ts';
import { inParallel } from './tools/fleet.ts';
import * as fmt from './tools/format.ts';
import { dropFreshSegments } from './tools/log-segments.ts';
import { log } from './tools/progress.ts';
import { header, serverSettings, type Settings } from './tools/server.ts';

/**
 * `npm run bench -- log` (issue 19): a month of a fleet's log, compressed in time, through a Hub's own paths.
 * LOG_NODES nodes register and report for LOG_DAYS simulated days (default 30), 5% of reports changing one of
 * their 5 streams, with `log.segment_duration` 1d, `hot_retention` 7d and a directory archive. A real fleet
 * reports every 10 s (8,640 reports a node a day); this one sends LOG_REPORTS_PER_DAY a node a simulated day,
 * each standing for 8,640 / that many, and the Hub's clock is a simulated one that the benchmark moves on with
 * the reports. The default, 1,000 nodes reporting 20 times a day, runs in minutes on 2 cores; the issue's
 * fleet is LOG_NODES=10000 (each archived segment's checkpoint then holds ten times the rows).
 *
 * Real: an in-process Hub on PostgreSQL (its pipeline with group commit, the report command the HTTP route
 * runs, the projections, its segment upkeep sizing segments by the clock), the archiver's run
 * (archiveDueSegments, every step) at the end of each simulated day, and `fleetplane verify` (the CLI, in
 * process). Simulated: the clock, HTTP (reports go to the pipeline as the route hands them), and the rate.
 *
 * Prints bytes per repeated and per changed report in the hot log (measured over a round of each on the first
 * day) and in the archive, the hot size at each simulated day's end (flat after day 7 within one segment:
 * PASS/FAIL), the archiver's throughput beside a raw `COPY <partition> TO '<file>'` of the same segments just
 * before they are archived, and `verify`'s time at days 10 and 30 against the hot and archived lengths.
 */

const DAY = 86_400_000;
const REAL_REPORTS_PER_DAY = 8_640;
const RETENTION_DAYS = 7;
const STREAMS = 5;
const CHANGED_EVERY = 20;
const IN_FLIGHT = 512;
const START = Date.UTC(2026, 0, 1);
const VERIFY_DAYS = [10, 30];
const GOALS = { repeatedHot: 300, changedHot: 800, archived: 40 };
const PER_STREAM_SECTIONS = ['streams', 'stream_start_hashes', 'stream_end_hashes'];

const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;

interface Options {
  nodes: number;
  reportsPerDay: number;
  days: number;
}

function options(args: string[]): Options | null {
  if (args.length > 0) {
    log(`log takes no arguments (got: ${args.join(' ')}); set LOG_NODES, LOG_REPORTS_PER_DAY, LOG_DAYS to change its size`);
    return null;
  }
  const nodes = sizeOption('LOG_NODES', 1_000, 100, log);
  const reportsPerDay = sizeOption('LOG_REPORTS_PER_DAY', 20, 3, log);
  const days = sizeOption('LOG_DAYS', 30, RETENTION_DAYS + 2, log);
  return nodes === null || reportsPerDay === null || days === null ? null : { nodes, reportsPerDay, days };
}

export async function run(args: string[]): Promise<number> {
  const o = options(args);
  if (o === null) return 2;
  return onOwnDatabase(log, (database) => month(database, o));
}

/** What the simulated fleet's nodes last reported: their sequence numbers and their streams' generations. */
class Fleet {
  readonly seq: Uint32Array;
  readonly generations: Uint32Array;
  constructor(nodes: number) {
    this.seq = new Uint32Array(nodes);
    this.generations = new Uint32Array(nodes * STREAMS).fill(1);
  }
  node = (i: number) => `edge-${i + 1}`;
  actor = (i: number): Actor => ({ principal: `${this.node(i)}-agent`, role: 'agent', source: 'agent', correlationId: timeOrderedUuid() });
  /** Node i's next full report; `change` moves one of its streams to a new generation first. */
  report(i: number, change: boolean): Report {
    if (change) this.generations[i * STREAMS + (this.seq[i]! % STREAMS)]! += 1;
    this.seq[i]! += 1;
    return {
      node_id: this.node(i),
      boot_id: 'boot-1',
      report_seq: this.seq[i]!,
      full: true,
      streams: Array.from({ length: STREAMS }, (_, k) => ({
        stream_id: `${this.node(i)}-s${k + 1}`,
        generation: this.generations[i * STREAMS + k]!,
        state: 'running',
        last_action_id: null,
        error: null,
      })),
      configuration: { applied_version: null, recovery_points: [] },
    };
  }
}

interface DayRow {
  day: number;
  reports: number;
  ingestSeconds: number;
  logBytes: number;
  hotSegments: number;
  hotEvents: number;
  databaseBytes: number;
  archivedSegments: number;
  archivedEvents: number;
  archiveBytes: number;
  archiveSeconds: number;
}

interface ArchiveTotals {
  events: number;
  segments: number;
  segmentBytes: number;
  /** Seconds per step, summed over the segments. */
  steps: Record<'segment' | 'checkpoint' | 'record' | 'drop', number>;
  copyRows: number;
  copySeconds: number;
  copyBytes: number;
  /** The largest closed segment seen, hot or just before it was archived. */
  maxSegmentBytes: number;
  /** The archived segment files' bytes by section (docs/archive-format.md). */
  sections: Map<string, number>;
}

interface Verified {
  day: number;
  seconds: number;
  /** A raw `COPY` of the hot log to a file just before, in seconds: the machine's speed at that moment. */
  copySeconds: number;
  hotEvents: number;
  archivedEvents: number;
  exit: number;
  output: string;
}

async function month(database: BenchDatabase, o: Options): Promise<number> {
  const scratch = await mkdtemp(join(tmpdir(), 'fleetplane-bench-log-'));
  const archiveDir = join(scratch, 'archive');
  // COPY TO writes as the server's user: the benchmark runs on the server's machine.
  const copyDir = join(scratch, 'copy');
  await mkdir(copyDir);
  await chmod(scratch, 0o711);
  await chmod(copyDir, 0o777);
  const fleet = new Fleet(o.nodes);
  const perDay = o.nodes * o.reportsPerDay;
  let now = START;
  const clock = { now: () => new Date(now) };
  const config: HubConfig = {
    port: 0,
    bind: null,
    tls: null,
    dataDir: scratch,
    databaseUrl: database.url,
    embeddedPort: 0,
    generatedAdminToken: null,
    adminTokenFile: null,
    // The Hub's own archiver runs once at start (nothing is due); the benchmark runs it at each day's end.
    file: ConfigFile.parse({ log: { segment_duration: '1d', hot_retention: `${RETENTION_DAYS}d`, archive: archiveDir, archive_every: '1d' } }),
  };
  const logger = createLogger('error', true);
  // A segment spans a simulated day: at this rate, fewer events than the real floor of 100,000.
  const segmentBounds = { ...SEGMENT_BOUNDS, minEvents: perDay };
  await dropFreshSegments(database);
  const hub: Hub = await startHub({ config, databaseUrl: database.url, clock, logger, port: 0, segmentsEveryMs: 500, segmentBounds, sweepEveryMs: 3_600_000 });
  const db = hub.context.database.db;
  try {
    log(`${fmt.count(o.nodes)} nodes, ${o.reportsPerDay} reports a node a simulated day (each stands for ${fmt.count(REAL_REPORTS_PER_DAY / o.reportsPerDay)} of a real fleet's), ${o.days} days`);
    const r0 = performance.now();
    await inParallel(0, o.nodes, IN_FLIGHT, async (i) => {
      const r = await hub.context.pipeline.run(fleet.actor(i), registerNode({ node_id: fleet.node(i), boot_id: 'boot-1', agent_version: 'bench', capabilities: [], data_address: null, control_address: null }));
      if (!r.ok) throw new Error(`registering ${fleet.node(i)}: ${r.error.code}: ${r.error.message}`);
    });
    log(`registered in ${((performance.now() - r0) / 1000).toFixed(1)} s`);

    const calibration = { repeated: 0, changed: 0 };
    const days: DayRow[] = [];
    const totals: ArchiveTotals = { events: 0, segments: 0, segmentBytes: 0, steps: { segment: 0, checkpoint: 0, record: 0, drop: 0 }, copyRows: 0, copySeconds: 0, copyBytes: 0, maxSegmentBytes: 0, sections: new Map() };
    const verified: Verified[] = [];
    const roundMs = DAY / o.reportsPerDay;

    for (let day = 0; day < o.days && !stop.requested; day++) {
      const d0 = performance.now();
      for (let round = 0; round < o.reportsPerDay && !stop.requested; round++) {
        const roundStart = START + day * DAY + round * roundMs;
        // The first day's first rounds: every node's first report (what it runs), a round where every report
        // repeats, one where every report changes; each measured alone. Then 5% change.
        const kind = day === 0 && round < 3 ? (['first', 'repeated', 'changed'] as const)[round]! : 'mixed';
        const before = kind === 'repeated' || kind === 'changed' ? await writtenBytes(db) : null;
        await inParallel(0, o.nodes, IN_FLIGHT, async (i) => {
          now = Math.max(now, roundStart + Math.floor((i * roundMs) / o.nodes));
          const change = kind === 'changed' || (kind === 'mixed' && (i + round + day * o.reportsPerDay) % CHANGED_EVERY === 0);
          const r = await hub.context.pipeline.run(fleet.actor(i), ingestReport(fleet.report(i, change)));
          if (!r.ok || !r.value.result.accepted) throw new Error(`report of ${fleet.node(i)} refused: ${JSON.stringify(r.ok ? r.value.result : r.error)}`);
        });
        if (before !== null) calibration[kind as 'repeated' | 'changed'] = ((await writtenBytes(db)) - before) / o.nodes;
      }
      const ingestSeconds = (performance.now() - d0) / 1000;
      now = START + (day + 1) * DAY;
      const archived = await archiveDay(hub, db, archiveDir, copyDir, totals, clock);
      const { closedBytes, ...hot } = await hotLog(db);
      totals.maxSegmentBytes = Math.max(totals.maxSegmentBytes, closedBytes);
      days.push({ day: day + 1, reports: o.nodes * o.reportsPerDay, ingestSeconds, ...hot, archivedSegments: totals.segments, archivedEvents: totals.events, archiveBytes: await directoryBytes(archiveDir), archiveSeconds: archived });
      log(`day ${day + 1}: ${ingestSeconds.toFixed(1)} s of reports, ${archived.toFixed(1)} s archiving; hot log ${mb(hot.logBytes)} in ${hot.hotSegments} segments, ${fmt.count(totals.events)} events archived`);
      if (VERIFY_DAYS.includes(day + 1) || day + 1 === o.days) verified.push(await verify(database, db, copyDir, day + 1, totals.events));
    }
    if (stop.requested) return 130;
    // The whole archive proved, and an auditor's replay of the tables as they stood at the end of day 3.
    const audits = [await cli(database, ['verify', '--archive']), await cli(database, ['replay', '--into', 'audit_day_3', '--until', new Date(START + 3 * DAY).toISOString()])];
    const pool = database.connect(1);
    const settings = await serverSettings(pool.pool).finally(() => pool.close());
    process.stdout.write(report(database, settings, o, calibration, days, totals, verified, audits));
    const flat = flatness(days, totals);
    return flat.pass && verified.every((v) => v.exit === 0) && audits.every((a) => a.exit === 0) ? 0 : 1;
  } finally {
    await hub.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The log's segments written into (not those still ahead of the appends): tables, indexes and TOAST. */
async function writtenBytes(db: Kysely<Tables>): Promise<number> {
  return (await listSegments(db)).filter((s) => !s.ahead).reduce((sum, s) => sum + s.bytes, 0);
}

async function hotLog(db: Kysely<Tables>): Promise<{ logBytes: number; hotSegments: number; hotEvents: number; databaseBytes: number; closedBytes: number }> {
  const segments = await listSegments(db);
  const { rows } = await sql<{ events: string; database: string }>`SELECT (SELECT count(*) FROM events) AS events, pg_database_size(current_database()) AS database`.execute(db);
  return {
    logBytes: segments.reduce((sum, s) => sum + s.bytes, 0),
    hotSegments: segments.filter((s) => !s.ahead).length,
    closedBytes: Math.max(0, ...segments.filter((s) => s.closed).map((s) => s.bytes)),
    hotEvents: Number(rows[0]!.events),
    databaseBytes: Number(rows[0]!.database),
  };
}

async function directoryBytes(dir: string): Promise<number> {
  let bytes = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => [])) {
    if (entry.isFile()) bytes += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return bytes;
}

/**
 * The day's end: the segments due are first copied raw (`COPY <partition> TO '<file>'`, the baseline), then
 * archived by the archiver's run, each step timed. Answers the seconds the archiver took.
 */
async function archiveDay(hub: Hub, db: Kysely<Tables>, archiveDir: string, copyDir: string, totals: ArchiveTotals, clock: { now(): Date }): Promise<number> {
  const due = (await planSegments(db, { hotRetentionMs: RETENTION_DAYS * DAY, hotMaxBytes: null }, clock.now())).filter((s) => s.state === 'archiving' && !s.recorded);
  for (const s of due) {
    const file = join(copyDir, `${s.name}.copy`);
    totals.copyRows += Number((await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(s.name)}`.execute(db)).rows[0]!.n);
    const c0 = performance.now();
    await sql.raw(`COPY ${s.name} TO '${file}'`).execute(db);
    totals.copySeconds += (performance.now() - c0) / 1000;
    totals.copyBytes += (await stat(file)).size;
    await rm(file);
    totals.maxSegmentBytes = Math.max(totals.maxSegmentBytes, s.bytes);
  }
  const stepOf: Record<ArchiveStep, keyof ArchiveTotals['steps'] | null> = { segment_stored: 'segment', checkpoint_stored: 'checkpoint', recorded: 'record', detached: null, dropped: 'drop' };
  const started = performance.now();
  let previous = started;
  const archived = await archiveDueSegments(
    {
      db,
      pipeline: hub.context.pipeline,
      destination: openDestination(archiveDestination(hub.context.config)),
      policy: { hotRetentionMs: RETENTION_DAYS * DAY, hotMaxBytes: null },
      projections: allProjections,
      clock,
      logger: hub.context.logger,
    },
    {
      afterStep: (step) => {
        const at = performance.now();
        const into = stepOf[step];
        if (into === null) return;
        totals.steps[into] += (at - previous) / 1000;
        previous = at;
      },
    },
  );
  const seconds = (performance.now() - started) / 1000;
  for (const a of archived) {
    totals.events += a.events;
    totals.segments += 1;
    totals.segmentBytes += a.segment.bytes;
    for (const section of readContainerHeader(SEGMENT_FILE, await readFile(join(archiveDir, a.segment.name))).sections) {
      totals.sections.set(section.name, (totals.sections.get(section.name) ?? 0) + section.bytes);
    }
  }
  return seconds;
}

interface CliRun {
  command: string;
  exit: number;
  seconds: number;
  output: string;
}

/** `fleetplane <args>` as an operator runs it (DATABASE_URL), in process, timed. */
async function cli(database: BenchDatabase, args: string[]): Promise<CliRun> {
  let output = '';
  const io = { out: (t: string) => void (output += t), err: (t: string) => void (output += t), env: { DATABASE_URL: database.url, FLEETPLANE_LOG_LEVEL: 'error' }, signal: new AbortController().signal };
  const started = performance.now();
  const exit = await fleetplane(args, io);
  const seconds = (performance.now() - started) / 1000;
  output = output.trim().replaceAll('\n', '; ');
  log(`fleetplane ${args.join(' ')}: ${seconds.toFixed(1)} s, exit ${exit}: ${output}`);
  return { command: `fleetplane ${args.join(' ')}`, exit, seconds, output };
}

async function verify(database: BenchDatabase, db: Kysely<Tables>, copyDir: string, day: number, archivedEvents: number): Promise<Verified> {
  const hotEvents = Number((await sql<{ n: string }>`SELECT count(*) AS n FROM events`.execute(db)).rows[0]!.n);
  const file = join(copyDir, 'hot.copy');
  const c0 = performance.now();
  await sql.raw(`COPY (SELECT * FROM events) TO '${file}'`).execute(db);
  const copySeconds = (performance.now() - c0) / 1000;
  await rm(file);
  const { exit, seconds, output } = await cli(database, ['verify']);
  return { day, seconds, copySeconds, hotEvents, archivedEvents, exit, output };
}

/** After the retention has filled (from the day after it), the hot log stays within one segment of its smallest. */
function flatness(days: DayRow[], totals: ArchiveTotals): { pass: boolean; min: number; max: number } {
  const after = days.filter((d) => d.day > RETENTION_DAYS + 1).map((d) => d.logBytes);
  const min = Math.min(...after);
  const max = Math.max(...after);
  return { pass: after.length > 0 && max - min <= totals.maxSegmentBytes, min, max };
}

function report(database: BenchDatabase, settings: Settings, o: Options, calibration: { repeated: number; changed: number }, days: DayRow[], totals: ArchiveTotals, verified: Verified[], audits: CliRun[]): string {
  const verdict = fmt.verdict;
  const flat = flatness(days, totals);
  const archivedPerReport = totals.segmentBytes / totals.events;
  // What a segment holds once per stream (its id, its chain heads at both ends): at a real fleet's rate, spread
  // over thousands of reports per node and segment, here over LOG_REPORTS_PER_DAY.
  const perStream = PER_STREAM_SECTIONS.reduce((sum, name) => sum + (totals.sections.get(name) ?? 0), 0);
  const archivedPerEvent = (totals.segmentBytes - perStream) / totals.events;
  const copyRate = totals.copyRows / totals.copySeconds;
  const segmentRate = totals.events / totals.steps.segment;
  const archiveSeconds = Object.values(totals.steps).reduce((a, b) => a + b, 0);
  const allRate = totals.events / archiveSeconds;
  const ingest = days.reduce((s, d) => s + d.reports, 0) / days.reduce((s, d) => s + d.ingestSeconds, 0);
  const lines = [
    ...header('log', database, settings, 'one Hub in-process with a simulated clock'),
    `${fmt.count(o.nodes)} nodes, ${STREAMS} streams each, ${o.days} simulated days, ` +
      `${o.reportsPerDay} reports a node a day (a real fleet every 10 s: ${fmt.count(REAL_REPORTS_PER_DAY)}; time compressed ${fmt.count(REAL_REPORTS_PER_DAY / o.reportsPerDay)}×), ` +
      `1 in ${CHANGED_EVERY} reports changing one stream; log.segment_duration 1d, hot_retention ${RETENTION_DAYS}d, archive: a directory`,
    'Real: a Hub in process (pipeline, report command, projections, segment upkeep), the archiver run (every step), `fleetplane verify`. Simulated: the clock, HTTP, the report rate.',
    `Reports through the Hub's pipeline: ${fmt.count(ingest)}/s.`,
    '',
    '| measurement | figure | goal |',
    '|---|---:|---|',
    `| repeated report, hot (log tables, indexes, TOAST; a round of ${fmt.count(o.nodes)}) | ${calibration.repeated.toFixed(0)} B | ≤ ${GOALS.repeatedHot} B: ${verdict(calibration.repeated <= GOALS.repeatedHot)} |`,
    `| changed report of ${STREAMS} streams, hot (a round of ${fmt.count(o.nodes)}) | ${calibration.changed.toFixed(0)} B | ≤ ${GOALS.changedHot} B: ${verdict(calibration.changed <= GOALS.changedHot)} |`,
    `| archived: segment file bytes / events (${fmt.count(totals.events)} events, ${100 / CHANGED_EVERY}% changed: bounds a repeated one) | ${archivedPerReport.toFixed(1)} B | repeated ≤ ${GOALS.archived} B: ${verdict(archivedPerReport <= GOALS.archived)} |`,
    `| archived, without what a segment holds once per stream (${PER_STREAM_SECTIONS.join(', ')}: ${(perStream / totals.events).toFixed(1)} B an event at ${o.reportsPerDay} reports a node and segment) | ${archivedPerEvent.toFixed(1)} B | – |`,
    `| raw COPY of the same segments to a file (same run, just before archiving) | ${fmt.count(copyRate)} rows/s, ${(totals.copyBytes / totals.copyRows).toFixed(0)} B/row | baseline |`,
    `| archive: segment file (read, hash chain, encode, compress, write, read back) | ${fmt.count(segmentRate)} events/s | ${fmt.percent(segmentRate / copyRate, 1)} of raw |`,
    `| archive: every step (segment file, checkpoint, record, drop) | ${fmt.count(allRate)} events/s | ${fmt.percent(allRate / copyRate, 1)} of raw |`,
    `| hot log after day ${RETENTION_DAYS + 1}: smallest, largest; largest segment | ${mb(flat.min)}, ${mb(flat.max)}; ${mb(totals.maxSegmentBytes)} | flat within one segment: ${verdict(flat.pass)} |`,
    ...verified.map(
      (v) =>
        `| \`fleetplane verify\` at day ${v.day}: ${fmt.count(v.hotEvents)} hot events, ${fmt.count(v.archivedEvents)} archived | ${v.seconds.toFixed(1)} s, ${fmt.count(v.hotEvents / v.seconds)} hot events/s; raw COPY of the hot log just before: ${v.copySeconds.toFixed(1)} s, ${fmt.count(v.hotEvents / v.copySeconds)} rows/s (verify ${fmt.percent(v.copySeconds / v.seconds, 1)} of raw) | exit ${v.exit}: ${verdict(v.exit === 0)} |`,
    ),
    ...audits.map((a) => `| \`${a.command}\` at day ${o.days}: ${a.output} | ${a.seconds.toFixed(1)} s | exit ${a.exit}: ${verdict(a.exit === 0)} |`),
    '',
    `Segment file bytes per event by section: ${[...totals.sections].sort((a, b) => b[1] - a[1]).map(([name, bytes]) => `${name} ${(bytes / totals.events).toFixed(1)}`).join(', ')}.`,
    `Archive steps in all: segment files ${totals.steps.segment.toFixed(1)} s, checkpoints ${totals.steps.checkpoint.toFixed(1)} s, records ${totals.steps.record.toFixed(1)} s, detach and drop ${totals.steps.drop.toFixed(1)} s (${totals.segments} segments).`,
    '',
    '| day | reports | seconds | hot log | hot segments | hot events | database | archived segments | archived events | archive on disk | archiver seconds |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...days.map(
      (d) =>
        `| ${d.day} | ${fmt.count(d.reports)} | ${d.ingestSeconds.toFixed(1)} | ${mb(d.logBytes)} | ${d.hotSegments} | ${fmt.count(d.hotEvents)} | ${mb(d.databaseBytes)} | ${d.archivedSegments} | ${fmt.count(d.archivedEvents)} | ${mb(d.archiveBytes)} | ${d.archiveSeconds.toFixed(1)} |`,
    ),
    '',
  ];
  return lines.join('\n');
}
