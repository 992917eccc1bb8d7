import type { Targets } from '@fleetplane/core';
import { sql, type Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';

export interface Resolved {
  /** Matching nodes, pinned: explicit ones in the order given, a selector's in node id order. */
  nodes: string[];
  /** Explicit nodes with no durable record. */
  unknown: string[];
}

/**
 * Resolves targets once, against durable node records (SPEC F4, F5): drained, stale and not re-registered
 * nodes that carry the labels match, because the nodes table keeps every node that registered until it is
 * retired (a retired node matches nothing: an explicit one is unknown).
 */
export async function resolveTargets(trx: Kysely<Tables>, targets: Targets): Promise<Resolved> {
  if (targets.selector) {
    const rows = await trx
      .selectFrom('nodes')
      .select('node_id')
      .where(sql<boolean>`labels @> ${JSON.stringify(targets.selector)}::jsonb`)
      .orderBy('node_id')
      .execute();
    return { nodes: rows.map((r) => r.node_id), unknown: [] };
  }
  const wanted = targets.nodes ?? [];
  const found = new Set(
    (await trx.selectFrom('nodes').select('node_id').where(sql<boolean>`node_id = any(${wanted})`).execute()).map((r) => r.node_id),
  );
  return { nodes: wanted.filter((n) => found.has(n)), unknown: wanted.filter((n) => !found.has(n)) };
}
