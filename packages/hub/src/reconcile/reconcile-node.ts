import {
  decideDispatch,
  ok,
  type DispatchCandidate,
  type DispatchNode,
  type Mode,
  type PlacementPeer,
} from '@fleetplane/core';
import { sql, type ExpressionBuilder, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import type { Command } from '../commands/pipeline.ts';
import type { ConfigVersionsTable, IntentsTable, NodesTable, StreamsTable, Tables } from '../database/tables.ts';
import { newId } from '../ids.ts';
import { lockLiveIntents, modeSetting, operatorModeQuery, toIntent, toStream } from './load.ts';
import { keyed, literals, namedBy, prepared, together } from '../database/transaction-plan.ts';
import { reconcileJob } from './queues.ts';
import { rolloutJob } from '../rollouts/queues.ts';
import { holdingTargetsQuery, nodeHolds, type HoldRow } from './holds.ts';
import { dispatchNode, dispatchNodeColumns, type DispatchNodeRow } from './dispatch-node.ts';

interface Loaded {
  node: DispatchNode;
  candidates: DispatchCandidate[];
  peers: Map<string, PlacementPeer | null>;
  /** Attempts already queued for the node (held while it was drained or observed). */
  waiting: number;
}

/**
 * The reconcile job for one node: level-triggered, safe to run twice. It re-reads the node's live intents
 * and queues an attempt for each that wants one now; a retry not yet due schedules the next pass for then.
 * Passes arriving together load together (loadPasses).
 */
export function reconcileNode(nodeId: string, configuredMode: Mode): Command<Loaded, { queued: number; deliverable: number }> {
  return {
    name: 'ReconcileNode',
    locksNode: nodeId,
    bulk: { kind: 'pass', key: nodeId, loadMany: (trx, nodeIds) => loadPasses(trx, nodeIds, configuredMode) },
    load: async (trx) => (await loadPasses(trx, [nodeId], configuredMode)).get(nodeId)!,
    decide({ node, candidates, peers, waiting }, now) {
      const events = decideDispatch(node, candidates, peers, now);
      const notYet = candidates
        .filter((c) => c.state === 'retrying' && c.nextRetryAt && c.nextRetryAt.getTime() > now.getTime())
        .map((c) => c.nextRetryAt!.getTime());
      const nextRetry = notYet.length ? new Date(Math.min(...notYet)) : null;
      const queued = events.filter((e) => e.type === 'AttemptQueued').length;
      // A configuration intent blocked here (its node ahead of the log) fails its rollout's target: the pass settles it.
      const blocked = new Set(events.flatMap((e) => (e.type === 'IntentBlocked' ? [e.data.intent_id] : [])));
      const rollouts = new Set(candidates.flatMap((c) => (blocked.has(c.intentId) && c.rolloutId !== null ? [c.rolloutId] : [])));
      return ok({
        events,
        jobs: [...(nextRetry ? [reconcileJob(nodeId, nextRetry)] : []), ...[...rollouts].map((r) => rolloutJob(r))],
        // Attempts held while the node was drained, observed or not heard from since a restore become deliverable
        // again when it may take them (the pass its first report since asks for).
        result: { queued, deliverable: node.maintenance === 'active' && node.mode !== 'observe' && node.unheardSince === null ? queued + waiting : 0 },
      });
    },
  };
}

/**
 * The passes of these nodes, in one round trip, BEGIN included: each statement runs after the one before, so
 * the peers are read after the siblings are locked (E1), and the nodes' rows are locked before anything of
 * theirs, as every command locks. Statements after the intents' read what those locked intents name. Each is
 * prepared: a pass's reads cost PostgreSQL more to plan than to run (docs/decisions.md); a pass alone keeps one
 * plan for every node, passes together are planned once for all of them (`keyed`).
 * A node some earlier node of the list shares a split placement with is left out (commands/command.ts,
 * BulkLoad): the earlier pass may block its intents, which its own pass must then see.
 */
async function loadPasses(trx: Kysely<Tables>, nodeIds: readonly string[], configuredMode: Mode): Promise<Map<string, Loaded>> {
  const keys = [...nodeIds];
  const { match: byNode, name } = keyed(keys, 'reconcile', 'passes');
  const [nodeRows, [setting], counts, locked, streamRows, versionRows, active, observed, peerRows, holding] = await together<
    [
      Pick<Selectable<NodesTable>, 'node_id'> & DispatchNodeRow,
      { value: string | null },
      { node_id: string; n: string },
      Selectable<IntentsTable>,
      Selectable<StreamsTable>,
      Selectable<ConfigVersionsTable>,
      { intent_id: string },
      { node_id: string; stream_id: string; last_action_id: string | null },
      PlacementPeerRow,
      HoldRow,
    ]
  >(trx, [
    prepared(
      name('node'),
      trx
        .selectFrom('nodes')
        .select(['node_id', ...dispatchNodeColumns()])
        .where('node_id', '=', byNode)
        .orderBy('node_id')
        .forUpdate(),
    ),
    operatorModeQuery(trx, 'act'),
    prepared(
      name('waiting'),
      trx
        .selectFrom('attempts')
        .select((eb) => ['node_id', eb.fn.countAll<string>().as('n')])
        .where('node_id', '=', byNode)
        .where('state', '=', sql.lit('queued'))
        .groupBy('node_id'),
    ),
    // SPEC E1: the nodes' intents that want an attempt and, for their split placements, those placements'
    // intents on every node, locked in one statement: in the id order every other locker of a placement's
    // intents uses (a peer's registration, a peer's reconcile), so none of them waits on this pass while it
    // waits on them.
    prepared(
      name('intents'),
      lockLiveIntents(trx).where((eb) =>
        eb.or([
          eb.and([eb('node_id', '=', byNode), eb('state', 'in', literals(WANTING))]),
          namedBy('stream_id', wantedIntents(eb, byNode).where(sql<boolean>`(s.placement->>'split')::boolean`).select('own.stream_id')),
        ]),
      ),
    ),
    prepared(name('streams'), trx.selectFrom('streams').selectAll().where('stream_id', 'in', (eb) => wantedIntents(eb, byNode).select('own.stream_id'))),
    prepared(name('versions'), trx.selectFrom('config_versions').selectAll().where('config_version', 'in', (eb) => wantedIntents(eb, byNode).select('own.config_version'))),
    prepared(name('active'), trx.selectFrom('attempts').select('intent_id').where('node_id', '=', byNode).where('state', 'in', literals(['queued', 'dispatched'] as const))),
    prepared(
      name('observed'),
      trx
        .selectFrom('observed_streams')
        .select(['node_id', 'stream_id', 'last_action_id'])
        .where('node_id', '=', byNode)
        .where('stream_id', 'in', (eb) => wantedIntents(eb, byNode).select('own.stream_id')),
    ),
    prepared(
      name('peers'),
      trx
        .selectFrom('nodes')
        .select(['node_id', 'capabilities', 'data_address'])
        .where((eb) =>
          namedBy(
            'node_id',
            wantedIntents(eb, byNode)
              .where(sql<boolean>`(s.placement->>'split')::boolean`)
              .select(sql<string>`jsonb_array_elements_text(s.placement->'nodes')`.as('peer')),
          ),
        ),
    ),
    prepared(name('holds'), holdingTargetsQuery(trx, keys)),
  ]);
  const mode = modeSetting(setting, configuredMode).mode;
  const holds = nodeHolds(holding, keys);
  const streams = new Map(streamRows.map((r) => [r.stream_id, toStream(r)]));
  const versions = new Map(versionRows.map((v) => [v.config_version, v]));
  const activeIntents = new Set(active.map((a) => a.intent_id));
  const peerNodes = new Map(peerRows.map((r) => [r.node_id, { nodeId: r.node_id, capabilities: r.capabilities, dataAddress: r.data_address }]));
  const nodeRowOf = new Map(nodeRows.map((r) => [r.node_id, r]));
  const waitingOf = new Map(counts.map((c) => [c.node_id, Number(c.n)]));
  const wantedOf = groupBy(locked.filter((i) => (WANTING as readonly string[]).includes(i.state)), (i) => i.node_id);
  const observedOf = groupBy(observed, (o) => o.node_id);
  const wanted = (nodeId: string) => wantedOf.get(nodeId) ?? [];
  // A split stream's live intents on other nodes: its siblings, which a placement that cannot run blocks.
  const siblingsOf = (nodeId: string) => {
    const split = new Set(wanted(nodeId).flatMap((i) => (i.stream_id !== null && streams.get(i.stream_id)?.placement.split ? [i.stream_id] : [])));
    return locked.filter((i) => i.node_id !== nodeId && i.stream_id !== null && split.has(i.stream_id));
  };
  const passes = new Map<string, Loaded>();
  const taken: Array<{ nodeId: string; siblings: Selectable<IntentsTable>[] }> = [];
  for (const nodeId of new Set(keys)) {
    const siblings = siblingsOf(nodeId);
    if (taken.some((t) => t.siblings.some((i) => i.node_id === nodeId) || siblings.some((i) => i.node_id === t.nodeId))) continue;
    taken.push({ nodeId, siblings });
    passes.set(nodeId, pass(nodeId, siblings));
  }
  return passes;

  function pass(nodeId: string, siblings: readonly Selectable<IntentsTable>[]): Loaded {
    const nodeRow = nodeRowOf.get(nodeId);
    const node = dispatchNode(nodeId, nodeRow, mode, holds.get(nodeId) ?? null);
    const waiting = waitingOf.get(nodeId) ?? 0;
    const intents = wanted(nodeId);
    const observedActions = new Map((observedOf.get(nodeId) ?? []).map((o) => [o.stream_id, o.last_action_id]));
    const ownStreams = [...new Set(intents.flatMap((i) => (i.stream_id !== null && streams.has(i.stream_id) ? [streams.get(i.stream_id)!] : [])))];
    const peerIds = [...new Set(ownStreams.flatMap((s) => (s.placement.split ? s.placement.nodes : [])))];
    const peers = new Map<string, PlacementPeer | null>(peerIds.map((id) => [id, peerNodes.get(id) ?? null]));
    const candidates: DispatchCandidate[] = [];
    for (const row of intents) {
      const version = row.config_version === null ? undefined : versions.get(row.config_version);
      if (version) {
        // The content travels with an apply: the agent needs nothing else. A restore names its recovery point.
        const spec =
          row.recovery_ref !== null
            ? { recovery_ref: row.recovery_ref }
            : { content: version.content, format: version.format, digest: version.digest };
        candidates.push({ ...toIntent(row), spec, placement: null, hasActiveAttempt: activeIntents.has(row.intent_id), observedActionId: null, siblings: [], newAttemptId: newId('at') });
        continue;
      }
      const stream = row.stream_id === null ? undefined : streams.get(row.stream_id);
      if (!stream) continue;
      candidates.push({
        ...toIntent(row),
        spec: stream.spec,
        placement: stream.placement,
        hasActiveAttempt: activeIntents.has(row.intent_id),
        observedActionId: observedActions.get(row.stream_id!) ?? null,
        siblings: siblings
          .filter((s) => s.stream_id === row.stream_id && s.generation === row.generation)
          .map((s) => ({ intentId: s.intent_id, state: s.state, desiredState: s.desired_state })),
        newAttemptId: newId('at'),
      });
    }
    return { node, candidates, peers, waiting };
  }
}

/** Rows by a key of theirs, in their order. */
function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const group = groups.get(key(row));
    if (group) group.push(row);
    else groups.set(key(row), [row]);
  }
  return groups;
}

/** The nodes' intents that want an attempt (as `own`), with their streams (as `s`, none for a configuration). */
const wantedIntents = (eb: ExpressionBuilder<Tables, any>, byNode: RawBuilder<string>) =>
  eb
    .selectFrom('intents as own')
    .leftJoin('streams as s', 's.stream_id', 'own.stream_id')
    .where('own.node_id', '=', byNode)
    .where('own.state', 'in', literals(WANTING));

/** The states of an intent that wants an attempt. */
const WANTING = ['pending', 'retrying'] as const;

type PlacementPeerRow = Pick<Selectable<NodesTable>, 'node_id' | 'capabilities' | 'data_address'>;
