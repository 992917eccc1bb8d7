import { decideLease, effectiveMode, ok, type AttemptState, type DispatchNode, type Mode } from '@fleetplane/core';
import type { ExpressionBuilder, Selectable } from 'kysely';
import type { Command } from '../commands/pipeline.ts';
import type { Db } from '../database/connect.ts';
import { together } from '../database/transaction-plan.ts';
import type { AttemptsTable, NodesTable, Tables } from '../database/tables.ts';
import { holdingTargetsQuery, nodeHolds, type HoldRow } from './holds.ts';
import { modeSetting, operatorModeQuery, toAttempt } from './load.ts';

export interface LeasedAttempt extends AttemptState {
  leaseExpiresAt: Date;
}

interface Loaded {
  node: DispatchNode;
  queued: Array<AttemptState & { overridesHold: boolean }>;
}

/**
 * The pull channel's delivery: the calling node's queued attempts, each recorded as dispatched with a lease
 * before the answer leaves. Locked with SKIP LOCKED, so two polls (or two Hubs) never hand out one attempt twice.
 * The node row and the attempts' intents are locked too, in the order every command takes them (node, intents,
 * attempts): a drain, or a report converging an intent, that commits first is seen, and one still running
 * is waited for, so an attempt its intent no longer wants is never handed out (SPEC D1, C6).
 */
export function leaseAttempts(nodeId: string, configuredMode: Mode, leaseMs: number, limit = 50): Command<Loaded, LeasedAttempt[]> {
  return {
    name: 'LeaseAttempts',
    locksNode: nodeId,
    async load(trx) {
      // One round trip, BEGIN included. An attempt whose intent turned converging after the intents were
      // locked is left queued for the next poll: only an attempt of a locked intent leaves.
      const converging = (eb: ExpressionBuilder<Tables, 'attempts'>) =>
        eb.selectFrom('intents').select('intent_id').where('node_id', '=', nodeId).where('state', '=', 'converging');
      const [[nodeRow], [setting], intents, queued, holding] = await together<
        [Pick<Selectable<NodesTable>, 'maintenance' | 'mode_override'>, { value: string | null }, { intent_id: string; override_hold: boolean }, Selectable<AttemptsTable>, HoldRow]
      >(trx, [
        trx.selectFrom('nodes').select(['maintenance', 'mode_override']).where('node_id', '=', nodeId).forShare(),
        operatorModeQuery(trx, 'act'),
        trx.selectFrom('intents').select(['intent_id', 'override_hold']).where('node_id', '=', nodeId).where('state', '=', 'converging').orderBy('intent_id').forShare(),
        trx
          .selectFrom('attempts')
          .selectAll()
          .where('node_id', '=', nodeId)
          .where('state', '=', 'queued')
          .where('intent_id', 'in', converging)
          .orderBy('created_at')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
        holdingTargetsQuery(trx, [nodeId]),
      ]);
      const mode = effectiveMode(modeSetting(setting, configuredMode).mode, nodeRow?.mode_override ?? null);
      const hold = nodeHolds(holding, [nodeId]).get(nodeId) ?? null;
      const node: DispatchNode = { nodeId, registered: !!nodeRow, maintenance: nodeRow?.maintenance ?? 'active', mode, hold };
      const locked = new Map(intents.map((i) => [i.intent_id, i.override_hold]));
      return { node, queued: queued.filter((a) => locked.has(a.intent_id)).map((a) => ({ ...toAttempt(a), overridesHold: locked.get(a.intent_id)! })) };
    },
    decide({ node, queued }, now) {
      const events = decideLease(node, queued, now, leaseMs);
      const leaseExpiresAt = new Date(now.getTime() + leaseMs);
      const leased = new Set(events.flatMap((e) => (e.type === 'AttemptDispatched' ? [e.data.attempt_id] : [])));
      return ok({ events, result: queued.filter((a) => leased.has(a.attemptId)).map((a) => ({ ...a, state: 'dispatched' as const, leaseExpiresAt })) });
    },
  };
}

/**
 * Whether the node has a committed queued attempt: one index probe, outside the pipeline. Most polls of an
 * idle fleet find nothing, and a locking transaction for each would cost a large fleet most of the Hub.
 */
export async function hasQueuedAttempts(db: Db, nodeId: string): Promise<boolean> {
  const row = await db.selectFrom('attempts').select('attempt_id').where('node_id', '=', nodeId).where('state', '=', 'queued').limit(1).executeTakeFirst();
  return row !== undefined;
}
