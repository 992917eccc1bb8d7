import type { NodeState } from '@fleetplane/core';
import type { Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';

/** Locks a node's row for the rest of the transaction and reads it; null when the node never registered. */
export async function lockNode(trx: Kysely<Tables>, nodeId: string): Promise<NodeState | null> {
  const row = await trx.selectFrom('nodes').selectAll().where('node_id', '=', nodeId).forUpdate().executeTakeFirst();
  if (!row) return null;
  return {
    nodeId: row.node_id,
    labels: row.labels,
    capabilities: row.capabilities,
    dataAddress: row.data_address,
    controlAddress: row.control_address,
    agentVersion: row.agent_version,
    bootId: row.boot_id,
    maintenance: row.maintenance,
    modeOverride: row.mode_override,
  };
}
