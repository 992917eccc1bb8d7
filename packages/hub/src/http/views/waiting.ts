import { effectiveMode, intentWaitsOn, WAIT_KINDS, type WaitingOn, type WaitNode, type WaitStream } from '@fleetplane/core';
import type { Kysely, Selectable } from 'kysely';
import { z } from 'zod';
import { keyed, prepared, together } from '../../database/transaction-plan.ts';
import type { AttemptsTable, IntentsTable, NodesTable, ObservedStreamsTable, Tables } from '../../database/tables.ts';
import { holdingTargetsQuery, nodeHolds, type HoldRow } from '../../reconcile/holds.ts';
import { modeSetting, newestLifecycleIntents, operatorModeQuery, toIntent, type NewestLifecycleIntent } from '../../reconcile/load.ts';
import { nodeUnheard, restoredAtColumn } from '../../reconcile/unheard.ts';
import type { HubContext } from '../context.ts';
import { liveness } from './node.ts';

/**
 * What an intent, a stream's intent on a node or a rollout target waits on (issue 22): a kind, the ids of
 * the blocking thing (the node, the stream and its intent, the attempt), a sentence, and when the wait ends
 * by itself (a retry's time, a lease's end). Null when it waits on nothing: done, failed or cancelled.
 */
export const WaitingOnView = z
  .object({
    kind: z.enum(WAIT_KINDS),
    message: z.string(),
    node_id: z.string().nullable(),
    stream_id: z.string().nullable(),
    intent_id: z.string().nullable(),
    attempt_id: z.string().nullable(),
    at: z.string().nullable(),
  })
  .nullable()
  .meta({ id: 'WaitingOn' });
export type WaitingOnView = z.infer<typeof WaitingOnView>;

export const waitingOnView = (w: WaitingOn | null): WaitingOnView =>
  w && { kind: w.kind, message: w.message, node_id: w.nodeId, stream_id: w.streamId, intent_id: w.intentId, attempt_id: w.attemptId, at: w.at?.toISOString() ?? null };

const DONE = new Set(['converged', 'superseded']);

/**
 * What each of these intents waits on, read from the projections in one round trip however many there are:
 * their nodes (and a split placement's nodes) and the recovery claims holding them, their newest attempts,
 * and for a configuration intent the newest lifecycle intent of every stream on its node with what the node
 * reports of it. Through `db`: the caller's transaction when the answer is read in one.
 */
