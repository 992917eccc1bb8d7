import { nodeHold, type HoldingTarget, type NodeHold } from '@fleetplane/core';
import { sql, type Compilable, type Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';
import { keyMatch, literals } from '../database/transaction-plan.ts';

export type HoldRow = { rollout_id: string; node_id: string; state: string; recovery_claim: HoldingTarget['claim'] };

/**
 * The rollout targets on these nodes whose claim may have moved them (SPEC I12): the rows nodeHolds reads.
 * One statement, for a command's single round trip (`together`).
 */
export function holdingTargetsQuery(trx: Kysely<Tables>, nodeIds: readonly string[]): Compilable<HoldRow> {
  return trx
    .selectFrom('rollout_targets')
    .select(['rollout_id', 'node_id', 'state', 'recovery_claim'])
    .where('node_id', '=', keyMatch(nodeIds))
    .where('state', '<>', sql.lit('cancelled'))
    .where('recovery_claim', 'in', literals(['post_mutation', 'unknown'] as const));
}

/** Each node's hold, from the rows holdingTargetsQuery read (null where none stands). */
export function nodeHolds(rows: readonly HoldRow[], nodeIds: readonly string[]): Map<string, NodeHold | null> {
  const targets: HoldingTarget[] = rows.map((r) => ({ rolloutId: r.rollout_id, nodeId: r.node_id, state: r.state, claim: r.recovery_claim }));
  return new Map(nodeIds.map((n) => [n, nodeHold(targets, n)]));
}

/** The holds on these nodes, read on their own: for callers outside a command's round trip. */
export async function loadNodeHolds(trx: Kysely<Tables>, nodeIds: readonly string[]): Promise<Map<string, NodeHold | null>> {
  const { rows } = await trx.executeQuery(holdingTargetsQuery(trx, nodeIds).compile());
  return nodeHolds(rows, nodeIds);
}
