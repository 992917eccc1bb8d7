import type { NodeState } from '@fleetplane/core';
import type { Kysely, Selectable } from 'kysely';
import type { NodesTable, Tables } from '../database/tables.ts';

/** The statement locking a node's row for the rest of the transaction and reading it. */
export const lockNodeQuery = (trx: Kysely<Tables>, nodeId: string) => trx.selectFrom('nodes').selectAll().where('node_id', '=', nodeId).forUpdate();

/** The node a row read by lockNodeQuery holds; null when the node never registered or was retired. */
export function toNodeState(row: Selectable<NodesTable> | undefined): NodeState | null {
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

/** Locks a node's row for the rest of the transaction and reads it; null when the node never registered or was retired. */
export async function lockNode(trx: Kysely<Tables>, nodeId: string): Promise<NodeState | null> {
  return toNodeState(await lockNodeQuery(trx, nodeId).executeTakeFirst());
}
