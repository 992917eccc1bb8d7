import type { Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';

/** Which of `nodeIds` were retired, in id order: a retired id never registers again (docs/decisions.md). */
export async function retiredAmong(db: Kysely<Tables>, nodeIds: readonly string[]): Promise<string[]> {
  if (nodeIds.length === 0) return [];
  const rows = await db.selectFrom('retired_nodes').select('node_id').where('node_id', 'in', nodeIds).orderBy('node_id').execute();
  return rows.map((r) => r.node_id);
}
