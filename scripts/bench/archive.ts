import { chmod, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { currentSchemaVersion, reportedData, type Report } from '@fleetplane/core';
import { sql } from 'kysely';
import { openDestination, parseDestination } from '../../packages/hub/src/archive/destination-url.ts';
import { archiveDueSegments, type ArchiveStep } from '../../packages/hub/src/archiver/archive-segments.ts';
import { createPipeline } from '../../packages/hub/src/commands/pipeline.ts';
import type { Database } from '../../packages/hub/src/database/connect.ts';
import { appendToStreams, type StreamAppend } from '../../packages/hub/src/event-store/append.ts';
import { listSegments } from '../../packages/hub/src/event-store/segments.ts';
import { createLogger } from '../../packages/hub/src/logger.ts';
import { allProjections } from '../../packages/hub/src/projections/all.ts';
import { timeOrderedUuid } from '../../packages/hub/src/time-ordered-id.ts';
import { onOwnDatabase, stop } from './interruptible.ts';
import { sizeOption } from './options.ts';
import * as fmt from './tools/format.ts';
import { log } from './tools/progress.ts';
import { header, serverSettings } from './tools/server.ts';

/**
 * `npm run bench -- archive`: the archiver (every step: the segment file written and read back verified,
 * the projections' checkpoint derived and stored, the record appended, the partition detached and dropped)
 * on a segment of 100,000 and one of 1,000,000 events, beside a raw `COPY <partition> TO '<file>'` of the
 * same partition in the same run (the server writes the file: the benchmark runs on the server's machine).
 *
 * The log is a fleet's: 10,000 nodes register, then report every 10 s in rounds, 5% of reports changed
 * (3 streams each), appended in batches as the Hub appends reports.
 */

/** The larger segment's events (ARCHIVE_EVENTS for a quicker run); the smaller one holds a tenth. */
const EVENTS = 1_000_000;
const NODES = 10_000;
const STREAMS_PER_NODE = 3;
const BATCH = 512;
const ROUND_MS = 10_000;
const START = Date.UTC(2026, 10, 1);


export async function run(args: string[]): Promise<number> {
  if (args.length > 0) {
    log(`archive takes no arguments (got: ${args.join(' ')}); set ARCHIVE_EVENTS to change the segments' size`);
    return 2;
  }
  const events = sizeOption('ARCHIVE_EVENTS', EVENTS, 10 * NODES, log);
  if (events === null) return 2;
  const sizes = [events / 10, events].map(Math.round);
  return onOwnDatabase(log, async (database) => {
    const pool = database.connect(6);
    const scratch = await mkdtemp(join(tmpdir(), 'fleetplane-bench-archive-'));
    try {
      // Segments of exactly the sizes measured, and one after them, which the last event opens.
      const bounds = [1];
      for (const size of [...sizes, sizes[0]!]) bounds.push(bounds.at(-1)! + size);
      for (const s of await listSegments(pool.db)) {
        await sql`ALTER TABLE events DETACH PARTITION ${sql.table(s.name)}`.execute(pool.db);
        await sql`DROP TABLE ${sql.table(s.name)}`.execute(pool.db);
      }
      for (let i = 0; i + 1 < bounds.length; i++) await sql`SELECT add_events_partition(${bounds[i]}::bigint, ${bounds[i + 1]}::bigint)`.execute(pool.db);

      const total = bounds.at(-2)!;
      const t0 = performance.now();
      const lastAt = await writeLog(pool, total);
      if (stop.requested) return 130;
      log(`log: ${fmt.count(total)} events written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      await sql`VACUUM ANALYZE events`.execute(pool.db);

      const segments = (await listSegments(pool.db)).slice(0, sizes.length);
      // Written by the server's own user.
      const copyDir = join(scratch, 'copy');
      await mkdir(copyDir);
      await chmod(scratch, 0o711);
      await chmod(copyDir, 0o777);
      const copies = new Map<string, { seconds: number; bytes: number }>();
      for (const s of segments) {
        const file = join(copyDir, `${s.name}.copy`);
        const c0 = performance.now();
        await sql.raw(`COPY ${s.name} TO '${file}'`).execute(pool.db);
        copies.set(s.name, { seconds: (performance.now() - c0) / 1000, bytes: (await stat(file)).size });
        await rm(file);
      }

      const destination = openDestination(parseDestination(join(scratch, 'archive')));
      const clock = { now: () => new Date(lastAt.getTime() + 8 * 86_400_000) };
      const marks = new Map<string, Array<[ArchiveStep | 'start', number]>>();
      let previous = performance.now();
      const archived = await archiveDueSegments(
        {
          db: pool.db,
          pipeline: createPipeline({ db: pool.db, boss: null, clock, projections: allProjections }),
          destination,
          policy: { hotRetentionMs: 7 * 86_400_000, hotMaxBytes: null },
          projections: allProjections,
          clock,
          logger: createLogger('error', true),
        },
        {
          afterStep: (step, segment) => {
            const now = performance.now();
            if (!marks.has(segment)) marks.set(segment, [['start', previous]]);
            marks.get(segment)!.push([step, now]);
            previous = now;
          },
        },
      );

      const rows = segments.map((s, i) => {
        const data = archived[i]!;
        const m = new Map(marks.get(s.name)!);
        const span = (a: ArchiveStep | 'start', b: ArchiveStep) => (m.get(b)! - m.get(a)!) / 1000;
        const between = (a: ArchiveStep | 'start', b: ArchiveStep) => `${span(a, b).toFixed(1)} s`;
        const copy = copies.get(s.name)!;
        return [
          s.name,
          fmt.count(data.events),
          `${copy.seconds.toFixed(1)} s (${(copy.bytes / data.events).toFixed(0)} bytes/event)`,
          between('start', 'segment_stored'),
          between('segment_stored', 'checkpoint_stored'),
          between('checkpoint_stored', 'recorded'),
          between('recorded', 'dropped'),
          between('start', 'dropped'),
          // The archive's rate as a share of the raw copy's, which this run's machine sets too.
          fmt.percent(copy.seconds / span('start', 'dropped')),
          (data.segment.bytes / data.events).toFixed(1),
        ];
      });
      const settings = await serverSettings(pool.pool);
      const lines = [
        ...header('archive', database, settings, `${fmt.count(NODES)} nodes reporting every 10 s, 5% of reports changed`),
        '',
        ...fmt.table(
          [
            'segment',
            'events',
            'raw COPY TO file',
            'archive: segment file written, read back',
            'checkpoint derived, written, read back',
            'recorded',
            'detached, dropped',
            'archive in all',
            'archive rate / raw COPY rate',
            'file bytes/event',
          ],
          rows,
        ),
      ];
      process.stdout.write(lines.join('\n') + '\n\n');
      return 0;
    } finally {
      await pool.close();
      await rm(scratch, { recursive: true, force: true });
    }
  });
}

/** Registrations, then rounds of one report per node, until `total` events; answers the last event's time. */
async function writeLog(pool: Database, total: number): Promise<Date> {
  const events: Array<() => StreamAppend> = [];
  const metadata = (node: number, at: number) => ({ actor: `edge-${node}-agent`, role: 'agent' as const, correlation_id: timeOrderedUuid(at), causation_id: null, source: 'agent' as const });
  let lastAt = START;
  for (let k = 0; k < total; k++) {
    const node = k % NODES;
    const round = Math.floor(k / NODES);
    const at = START + round * ROUND_MS + node;
    lastAt = Math.max(lastAt, at);
    events.push(() => {
      if (round === 0) {
        const data = { node_id: `edge-${node}`, boot_id: 'boot-1', agent_version: 'bench', capabilities: [], data_address: null, control_address: null };
        return { streamId: `node:edge-${node}`, expected: 'any', events: [{ type: 'NodeRegistered', schemaVersion: 1, data, metadata: metadata(node, at), recordedAt: new Date(at) }] };
      }
      const report: Report = {
        node_id: `edge-${node}`,
        boot_id: 'boot-1',
        report_seq: round,
        full: true,
        streams: Array.from({ length: STREAMS_PER_NODE }, (_, s) => ({ stream_id: `s-${s}`, generation: 1 + Math.floor(round / 20), state: 'running', last_action_id: null, error: null })),
        configuration: { applied_version: null, recovery_points: [] },
      };
      const changed = round === 1 || (round + node) % 20 === 0;
      const data = reportedData(report, !changed) as unknown as Record<string, unknown>;
      return { streamId: `node:edge-${node}`, expected: 'any', events: [{ type: 'NodeReported', schemaVersion: currentSchemaVersion('NodeReported'), data, metadata: metadata(node, at), recordedAt: new Date(at) }] };
    });
  }
  // Batches in order, two at a time: a node's reports stay in order (a round is 10,000 events, far more than two batches).
  let next = 0;
  const worker = async () => {
    for (let from = next; from < events.length && !stop.requested; from = next) {
      next += BATCH;
      await appendToStreams(pool.db, events.slice(from, from + BATCH).map((make) => make()));
    }
  };
  await Promise.all([worker(), worker()]);
  return new Date(lastAt);
}
