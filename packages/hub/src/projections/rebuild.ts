import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';
import { EVENT_COLUMNS, toRecordedEvent } from '../event-store/recorded.ts';
import { inlined } from './inline.ts';
import { projectionQueries, type Projection } from './projection.ts';

export interface RebuildOptions {
  /** The schema to create and fill; by default a fresh `rebuild_<timestamp>_<random>`. */
  schema?: string;
  /** Events read per round trip. */
  pageSize?: number;
}

export interface Rebuilt {
  schema: string;
  /** Events replayed. */
  events: number;
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
 * Derives the projections again from the whole log into a new schema, beside the live tables: each owned
 * table is created like its live one, then every event is applied in position order, the order in which
 * its effects were applied live (commands lock, then append, then project).
 * Runs in one transaction: in the caller's when given one, else in a REPEATABLE READ one of its own, so
 * paging reads one snapshot of the log and no event committed mid-rebuild is half seen.
 */
export async function rebuild(
  db: Kysely<Tables>,
  projections: readonly Projection[],
  options: RebuildOptions = {},
): Promise<Rebuilt> {
  const schema = options.schema ?? `rebuild_${Date.now()}_${randomBytes(4).toString('hex')}`;
  const pageSize = options.pageSize ?? 1000;
  const run = async (trx: Kysely<Tables>): Promise<Rebuilt> => {
    await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(trx);
    for (const table of ownedTables(projections).keys()) {
      await sql`CREATE TABLE ${sql.id(schema, table)} (LIKE ${sql.id('public', table)} INCLUDING ALL)`.execute(trx);
    }
    const target = trx.withSchema(schema);
    let after = 0;
    let events = 0;
    for (;;) {
      const rows = await trx
        .selectFrom('events')
        .select(EVENT_COLUMNS)
        .where('position', '>', after)
        .orderBy('position')
        .limit(pageSize)
        .execute();
      // One round trip per page: the page's statements, in log order (evolve reads nothing back).
      const queries = rows.flatMap((row) => projectionQueries(projections, target, toRecordedEvent(row)));
      if (queries.length > 0) await sql.raw(inlined(queries)).execute(trx);
      events += rows.length;
      if (rows.length < pageSize) return { schema, events };
      after = rows.at(-1)!.position;
    }
  };
  return db.isTransaction ? run(db) : db.transaction().setIsolationLevel('repeatable read').execute(run);
}

/** Drops a rebuilt schema and everything in it. */
export async function dropSchema(db: Kysely<Tables>, schema: string): Promise<void> {
  await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(db);
}
