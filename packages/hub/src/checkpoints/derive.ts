import { sql, type Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';
import type { Projection } from '../projections/projection.ts';
import { ownedTables, rebuild } from '../projections/rebuild.ts';
import { decodeCheckpoint, type Checkpoint, type CheckpointRow } from './checkpoint-file.ts';

/** The newest checkpoint the database keeps at or before `position` (null: none). */
export async function storedCheckpoint(db: Kysely<Tables>, position: number = Number.MAX_SAFE_INTEGER): Promise<Checkpoint | null> {
  const row = await db
    .selectFrom('projection_checkpoints')
    .select('content')
    .where('position', '<=', position)
    .orderBy('position', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? decodeCheckpoint(row.content) : null;
}

/**
 * The projections as of every event up to `through`, derived from the log, never copied from the live tables:
 * the newest stored checkpoint at or before it (none: empty tables) with the events after it up to `through`
 * replayed through the projections, in position order, as a rebuild does. Its own REPEATABLE READ transaction,
 * so the checkpoint and the events are read in one snapshot, into temporary tables that go with it (the Hub's
 * role creates no schema).
 */
export async function deriveCheckpoint(db: Kysely<Tables>, projections: readonly Projection[], through: number): Promise<Checkpoint> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const start = await storedCheckpoint(trx, through);
      const { schema } = await rebuild(trx, projections, { scratch: true, until: { position: through }, ...(start ? { start } : {}) });
      const tables = new Map<string, CheckpointRow[]>();
      for (const [table, keys] of ownedTables(projections)) {
        const order = sql.join(keys.map((k) => sql.id(k)));
        const { rows } = await sql<{ row: CheckpointRow }>`SELECT to_jsonb(t) AS row FROM ${sql.id(schema, table)} t ORDER BY ${order}`.execute(trx);
        tables.set(table, rows.map((r) => r.row));
      }
      return { position: through, tables };
    });
}
