import { blockPlacement, checkPlacement, decideRegister, nodeStream, ok, type NodeState, type Registration } from '@fleetplane/core';
import { sql, type Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';
import type { Command } from './pipeline.ts';
import { lockLiveIntents } from '../reconcile/load.ts';
import { reconcileJob } from '../reconcile/queues.ts';
import { lockNode } from './load-node.ts';

interface Loaded {
  node: NodeState | null;
  /** Other nodes of split placements that include this node, with intents of the current generation waiting to be dispatched. */
  splitPeers: string[];
  /** When the node registers without what a split needs: its placements' intents that still want to run. */
  rejectedIntents: string[];
}

export function registerNode(registration: Registration): Command<Loaded, null> {
  // This node alone, as a split placement: rejected when it lacks network_shuffle or a data address.
  const asPeer = { nodeId: registration.node_id, capabilities: registration.capabilities, dataAddress: registration.data_address };
  const rejection = checkPlacement({ split: true, nodes: [registration.node_id] }, new Map([[registration.node_id, asPeer]]));
  return {
    name: 'RegisterNode',
    load: async (trx) => {
      const node = await lockNode(trx, registration.node_id);
      await lockSplitIntents(trx, registration.node_id);
      const rejectedIntents = !rejection.ok && 'code' in rejection ? await lockRunningSplitIntents(trx, registration.node_id) : [];
      return { node, splitPeers: await splitPeers(trx, registration.node_id), rejectedIntents };
    },
    decide: ({ node, splitPeers, rejectedIntents }) => {
      // SPEC E1: a split whose attempts are queued is rejected by this registration, on every node, before any
      // of them is handed out; a node's later dispatch would otherwise be its only check.
      const blocked = !rejection.ok && 'code' in rejection ? blockPlacement(rejectedIntents, rejection) : [];
      const events = [...decideRegister(node, registration), ...blocked];
      return ok({
        events,
        // A first registration must create the stream; a concurrent one re-runs and finds the node.
        expectedVersions: node === null ? { [nodeStream(registration.node_id)]: 0 } : {},
        // SPEC C7, D2: registration wakes the node's pending intents (ambiguous ones wait for a report).
        // SPEC E1: a split placement waits for every node to register; a registration that changed the node
        // (first, new boot, capabilities, data address) wakes the placement's other nodes, which waited for it.
        jobs: [reconcileJob(registration.node_id), ...(events.length > 0 ? splitPeers.map((n) => reconcileJob(n)) : [])],
        result: null,
      });
    },
  };
}

/**
 * SPEC E1: the node's live intents of split placements, locked. A peer's reconcile locks them before it
 * reads this node's capabilities and data address, so it sees a registration that changes them whole, after
 * its commit, or decides before it: never a dispatch checked against what this registration replaces.
 */
async function lockSplitIntents(trx: Kysely<Tables>, nodeId: string): Promise<void> {
  await lockLiveIntents(trx)
    .where('node_id', '=', nodeId)
    .where('stream_id', 'in', trx.selectFrom('streams').select('stream_id').where(sql<boolean>`(placement->>'split')::boolean`))
    .execute();
}

/**
 * The intents, on every node, of the current generation of each split placement that includes this node and
 * wants the stream running, not yet blocked: locked, in id order.
 */
async function lockRunningSplitIntents(trx: Kysely<Tables>, nodeId: string): Promise<string[]> {
  const rows = await trx
    .selectFrom('intents as i')
    .innerJoin('streams as s', (join) => join.onRef('s.stream_id', '=', 'i.stream_id').onRef('s.generation', '=', 'i.generation'))
    .select('i.intent_id')
    .where('i.state', 'in', ['pending', 'retrying', 'converging', 'ambiguous'])
    .where('i.desired_state', '=', 'running')
    .where(sql<boolean>`(s.placement->>'split')::boolean AND s.placement->'nodes' @> jsonb_build_array(${nodeId}::text)`)
    .orderBy('i.intent_id')
    .forUpdate('i')
    .execute();
  return rows.map((r) => r.intent_id);
}

async function splitPeers(trx: Kysely<Tables>, nodeId: string): Promise<string[]> {
  const rows = await trx
    .selectFrom('intents as i')
    .innerJoin('streams as s', (join) => join.onRef('s.stream_id', '=', 'i.stream_id').onRef('s.generation', '=', 'i.generation'))
    .select('i.node_id')
    .distinct()
    .where('i.state', 'in', ['pending', 'retrying'])
    .where('i.node_id', '<>', nodeId)
    .where(sql<boolean>`(s.placement->>'split')::boolean AND s.placement->'nodes' @> jsonb_build_array(${nodeId}::text)`)
    .execute();
  return rows.map((r) => r.node_id);
}
