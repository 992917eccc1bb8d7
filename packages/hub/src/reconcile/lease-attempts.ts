import { decideLease, ok, type AttemptState, type DispatchNode, type Mode } from '@fleetplane/core';
import { sql, type Compilable, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import type { Command } from '../commands/pipeline.ts';
import { keyed, prepared, together } from '../database/transaction-plan.ts';
import type { AttemptsTable, IntentsTable, NodesTable, Tables } from '../database/tables.ts';
import { rolloutJob } from '../rollouts/queues.ts';
import { dispatchNode, dispatchNodeColumns, type DispatchNodeRow } from './dispatch-node.ts';
import { holdingTargetsQuery, nodeHolds, type HoldRow } from './holds.ts';
import { modeSetting, operatorModeQuery, toAttempt } from './load.ts';

export interface LeasedAttempt extends AttemptState {
  leaseExpiresAt: Date;
}

/** A poll's attempts at most: a node with a longer queue gets the rest on its next poll. */
export const LEASE_LIMIT = 50;

interface Loaded {
  /** The node's row, or null if it is not registered. */
  node: NodeRow | null;
  /** The operator's global mode, if one was set (the file's applies otherwise). */
  setting: { value: string | null } | undefined;
  hold: DispatchNode['hold'];
  queued: Array<AttemptState & { overridesHold: boolean }>;
  /** The rollout of each queued attempt's intent, if one opened it: a pass settles a target whose intent the lease blocks. */
  rollouts: Map<string, string | null>;
}

type NodeRow = Pick<Selectable<NodesTable>, 'node_id'> & DispatchNodeRow;
type IntentRow = Pick<Selectable<IntentsTable>, 'intent_id' | 'override_hold' | 'rollout_id'>;

/**
 * Each node's queued attempts, oldest first, LEASE_LIMIT at most, of its converging intents only, locked:
 * one statement for any number of nodes, led by the nodes' rows so that it names them as every load does
 * (`keyed`). A node without a row has nothing to lease.
 */
function queuedAttemptsQuery(trx: Kysely<Tables>, byNode: RawBuilder<string>): Compilable<Selectable<AttemptsTable>> {
  const query = sql<Selectable<AttemptsTable>>`SELECT a.* FROM nodes AS n
    CROSS JOIN LATERAL (
      SELECT * FROM attempts
      WHERE attempts.node_id = n.node_id AND attempts.state = 'queued'
        AND attempts.intent_id IN (SELECT intent_id FROM intents WHERE intents.node_id = n.node_id AND intents.state = 'converging')
      ORDER BY attempts.created_at
      LIMIT ${sql.lit(LEASE_LIMIT)}
      FOR UPDATE SKIP LOCKED
    ) AS a
    WHERE n.node_id = ${byNode}`;
  return { compile: () => query.compile(trx) };
}

/**
 * The polling nodes' rows, their converging intents and their queued attempts, locked, with the global mode
 * and the nodes' holds: one round trip, BEGIN included, however many nodes poll together. The node rows and
 * the attempts' intents are locked in the order every command takes them (nodes, intents in id order,
 * attempts). An attempt whose intent turned converging after the intents were locked is left queued for the
 * next poll: only an attempt of a locked intent leaves. Prepared, named by their keys' count (`keyed`).
 */
async function loadPolling(trx: Kysely<Tables>, nodeIds: readonly string[]): Promise<Map<string, Loaded>> {
  const { match: byNode, name } = keyed(nodeIds, 'lease', 'leases');
  const [nodes, [setting], intents, attempts, holding] = await together<[NodeRow, { value: string | null }, IntentRow, Selectable<AttemptsTable>, HoldRow]>(trx, [
    prepared(
      name('nodes'),
      trx
        .selectFrom('nodes')
        .select(['node_id', ...dispatchNodeColumns()])
        .where('node_id', '=', byNode)
        .orderBy('node_id')
        .forShare(),
    ),
    operatorModeQuery(trx, 'act'),
    prepared(
      name('intents'),
      trx.selectFrom('intents').select(['intent_id', 'override_hold', 'rollout_id']).where('node_id', '=', byNode).where('state', '=', sql.lit('converging')).orderBy('intent_id').forShare(),
    ),
    prepared(name('queued'), queuedAttemptsQuery(trx, byNode)),
    prepared(name('holds'), holdingTargetsQuery(trx, nodeIds)),
  ]);
  const holds = nodeHolds(holding, nodeIds);
  const loaded = new Map<string, Loaded>(nodeIds.map((id) => [id, { node: null, setting, hold: holds.get(id) ?? null, queued: [], rollouts: new Map() }]));
  for (const row of nodes) loaded.get(row.node_id)!.node = row;
  const locked = new Map(intents.map((i) => [i.intent_id, i]));
  for (const a of attempts) {
    const intent = locked.get(a.intent_id);
    if (!intent) continue;
    const into = loaded.get(a.node_id)!;
    into.queued.push({ ...toAttempt(a), overridesHold: intent.override_hold });
    into.rollouts.set(a.intent_id, intent.rollout_id);
  }
  return loaded;
}

/**
 * The pull channel's delivery: the calling node's queued attempts, each recorded as dispatched with a lease
 * before the answer leaves. Locked with SKIP LOCKED, so two polls (or two Hubs) never hand out one attempt twice.
 * The node row and the attempts' intents are locked too: a drain, or a report converging an intent, that
 * commits first is seen, and one still running is waited for, so an attempt its intent no longer wants is
 * never handed out (SPEC D1, C6). Polls arriving together lease together, one load for all their nodes.
 */
export function leaseAttempts(nodeId: string, configuredMode: Mode, leaseMs: number): Command<Loaded, LeasedAttempt[]> {
  return {
    name: 'LeaseAttempts',
    locksNode: nodeId,
    bulk: { kind: 'lease', key: nodeId, loadMany: loadPolling },
    load: async (trx) => (await loadPolling(trx, [nodeId])).get(nodeId)!,
    decide({ node: row, setting, hold, queued, rollouts }, now) {
      const node = dispatchNode(nodeId, row ?? undefined, modeSetting(setting, configuredMode).mode, hold);
      const events = decideLease(node, queued, now, leaseMs);
      const leaseExpiresAt = new Date(now.getTime() + leaseMs);
      const leased = new Set(events.flatMap((e) => (e.type === 'AttemptDispatched' ? [e.data.attempt_id] : [])));
      // An intent blocked here (its node ahead of the log) fails its rollout's target: the rollout's pass settles it.
      const blocked = events.flatMap((e) => (e.type === 'IntentBlocked' ? [rollouts.get(e.data.intent_id)] : []));
      const jobs = [...new Set(blocked.filter((r): r is string => typeof r === 'string'))].map((r) => rolloutJob(r));
      return ok({ events, jobs, result: queued.filter((a) => leased.has(a.attemptId)).map((a) => ({ ...a, state: 'dispatched' as const, leaseExpiresAt })) });
    },
  };
}
