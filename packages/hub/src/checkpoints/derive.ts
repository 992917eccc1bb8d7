import { sql, type Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';
import type { Projection } from '../projections/projection.ts';
import { ownedTables, rebuild } from '../projections/rebuild.ts';
import { openCheckpoint, writeCheckpoint, type Checkpoint, type EncodedCheckpoint, type RowBatches } from './checkpoint-file.ts';
import { storedCheckpointBytes } from './stored.ts';

/** The newest checkpoint the database keeps at or before `position` (null: none). */
export async function storedCheckpoint(db: Kysely<Tables>, position: number = Number.MAX_SAFE_INTEGER): Promise<Checkpoint | null> {
  const stored = await storedCheckpointBytes(db, position);
  return stored ? openCheckpoint(stored.content) : null;
}

/**
 * The projections as of every event up to `through`, derived from the log, never copied from the live tables,
 * as a checkpoint file: the newest stored checkpoint at or before it (none: empty tables) with the events after
 * it up to `through` replayed through the projections, in position order, as a rebuild does. Its own
 * REPEATABLE READ transaction, so the checkpoint and the events are read in one snapshot, into temporary tables
 * that go with it (the Hub's role creates no schema); each table is read back by a cursor into the file.
 */
export async function deriveCheckpoint(db: Kysely<Tables>, projections: readonly Projection[], through: number): Promise<EncodedCheckpoint> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const start = await storedCheckpoint(trx, through);
      const { schema } = await rebuild(trx, projections, { scratch: true, until: { position: through }, ...(start ? { start } : {}) });
      const tables = new Map<string, RowBatches>();
      for (const [table, keys] of ownedTables(projections)) tables.set(table, tableRows(trx, schema, table, keys));
      return writeCheckpoint(through, tables);
    });
}

/** Rows fetched a round trip. */
const FETCH_ROWS = 5000;

/** The table's rows in key order, by a cursor of the caller's transaction, opened when the first batch is asked for. */
export async function* tableRows(trx: Kysely<Tables>, schema: string, table: string, keys: readonly string[]): RowBatches {
  const order = sql.join(keys.map((k) => sql.id(k)));
  await sql`DECLARE checkpoint_rows NO SCROLL CURSOR FOR SELECT to_jsonb(t)::text AS row FROM ${sql.id(schema, table)} t ORDER BY ${order}`.execute(trx);
  for (;;) {
    const { rows } = await sql<{ row: string }>`FETCH FORWARD ${sql.lit(FETCH_ROWS)} FROM checkpoint_rows`.execute(trx);
    if (rows.length > 0) yield rows.map((r) => r.row);
    if (rows.length < FETCH_ROWS) break;
  }
  await sql`CLOSE checkpoint_rows`.execute(trx);
}
