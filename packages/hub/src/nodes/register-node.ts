import { blockPlacement, checkPlacement, dataAddressMoved, decideRegister, nodeStream, ok, retiredRefusal, type NodeState, type Registration } from '@fleetplane/core';
import { sql, type Kysely, type Selectable } from 'kysely';
import { prepared, together } from '../database/transaction-plan.ts';
import type { IntentsTable, NodesTable, Tables } from '../database/tables.ts';
import { lockLiveIntents, operatorModeValue } from '../reconcile/load.ts';
import { barrierPassJob, reconcileJob, splitPeersJob } from '../reconcile/queues.ts';
import { lockNodeQuery, toNodeState } from './load-node.ts';
import type { Command, Committed } from '../commands/pipeline.ts';

interface Loaded {
  node: NodeState | null;
  /** Other nodes of split placements that include this node, with intents of the current generation waiting to be dispatched. */
  splitPeers: string[];
  /** When the node registers without what a split needs: its placements' intents that still want to run. */
  rejectedIntents: string[];
  /** Set when the node was retired: its agent registers no more (issue 22). */
  retiredAt: Date | null;
  /** Split placements that include this node and are to run: its peers hold its data address (E4). */
  runningSplits: string[];
}

export function registerNode(registration: Registration): Command<Loaded, null> {
  // This node alone, as a split placement: rejected when it lacks network_shuffle or a data address.
  const asPeer = { nodeId: registration.node_id, capabilities: registration.capabilities, dataAddress: registration.data_address };
  const rejection = checkPlacement({ split: true, nodes: [registration.node_id] }, new Map([[registration.node_id, asPeer]]));
  return {
    name: 'RegisterNode',
    locksNode: registration.node_id,
    load: (trx) => loadRegistering(trx, registration.node_id, !rejection.ok && 'code' in rejection),
    // The agent is answered with its node's view: the row as registered, and the mode it runs under.
    readBack: (trx) =>
      prepared('registered_node', trx.selectFrom('nodes').selectAll().select(operatorModeValue.as('mode_setting')).where('node_id', '=', registration.node_id)),
    decide: ({ node, splitPeers, rejectedIntents, retiredAt, runningSplits }) => {
      if (retiredAt) return retiredRefusal(registration.node_id, retiredAt);
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
        // SPEC E4: a moved data address is checked against what each running split sent its nodes.
        // A first registration also asks for a pass that must see it (barrierPassJob): a pass of the node queued
        // before (a desired write placed on it before it registered) takes the place of the one asked for here
        // and may start before this commits; with no row of the node to lock yet, it reads the node as
        // unregistered. The barrier pass, or the one queued before it on its queue, runs after this commit.
        jobs: [
          reconcileJob(registration.node_id),
          ...(node === null ? [barrierPassJob(registration.node_id)] : []),
          ...(events.length > 0 ? splitPeers.map((n) => reconcileJob(n)) : []),
          ...(dataAddressMoved(node, registration) ? runningSplits.map((s) => splitPeersJob(s)) : []),
        ],
        result: null,
      });
    },
  };
}

/** The node as its registration left it, and the mode an operator set, read in the commit's round trip (Command.readBack). */
export function registeredNode(committed: Committed<unknown>): { row: Selectable<NodesTable>; setting: { value: string | null } } {
  // The rows of registerNode's own readBack: the node it registered, so exactly one.
  const { mode_setting, ...row } = committed.readBack![0] as Selectable<NodesTable> & { mode_setting: string | null };
  return { row, setting: { value: mode_setting } };
}

/** The states of an intent a split's rejection blocks: every live one not yet blocked. */
const UNBLOCKED = new Set(['pending', 'retrying', 'converging', 'ambiguous']);

/**
 * One round trip, BEGIN included: the node's row, locked; then, SPEC E1, in one statement and in id order as
 * a peer's reconcile locks them, the node's live intents of split placements and, when `rejected`, the
 * intents on every node of each split placement that includes this node; then what they name. A peer's
 * reconcile locks the node's intents before it reads the node's capabilities and data address, so it sees a
 * registration that changes them whole, after its commit, or decides before it: never a dispatch checked
 * against what this registration replaces. The intents the registration blocks are those of a placement's
 * current generation that want the stream running and are not yet blocked. Last, the split placements with
 * the node that are to run, whose shares a moved data address may have made stale (E4).
 */
async function loadRegistering(trx: Kysely<Tables>, nodeId: string, rejected: boolean): Promise<Loaded> {
  const placements = trx
    .selectFrom('streams')
    .where(sql<boolean>`(placement->>'split')::boolean AND placement->'nodes' @> jsonb_build_array(${nodeId}::text)`);
  const [[row], [retired], locked, current, peers, running] = await together<
    [Selectable<NodesTable>, { retired_at: Date }, Selectable<IntentsTable>, { stream_id: string; generation: number }, { node_id: string }, { stream_id: string }]
  >(trx, [
    lockNodeQuery(trx, nodeId),
    // After the node's lock: a retirement that held it has committed, and is seen.
    trx.selectFrom('retired_nodes').select('retired_at').where('node_id', '=', nodeId),
    lockLiveIntents(trx).where((eb) => {
      const own = eb.and([
        eb('node_id', '=', nodeId),
        eb.exists(eb.selectFrom('streams as s').whereRef('s.stream_id', '=', 'intents.stream_id').where(sql<boolean>`(s.placement->>'split')::boolean`)),
      ]);
      // ANY(ARRAY(…)), not IN: inside an OR, IN would filter every live intent instead of using an index.
      return rejected ? eb.or([own, eb('stream_id', '=', sql<string>`ANY(ARRAY(${placements.select('stream_id')}))`)]) : own;
    }),
    // Read only when rejected: a constant false filter, which PostgreSQL answers without a scan.
    placements.select(['stream_id', 'generation']).where(sql<boolean>`${rejected}`),
    splitPeersQuery(trx, nodeId),
    placements.select('stream_id').where('desired_state', '=', 'running').where('deletion_requested_at', 'is', null),
  ]);
  const generations = new Map(current.map((p) => [p.stream_id, p.generation]));
  const rejectedIntents = locked
    .filter((r) => r.stream_id !== null && generations.get(r.stream_id) === r.generation && r.desired_state === 'running' && UNBLOCKED.has(r.state))
    .map((r) => r.intent_id);
  return {
    node: toNodeState(row),
    splitPeers: peers.map((p) => p.node_id),
    rejectedIntents,
    retiredAt: retired?.retired_at ?? null,
    runningSplits: running.map((r) => r.stream_id),
  };
}

/** Other nodes of split placements that include this node, with intents of the current generation waiting to be dispatched. */
const splitPeersQuery = (trx: Kysely<Tables>, nodeId: string) =>
  trx
    .selectFrom('intents as i')
    .innerJoin('streams as s', (join) => join.onRef('s.stream_id', '=', 'i.stream_id').onRef('s.generation', '=', 'i.generation'))
    .select('i.node_id')
    .distinct()
    .where('i.state', 'in', ['pending', 'retrying'])
    .where('i.node_id', '<>', nodeId)
    .where(sql<boolean>`(s.placement->>'split')::boolean AND s.placement->'nodes' @> jsonb_build_array(${nodeId}::text)`);
