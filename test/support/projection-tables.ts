import { sql, type Kysely } from 'kysely';
import { allProjections } from '../../packages/hub/src/projections/all.ts';
import { ownedTables } from '../../packages/hub/src/projections/rebuild.ts';

/** Every table the projections own in `schema` (the live ones, or a replay's), rows as to_jsonb gives them, in key order. */
export async function projectionTables(db: Kysely<any>, schema = 'public'): Promise<Record<string, unknown[]>> {
  const all: Record<string, unknown[]> = {};
  for (const [table, keys] of ownedTables(allProjections)) {
    const order = sql.join(keys.map((k) => sql.id(k)));
    all[table] = (await sql<{ row: unknown }>`SELECT to_jsonb(t) AS row FROM ${sql.id(schema, table)} t ORDER BY ${order}`.execute(db)).rows.map((r) => r.row);
  }
  return all;
}