export async function readIntentWaits(hub: HubContext, rows: readonly Selectable<IntentsTable>[], db: Kysely<Tables> = hub.database.db): Promise<Map<string, WaitingOn | null>> {
  const waits = new Map<string, WaitingOn | null>(rows.map((r) => [r.intent_id, null]));
  const live = rows.filter((r) => !DONE.has(r.state));
  if (live.length === 0) return waits;
  const splitStreams = [...new Set(live.flatMap((r) => (r.kind === 'lifecycle' && r.stream_id !== null && (r.state === 'pending' || r.state === 'retrying') ? [r.stream_id] : [])))];
  const placements = splitStreams.length
    ? await db.selectFrom('streams').select(['stream_id', 'placement']).where('stream_id', 'in', splitStreams).execute()
    : [];
  const split = new Map(placements.filter((p) => p.placement.split).map((p) => [p.stream_id, p.placement.nodes]));
  const nodeIds = [...new Set([...live.map((r) => r.node_id), ...[...split.values()].flat()])];
  const configuring = [...new Set(live.filter((r) => r.kind === 'configuration').map((r) => r.node_id))];
  const holdingNodes = [...new Set(live.map((r) => r.node_id))];
  const intentIds = live.map((r) => r.intent_id);
  // Names for a list of one key (equality) or several (an array), as a reconcile pass's (`keyed`).
  const ofNodes = keyed(nodeIds, 'wait', 'waits');
  const ofIntents = keyed(intentIds, 'wait', 'waits');
  const ofHolding = keyed(holdingNodes, 'wait', 'waits');
  const ofConfiguring = keyed(configuring, 'wait', 'waits');
  // One round trip, one snapshot; prepared, as every desired write's answer reads them.
  const [nodes, attempts, [setting], streams, observed, holding] = await together<
    [
      Pick<Selectable<NodesTable>, 'node_id' | 'maintenance' | 'last_seen_at' | 'mode_override' | 'applied_config_version' | 'last_report_at'> & { restored_at: Date | null },
      Pick<Selectable<AttemptsTable>, 'intent_id' | 'attempt_id' | 'operation' | 'state' | 'lease_expires_at'>,
      { value: string | null },
      NewestLifecycleIntent,
      Selectable<ObservedStreamsTable>,
      HoldRow,
    ]
  >(db, [
    prepared(
      ofNodes.name('nodes'),
      db
        .selectFrom('nodes')
        .select(['node_id', 'maintenance', 'last_seen_at', 'mode_override', 'applied_config_version', 'last_report_at', restoredAtColumn()])
        .where('node_id', '=', ofNodes.match),
    ),
    prepared(
      ofIntents.name('attempts'),
      db
        .selectFrom('attempts')
        .select(['intent_id', 'attempt_id', 'operation', 'state', 'lease_expires_at'])
        .distinctOn('intent_id')
        .where('intent_id', '=', ofIntents.match)
        .orderBy('intent_id')
        .orderBy('created_at', 'desc'),
    ),
    operatorModeQuery(db, 'none'),
    prepared(ofConfiguring.name('lifecycle'), newestLifecycleIntents(db, configuring)),
    prepared(ofConfiguring.name('observed'), db.selectFrom('observed_streams').selectAll().where('node_id', '=', ofConfiguring.match)),
    prepared(ofHolding.name('holds'), holdingTargetsQuery(db, holdingNodes)),
  ]);
  const mode = modeSetting(setting, hub.config.file.reconciliation.mode).mode;
  const holds = nodeHolds(holding, holdingNodes);
  const now = hub.clock.now();
  const byNode = new Map(
    nodes.map((n): [string, WaitNode] => [
      n.node_id,
      {
        nodeId: n.node_id,
        maintenance: n.maintenance,
        liveness: liveness(n.last_seen_at, now, hub.config),
        lastSeenAt: n.last_seen_at,
        mode: effectiveMode(mode, n.mode_override),
        appliedConfigVersion: n.applied_config_version,
        hold: holds.get(n.node_id) ?? null,
        unheardSince: nodeUnheard(n),
      },
    ]),
  );
  const lastAttempt = new Map(attempts.map((a) => [a.intent_id, { attemptId: a.attempt_id, operation: a.operation, state: a.state, leaseExpiresAt: a.lease_expires_at }]));
  // A health the node never reported is absent, as in a report (ObservedStream).
  const reported = new Map(observed.map(({ health, ...o }) => [`${o.node_id}\u0000${o.stream_id}`, health === null ? o : { ...o, health }]));
  const streamsOf = new Map<string, WaitStream[]>();
  for (const s of streams) {
    if (s.stream_id === null) continue;
    const list = streamsOf.get(s.node_id) ?? [];
    list.push({
      intent: {
        intentId: s.intent_id,
        streamId: s.stream_id,
        generation: s.generation,
        desiredState: s.desired_state,
        actionId: s.action_id,
        state: s.state,
        failureClass: s.failure_class,
        failureCode: s.failure_code,
      },
      observed: reported.get(`${s.node_id}\u0000${s.stream_id}`),
    });
    streamsOf.set(s.node_id, list);
  }
  for (const r of live) {
    const placement = (r.stream_id !== null && split.get(r.stream_id)) || [];
    const wait = intentWaitsOn(
      {
        intent: { ...toIntent(r), failureClass: r.failure_class, failureCode: r.failure_code },
        node: byNode.get(r.node_id) ?? null,
        attempt: lastAttempt.get(r.intent_id) ?? null,
        streams: r.kind === 'configuration' ? (streamsOf.get(r.node_id) ?? []) : [],
        placementWaiting: placement.filter((n) => !byNode.has(n)),
      },
      now,
    );
    waits.set(r.intent_id, wait);
  }
  return waits;
}
