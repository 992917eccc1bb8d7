import { randomBytes } from 'node:crypto';
import type { RecordedFleetEvent } from '@fleetplane/core';
import { sql, type Kysely } from 'kysely';
import type { Checkpoint } from '../checkpoints/checkpoint-file.ts';
import type { Tables } from '../database/tables.ts';
import { EVENT_COLUMNS, toRecordedEvent } from '../event-store/recorded.ts';
import type { Projection } from './projection.ts';
import { runsApplier } from './runs.ts';

export interface RebuildOptions {
  /** The schema to create and fill; by default a fresh `rebuild_<timestamp>_<random>`. */
  schema?: string;
  /**
   * Fill temporary tables (`pg_temp`, dropped when the caller's transaction ends) instead of a new schema:
   * for a caller whose role may not create schemas (the Hub's). Needs the caller's transaction.
   */
  scratch?: boolean;
  /** Events read per round trip. */
  pageSize?: number;
  /** As-of reconstruction: replay only the log up to this point, and so derive the tables as they stood then. */
  until?: Until;
  /** Start from these tables, as of their position, and replay only the events after it (default: empty tables, the whole log). */
  start?: Checkpoint;
  /**
   * The events to replay, in pages in position order, instead of the log's: an archive's (archive/replay.ts),
   * already bounded by the caller, so `until` and `pageSize` do not apply to them.
   */
  events?: AsyncIterable<RecordedFleetEvent[]>;
}

/**
 * Where an as-of replay stops: at a position (that event included), or at a time: every event before the
 * first one recorded after it. A time is turned into a position because `recorded_at` (the Hub's clock when
 * each command ran) is not ordered by position: replaying every event recorded before the time could apply an
 * event without an earlier-positioned one whose effects it was decided on.
 */
export type Until = { position: number } | { time: Date };

export interface Rebuilt {
  schema: string;
  /** Events replayed. */
  events: number;
  /** The position of the last event replayed (null when none was). */
  through: number | null;
}

/** Every table the projections own, once, with its key columns. */
export function ownedTables(projections: readonly Projection[]): Map<string, readonly string[]> {
  const tables = new Map<string, readonly string[]>();
  for (const p of projections) {
    for (const [table, keys] of Object.entries(p.tables)) if (keys) tables.set(table, keys);
  }
  return tables;
}

/**
 * Derives the projections again from the log (all of it, or up to `until`) into a new schema, beside the live
 * tables: each owned table is created like its live one, then every event is applied in position order, the
 * order in which its effects were applied live (commands lock, then append, then project).
 * Runs in one transaction: in the caller's when given one, else in a REPEATABLE READ one of its own, so
 * paging reads one snapshot of the log and no event committed mid-rebuild is half seen.
 */
export async function rebuild(
  db: Kysely<Tables>,
  projections: readonly Projection[],
  options: RebuildOptions = {},
): Promise<Rebuilt> {
  if (options.scratch && !db.isTransaction) throw new Error('a scratch rebuild runs in the caller\'s transaction');
  const schema = options.scratch ? 'pg_temp' : (options.schema ?? `rebuild_${Date.now()}_${randomBytes(4).toString('hex')}`);
  const pageSize = options.pageSize ?? 1000;
  const run = async (trx: Kysely<Tables>): Promise<Rebuilt> => {
    if (!options.scratch) await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(trx);
    const onCommit = options.scratch ? sql`ON COMMIT DROP` : sql``;
    for (const table of ownedTables(projections).keys()) {
      await sql`CREATE TABLE ${sql.id(schema, table)} (LIKE ${sql.id('public', table)} INCLUDING ALL) ${onCommit}`.execute(trx);
    }
    // An auditor reads a replayed schema as the live tables, as fleetplane_reader (db/README.md, "As of a point in history").
    if (!options.scratch) {
      await sql`GRANT USAGE ON SCHEMA ${sql.id(schema)} TO fleetplane_reader`.execute(trx);
      await sql`GRANT SELECT ON ALL TABLES IN SCHEMA ${sql.id(schema)} TO fleetplane_reader`.execute(trx);
    }
    if (options.start) await loadTables(trx, schema, options.start);
    const target = trx.withSchema(schema);
    const last = options.until ? await lastPosition(trx, options.until) : null;
    const pages = options.events ?? logPages(trx, options.start?.position ?? 0, last, pageSize);
    let events = 0;
    let through: number | null = null;
    // One round trip per page at most: the page's statements, in log order, a run of reports carried on.
    const applier = runsApplier(projections, target);
    for await (const page of pages) {
      await applier.add(page);
      events += page.length;
      through = page.at(-1)?.position ?? through;
    }
    await applier.finish();
    for (const p of projections) for (const q of p.recount?.(target) ?? []) await q.execute();
    return { schema, events, through };
  };
  return db.isTransaction ? run(db) : db.transaction().setIsolationLevel('repeatable read').execute(run);
}

/** The log's events after `after` up to `last` (null: to its end), in pages of `pageSize`, in position order. */
async function* logPages(trx: Kysely<Tables>, after: number, last: number | null, pageSize: number): AsyncGenerator<RecordedFleetEvent[]> {
  for (;;) {
    let page = trx.selectFrom('events').select(EVENT_COLUMNS).where('position', '>', after);
    if (last !== null) page = page.where('position', '<=', last);
    const rows = await page.orderBy('position').limit(pageSize).execute();
    if (rows.length > 0) yield rows.map(toRecordedEvent);
    if (rows.length < pageSize) return;
    after = rows.at(-1)!.position;
  }
}

/** The last position an as-of replay includes; null when the whole log is. */
export async function lastPosition(trx: Kysely<Tables>, until: Until): Promise<number | null> {
  if ('position' in until) return until.position;
  const first = await trx.selectFrom('events').select((eb) => eb.fn.min('position').as('position')).where('recorded_at', '>', until.time).executeTakeFirst();
  return first?.position == null ? null : Number(first.position) - 1;
}

/** Rows loaded per statement: a checkpoint's table may hold millions. */
const LOAD_BATCH = 5000;

/**
 * Fills the schema's tables with a checkpoint's rows, as `to_jsonb` gave them, a batch a statement. Only the
 * columns the rows carry are written: a checkpoint of an earlier release lacks the columns added since, which
 * take their defaults (a summary is then counted again at the rebuild's end, Projection.recount).
 */
async function loadTables(trx: Kysely<Tables>, schema: string, checkpoint: Checkpoint): Promise<void> {
  for (const { name } of checkpoint.tables) {
    for await (const rows of checkpoint.rows(name, LOAD_BATCH)) {
      if (rows.length === 0) continue;
      // Every row of a table is to_jsonb of one row type: the first names the columns of all.
      const columns = sql.join(Object.keys(JSON.parse(rows[0]!) as object).map((c) => sql.id(c)));
      await sql`INSERT INTO ${sql.id(schema, name)} (${columns}) SELECT ${columns} FROM jsonb_populate_recordset(NULL::${sql.id(schema, name)}, ${`[${rows.join(',')}]`}::jsonb)`.execute(trx);
    }
  }
}

/** Drops a rebuilt schema and everything in it. */
export async function dropSchema(db: Kysely<Tables>, schema: string): Promise<void> {
  await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(db);
}
