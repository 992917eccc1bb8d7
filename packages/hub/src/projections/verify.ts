import { sql, type Kysely } from 'kysely';
import { storedCheckpoint } from '../checkpoints/derive.ts';
import type { Tables } from '../database/tables.ts';
import type { Projection } from './projection.ts';
import { ownedTables, rebuild } from './rebuild.ts';

/** A row as JSON (`to_jsonb`): what SQL users see, compared whole. */
export type ProjectionRow = Record<string, unknown>;

/** One row that differs: present on one side only (the other is null), or present on both with other values. */
export interface ProjectionDifference {
  table: string;
  key: Record<string, unknown>;
  live: ProjectionRow | null;
  rebuilt: ProjectionRow | null;
}

/**
 * Rebuilds every projection from the log into temporary tables and reports every row where the live
 * tables differ from it (SPEC J3); an empty list means the live tables are exactly what the log derives.
 * The rebuild starts from the newest stored checkpoint (the tables as of the archived history's end) and
 * replays the events after it, so it reads the hot log only, never the archive.
 * One REPEATABLE READ transaction: the checkpoint, the log and the live tables are read in the same snapshot, so
 * commands committing meanwhile cause no false difference; the temporary tables end with it.
 */
export async function verifyProjections(
  db: Kysely<Tables>,
  projections: readonly Projection[],
): Promise<ProjectionDifference[]> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const start = await storedCheckpoint(trx);
      // In pg_temp: a role that may read the tables (fleetplane_reader) may verify them, without CREATE on the database.
      const { schema } = await rebuild(trx, projections, { scratch: true, ...(start ? { start } : {}) });
      const differences: ProjectionDifference[] = [];
      for (const [table, keys] of ownedTables(projections)) {
        differences.push(...(await diffTable(trx, table, keys, schema)));
      }
      return differences;
    });
}

async function diffTable(
  trx: Kysely<Tables>,
  table: string,
  keys: readonly string[],
  schema: string,
): Promise<ProjectionDifference[]> {
  const matched = sql.join(keys.map((k) => sql`${sql.id('l', k)} = ${sql.id('r', k)}`), sql` AND `);
  const order = sql.join(keys.map((k) => sql`coalesce(${sql.id('l', k)}, ${sql.id('r', k)})`));
  // A side without the row is a NULL whole-row value, so to_jsonb gives NULL there.
  const { rows } = await sql<{ live: ProjectionRow | null; rebuilt: ProjectionRow | null }>`
    SELECT to_jsonb(l) AS live, to_jsonb(r) AS rebuilt
    FROM ${sql.id('public', table)} l FULL JOIN ${sql.id(schema, table)} r ON ${matched}
    WHERE to_jsonb(l) IS DISTINCT FROM to_jsonb(r)
    ORDER BY ${order}`.execute(trx);
  return rows.map(({ live, rebuilt }) => {
    const row = (live ?? rebuilt)!;
    return { table, key: Object.fromEntries(keys.map((k) => [k, row[k]])), live, rebuilt };
  });
}
