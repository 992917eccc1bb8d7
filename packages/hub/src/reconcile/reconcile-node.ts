import {
  decideDispatch,
  effectiveMode,
  ok,
  type DispatchCandidate,
  type DispatchNode,
  type Mode,
  type PlacementPeer,
} from '@fleetplane/core';
import { sql, type ExpressionBuilder, type Selectable } from 'kysely';
import type { Command } from '../commands/pipeline.ts';
import type { ConfigVersionsTable, IntentsTable, NodesTable, StreamsTable, Tables } from '../database/tables.ts';
import { newId } from '../ids.ts';
import { lockLiveIntents, modeSetting, operatorModeQuery, toIntent, toStream } from './load.ts';
import { literals, prepared, together } from '../database/transaction-plan.ts';
import { reconcileJob } from './queues.ts';
import { holdingTargetsQuery, nodeHolds, type HoldRow } from './holds.ts';

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
 */
export function reconcileNode(nodeId: string, configuredMode: Mode): Command<Loaded, { queued: number; deliverable: number }> {
  return {
    name: 'ReconcileNode',
    locksNode: nodeId,
    async load(trx) {
      // One round trip, BEGIN included: each statement runs after the one before, so the peers are read after
      // the siblings are locked (E1), and the node's row is locked before anything of the node, as every
      // command locks. Statements after the intents' read what those locked intents name. Each is prepared: a
      // pass's reads cost PostgreSQL more to plan than to run (docs/decisions.md).
      const [[nodeRow], [setting], [count], locked, streamRows, versionRows, active, observed, peerRows, holding] = await together<
        [
          Selectable<NodesTable>,
          { value: string | null },
          { n: string },
          Selectable<IntentsTable>,
          Selectable<StreamsTable>,
          Selectable<ConfigVersionsTable>,
          { intent_id: string },
          { stream_id: string; last_action_id: string | null },
          PlacementPeerRow,
          HoldRow,
        ]
      >(trx, [
        prepared('reconcile_node', trx.selectFrom('nodes').selectAll().where('node_id', '=', nodeId).forUpdate()),
        prepared('reconcile_mode', operatorModeQuery(trx, 'act')),
        prepared('reconcile_waiting', trx.selectFrom('attempts').select((eb) => eb.fn.countAll<string>().as('n')).where('node_id', '=', nodeId).where('state', '=', sql.lit('queued'))),
        // SPEC E1: the node's intents that want an attempt and, for its split placements, their intents on the
        // other nodes, locked in one statement: in the id order every other locker of a placement's intents uses
        // (a peer's registration, a peer's reconcile), so none of them waits on this pass while it waits on them.
        prepared(
          'reconcile_intents',
          lockLiveIntents(trx).where((eb) =>
            eb.or([
              eb.and([eb('node_id', '=', nodeId), eb('state', 'in', literals(WANTING))]),
              // ANY(ARRAY(…)), not IN: inside an OR, IN would filter every live intent instead of using an index.
              eb.and([eb('node_id', '<>', nodeId), eb('stream_id', '=', sql<string>`ANY(ARRAY(${wantedIntents(eb, nodeId).where(sql<boolean>`(s.placement->>'split')::boolean`).select('own.stream_id')}))`)]),
            ]),
          ),
        ),
        prepared('reconcile_streams', trx.selectFrom('streams').selectAll().where('stream_id', 'in', (eb) => wantedIntents(eb, nodeId).select('own.stream_id'))),
        prepared('reconcile_versions', trx.selectFrom('config_versions').selectAll().where('config_version', 'in', (eb) => wantedIntents(eb, nodeId).select('own.config_version'))),
        prepared('reconcile_active', trx.selectFrom('attempts').select('intent_id').where('node_id', '=', nodeId).where('state', 'in', literals(['queued', 'dispatched'] as const))),
        prepared(
          'reconcile_observed',
          trx
            .selectFrom('observed_streams')
            .select(['stream_id', 'last_action_id'])
            .where('node_id', '=', nodeId)
            .where('stream_id', 'in', (eb) => wantedIntents(eb, nodeId).select('own.stream_id')),
        ),
        prepared(
          'reconcile_peers',
          trx
            .selectFrom('nodes')
            .select(['node_id', 'capabilities', 'data_address'])
            .where('node_id', 'in', (eb) =>
              wantedIntents(eb, nodeId)
                .where(sql<boolean>`(s.placement->>'split')::boolean`)
                .select(sql<string>`jsonb_array_elements_text(s.placement->'nodes')`.as('peer')),
            ),
        ),
        prepared('reconcile_holds', holdingTargetsQuery(trx, [nodeId])),
      ]);
      const mode = effectiveMode(modeSetting(setting, configuredMode).mode, nodeRow?.mode_override ?? null);
      const hold = nodeHolds(holding, [nodeId]).get(nodeId) ?? null;
      const node: DispatchNode = { nodeId, registered: !!nodeRow, maintenance: nodeRow?.maintenance ?? 'active', mode, hold };
      const waiting = Number(count!.n);
      const intents = locked.filter((i) => i.node_id === nodeId);
      const siblings = locked.filter((i) => i.node_id !== nodeId);
      const streams = new Map(streamRows.map((r) => [r.stream_id, toStream(r)]));
      const versions = new Map(versionRows.map((v) => [v.config_version, v]));
      const activeIntents = new Set(active.map((a) => a.intent_id));
      const observedActions = new Map(observed.map((o) => [o.stream_id, o.last_action_id]));
      const peerIds = [...new Set([...streams.values()].flatMap((s) => (s.placement.split ? s.placement.nodes : [])))];
      const peers = new Map<string, PlacementPeer | null>(peerIds.map((id) => [id, null]));
      for (const r of peerRows) peers.set(r.node_id, { nodeId: r.node_id, capabilities: r.capabilities, dataAddress: r.data_address });
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
    },
    decide({ node, candidates, peers, waiting }, now) {
      const events = decideDispatch(node, candidates, peers, now);
      const notYet = candidates
        .filter((c) => c.state === 'retrying' && c.nextRetryAt && c.nextRetryAt.getTime() > now.getTime())
        .map((c) => c.nextRetryAt!.getTime());
      const nextRetry = notYet.length ? new Date(Math.min(...notYet)) : null;
      const queued = events.filter((e) => e.type === 'AttemptQueued').length;
      return ok({
        events,
        jobs: nextRetry ? [reconcileJob(nodeId, nextRetry)] : [],
        // Attempts held while the node was drained or observed become deliverable again when it may take them.
        result: { queued, deliverable: node.maintenance === 'active' && node.mode !== 'observe' ? queued + waiting : 0 },
      });
    },
  };
}

/** The node's intents that want an attempt (as `own`), with their streams (as `s`, none for a configuration). */
const wantedIntents = (eb: ExpressionBuilder<Tables, any>, nodeId: string) =>
  eb
    .selectFrom('intents as own')
    .leftJoin('streams as s', 's.stream_id', 'own.stream_id')
    .where('own.node_id', '=', nodeId)
    .where('own.state', 'in', literals(WANTING));

/** The states of an intent that wants an attempt. */
const WANTING = ['pending', 'retrying'] as const;

type PlacementPeerRow = Pick<Selectable<NodesTable>, 'node_id' | 'capabilities' | 'data_address'>;
