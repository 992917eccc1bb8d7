import {
  decideDispatch,
  effectiveMode,
  ok,
  type DispatchCandidate,
  type DispatchNode,
  type Mode,
  type PlacementPeer,
} from '@fleetplane/core';
import { sql, type ExpressionBuilder } from 'kysely';
import type { Command } from '../commands/pipeline.ts';
import type { Tables } from '../database/tables.ts';
import { newId } from './ids.ts';
import { globalMode, lockLiveIntents, toIntent, toStream } from './load.ts';
import { reconcileJob } from './queues.ts';

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
      const nodeRow = await trx.selectFrom('nodes').selectAll().where('node_id', '=', nodeId).forUpdate().executeTakeFirst();
      const mode = effectiveMode(await globalMode(trx, configuredMode, 'act'), nodeRow?.mode_override ?? null);
      const node: DispatchNode = { nodeId, registered: !!nodeRow, maintenance: nodeRow?.maintenance ?? 'active', mode };
      const waiting = Number(
        (await trx.selectFrom('attempts').select((eb) => eb.fn.countAll<string>().as('n')).where('node_id', '=', nodeId).where('state', '=', 'queued').executeTakeFirstOrThrow()).n,
      );
      // SPEC E1: the node's intents that want an attempt and, for its split placements, their intents on the
      // other nodes, locked in one statement: in the id order every other locker of a placement's intents uses
      // (a peer's registration, a peer's reconcile), so none of them waits on this pass while it waits on them.
      const locked = await lockLiveIntents(trx)
        .where((eb) =>
          eb.or([
            eb.and([eb('node_id', '=', nodeId), eb('state', 'in', ['pending', 'retrying'])]),
            // ANY(ARRAY(…)), not IN: inside an OR, IN would filter every live intent instead of using an index.
            eb.and([eb('node_id', '<>', nodeId), eb('stream_id', '=', sql<string>`ANY(ARRAY(${splitStreamsOf(eb, nodeId)}))`)]),
          ]),
        )
        .execute();
      const intents = locked.filter((i) => i.node_id === nodeId);
      if (intents.length === 0) return { node, candidates: [], peers: new Map(), waiting };
      const streamIds = [...new Set(intents.flatMap((i) => (i.stream_id === null ? [] : [i.stream_id])))];
      const streams = new Map(
        streamIds.length
          ? (await trx.selectFrom('streams').selectAll().where('stream_id', 'in', streamIds).execute()).map((s) => [s.stream_id, toStream(s)])
          : [],
      );
      const versionIds = [...new Set(intents.flatMap((i) => (i.config_version === null ? [] : [i.config_version])))];
      const versions = new Map(
        versionIds.length
          ? (await trx.selectFrom('config_versions').selectAll().where('config_version', 'in', versionIds).execute()).map((v) => [v.config_version, v])
          : [],
      );
      const active = new Set(
        (
          await trx
            .selectFrom('attempts')
            .select('intent_id')
            .where('node_id', '=', nodeId)
            .where('state', 'in', ['queued', 'dispatched'])
            .execute()
        ).map((a) => a.intent_id),
      );
      const observedActions = new Map(
        streamIds.length
          ? (
              await trx
                .selectFrom('observed_streams')
                .select(['stream_id', 'last_action_id'])
                .where('node_id', '=', nodeId)
                .where('stream_id', 'in', streamIds)
                .execute()
            ).map((o) => [o.stream_id, o.last_action_id])
          : [],
      );
      const splitStreams = [...streams.values()].filter((s) => s.placement.split);
      const siblings = locked.filter((i) => i.node_id !== nodeId);
      // Read after the siblings are locked: a peer's registration holds its intents until it commits (E1).
      const peerIds = [...new Set(splitStreams.flatMap((s) => s.placement.nodes))];
      const peers = new Map<string, PlacementPeer | null>(peerIds.map((id) => [id, null]));
      if (peerIds.length > 0) {
        const rows = await trx.selectFrom('nodes').select(['node_id', 'capabilities', 'data_address']).where('node_id', 'in', peerIds).execute();
        for (const r of rows) peers.set(r.node_id, { nodeId: r.node_id, capabilities: r.capabilities, dataAddress: r.data_address });
      }
      const candidates: DispatchCandidate[] = [];
      for (const row of intents) {
        const version = row.config_version === null ? undefined : versions.get(row.config_version);
        if (version) {
          // The content travels with an apply: the agent needs nothing else. A restore names its recovery point.
          const spec =
            row.recovery_ref !== null
              ? { recovery_ref: row.recovery_ref }
              : { content: version.content, format: version.format, digest: version.digest };
          candidates.push({ ...toIntent(row), spec, placement: null, hasActiveAttempt: active.has(row.intent_id), observedActionId: null, siblings: [] });
          continue;
        }
        const stream = row.stream_id === null ? undefined : streams.get(row.stream_id);
        if (!stream) continue;
        candidates.push({
          ...toIntent(row),
          spec: stream.spec,
          placement: stream.placement,
          hasActiveAttempt: active.has(row.intent_id),
          observedActionId: observedActions.get(row.stream_id!) ?? null,
          siblings: siblings
            .filter((s) => s.stream_id === row.stream_id && s.generation === row.generation)
            .map((s) => ({ intentId: s.intent_id, state: s.state, desiredState: s.desired_state })),
        });
      }
      return { node, candidates, peers, waiting };
    },
    decide({ node, candidates, peers, waiting }, now) {
      const events = decideDispatch(node, candidates, peers, now, newId);
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

/** The split placements of the node's intents that want an attempt. */
const splitStreamsOf = (eb: ExpressionBuilder<Tables, 'intents'>, nodeId: string) =>
  eb
    .selectFrom('intents as own')
    .innerJoin('streams as s', 's.stream_id', 'own.stream_id')
    .select('own.stream_id')
    .where('own.node_id', '=', nodeId)
    .where('own.state', 'in', ['pending', 'retrying'])
    .where(sql<boolean>`(s.placement->>'split')::boolean`);
