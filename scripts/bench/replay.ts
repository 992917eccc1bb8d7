import { randomUUID } from 'node:crypto';
import { currentSchemaVersion, reportedData, type Report } from '@fleetplane/core';
import { sql } from 'kysely';
import { allProjections } from '../../packages/hub/src/projections/all.ts';
import { dropSchema, rebuild } from '../../packages/hub/src/projections/rebuild.ts';
import { inlined } from '../../packages/hub/src/database/inline.ts';
import { keepSegmentsAheadEvery, SEGMENT_BOUNDS } from '../../packages/hub/src/event-store/segments.ts';
import type { Database } from '../../packages/hub/src/database/connect.ts';
import { onOwnDatabase } from './interruptible.ts';
import { sizeOption } from './options.ts';
import * as fmt from './tools/format.ts';
import { goalTable } from './tools/goals.ts';
import { log } from './tools/progress.ts';
import { header, serverSettings } from './tools/server.ts';

/**
 * `npm run bench -- replay`: rebuild every projection from a log of 1,000,000 events (REPLAY_EVENTS to
 * change it), and in the same run the raw rate of scanning the same rows in the same pages and inserting
 * each into a plain table with a statement of its own, sent in the same batches the rebuild sends: the
 * machine's cost of "read a row, write a row", against which the projections' work is measured.
 *
 * The log is what a fleet writes most: 10,000 nodes registering, then reporting; one report in ten
 * changes what the node runs (stored with its streams), the rest repeat (their sequence only).
 */

const NODES = 10_000;
const STREAMS_PER_NODE = 3;
const GOAL_EVENTS_PER_SECOND = 20_000;
const GOAL_RATIO = 0.5;
const PAGE = 1000;


export async function run(args: string[]): Promise<number> {
  if (args.length > 0) {
    log(`replay takes no arguments (got: ${args.join(' ')}); set REPLAY_EVENTS to change the log size`);
    return 2;
  }
  const events = sizeOption('REPLAY_EVENTS', 1_000_000, NODES, log);
  if (events === null) return 2;
  return onOwnDatabase(log, async (database) => {
    const pool = database.connect(4);
    try {
      const t0 = performance.now();
      await writeLog(pool, events);
      log(`log: ${fmt.count(events)} events written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      await sql`VACUUM ANALYZE events`.execute(pool.db);

      const r0 = performance.now();
      const rebuilt = await rebuild(pool.db, allProjections, { schema: 'bench_replay', pageSize: PAGE });
      const replaySeconds = (performance.now() - r0) / 1000;
      await dropSchema(pool.db, 'bench_replay');

      const raw = await rawScanAndInsert(pool);
      const replayRate = rebuilt.events / replaySeconds;
      process.stdout.write(
        [
          ...header('replay', database, await serverSettings(pool.pool), `${fmt.count(rebuilt.events)} events, pages of ${PAGE}`),
          '',
          ...fmt.table(
            ['measurement', 'events', 'seconds', 'events/s', 'goal'],
            [
              [
                'rebuild every projection (replay)',
                fmt.count(rebuilt.events),
                replaySeconds.toFixed(1),
                fmt.count(replayRate),
                `≥ ${fmt.count(GOAL_EVENTS_PER_SECOND)}/s: ${fmt.verdict(replayRate >= GOAL_EVENTS_PER_SECOND)}`,
              ],
              ['raw: scan the same pages, one INSERT per row, same batches', fmt.count(raw.rows), raw.seconds.toFixed(1), fmt.count(raw.perSecond), '–'],
            ],
          ),
          '',
          ...goalTable(
            [{ goal: 'rebuild every projection', measured: `${fmt.count(replayRate)} events/s`, rate: replayRate, raw: raw.perSecond, ratio: GOAL_RATIO }],
            'raw scan + INSERT rows/s, same run',
          ),
          '',
        ].join('\n'),
      );
      return 0;
    } finally {
      await pool.close();
    }
  });
}

/**
 * Appends the log through the store's own append function, node by node, four nodes at a time, its segments
 * kept ahead meanwhile as a Hub keeps them.
 */
async function writeLog(pool: Database, events: number): Promise<void> {
  const upkeep = keepSegmentsAheadEvery(pool.db, { ...SEGMENT_BOUNDS, durationMs: 86_400_000 }, { everyMs: 500, now: () => new Date(), onError: (e) => log(`adding log segments failed: ${String(e)}`) });
  try {
    await appendNodes(pool, events);
  } finally {
    upkeep.stop();
  }
}

async function appendNodes(pool: Database, events: number): Promise<void> {
  const perNode = Math.floor(events / NODES);
  const extra = events - perNode * NODES;
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < NODES; i = next++) {
      const count = perNode + (i < extra ? 1 : 0);
      await sql`SELECT count(*) FROM append_events(${`node:edge-${i}`}, 0::bigint, ${JSON.stringify(nodeEvents(i, count))}::jsonb)`.execute(pool.db);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
}

function nodeEvents(i: number, count: number) {
  const node = `edge-${i}`;
  const metadata = (source: string) => ({ actor: `${node}-agent`, role: 'agent', correlation_id: randomUUID(), causation_id: null, source });
  const at = (k: number) => new Date(Date.UTC(2026, 10, 1) + k * 10_000).toISOString();
  const events: object[] = [
    {
      event_id: randomUUID(),
      type: 'NodeRegistered',
      schema_version: 1,
      data: { node_id: node, boot_id: 'boot-1', agent_version: 'bench', capabilities: [], data_address: null, control_address: null },
      metadata: metadata('agent'),
      recorded_at: at(0),
    },
  ];
  for (let seq = 1; seq < count; seq++) {
    const changed = seq % 10 === 1;
    const report: Report = {
      node_id: node,
      boot_id: 'boot-1',
      report_seq: seq,
      full: true,
      streams: Array.from({ length: STREAMS_PER_NODE }, (_, k) => ({ stream_id: `s-${k}`, generation: Math.ceil(seq / 10), state: 'running', last_action_id: null, error: null })),
      configuration: { applied_version: null, recovery_points: [] },
    };
    events.push({
      event_id: randomUUID(),
      type: 'NodeReported',
      schema_version: currentSchemaVersion('NodeReported'),
      data: reportedData(report, !changed),
      metadata: metadata('agent'),
      recorded_at: at(seq),
    });
  }
  return events;
}

/** The baseline: the same scan, and one INSERT statement per row into a plain table, in the rebuild's batches. */
async function rawScanAndInsert(pool: Database): Promise<{ rows: number; seconds: number; perSecond: number }> {
  await sql`CREATE TABLE bench_raw (position bigint, stream_id text, type text, data jsonb, recorded_at timestamptz)`.execute(pool.db);
  const started = performance.now();
  let rows = 0;
  await pool.db.transaction().execute(async (trx) => {
    let after = 0;
    for (;;) {
      const page = await trx.selectFrom('events').select(['position', 'stream_id', 'type', 'data', 'recorded_at']).where('position', '>', after).orderBy('position').limit(PAGE).execute();
      if (page.length === 0) break;
      const statements = page.map((r) => trx.insertInto('bench_raw' as never).values({ ...r, data: JSON.stringify(r.data) } as never));
      await sql.raw(inlined(statements.map((s) => s.compile()))).execute(trx);
      rows += page.length;
      after = page.at(-1)!.position;
    }
  });
  const seconds = (performance.now() - started) / 1000;
  await sql`DROP TABLE bench_raw`.execute(pool.db);
  return { rows, seconds, perSecond: rows / seconds };
}
