import { decideRetire, ok, type LiveIntent, type RetiringNode } from '@fleetplane/core';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Command } from '../commands/pipeline.ts';
import { together } from '../database/transaction-plan.ts';
import type { IntentsTable, NodesTable, Tables } from '../database/tables.ts';
import { lockLiveIntents, toIntent } from '../reconcile/load.ts';
import { streamRemovalJob } from '../reconcile/queues.ts';
import { rolloutJob } from '../rollouts/queues.ts';
import { lockNodeQuery, toNodeState } from './load-node.ts';

export interface Retirement {
  superseded_intents: string[];
  rollouts: string[];
}

/** The target states a running rollout still waits on: a converged or cancelled target holds nothing, unless its claim does. */
const UNSETTLED = ['waiting', 'applying', 'failed'] as const;

/**
 * DELETE /nodes/{id} (issue 22). Locks the node's row, then its live intents (the order every command takes),
 * and reads the rollouts it concerns (rolloutsOfNode). Each rollout it leaves gets a pass (a batch may have
 * been waiting on it alone; a restore it withdrew gets its terminal there), and so does the removal of each
 * stream whose intent it superseded.
 */
export function retireNode(nodeId: string, force: boolean): Command<RetiringNode, Retirement> {
  return {
    name: 'RetireNode',
    locksNode: nodeId,
    async load(trx) {
      const [[row], [retired], intents, queued, rollouts] = await together<
        [Selectable<NodesTable>, { retired_at: Date }, Selectable<IntentsTable>, { attempt_id: string; intent_id: string }, { rollout_id: string; running: boolean }]
      >(trx, [
        lockNodeQuery(trx, nodeId),
        trx.selectFrom('retired_nodes').select('retired_at').where('node_id', '=', nodeId),
        lockLiveIntents(trx).where('node_id', '=', nodeId),
        trx.selectFrom('attempts').select(['attempt_id', 'intent_id']).where('node_id', '=', nodeId).where('state', '=', 'queued'),
        rolloutsOfNode(trx, nodeId),
      ]);
      const live: LiveIntent[] = intents.map((r) => ({
        ...toIntent(r),
        queuedAttempts: queued.filter((a) => a.intent_id === r.intent_id).map((a) => a.attempt_id),
      }));
      const ids = (running: boolean) => rollouts.filter((r) => r.running === running).map((r) => r.rollout_id);
      return { node: toNodeState(row), retiredAt: retired?.retired_at ?? null, live, rollouts: ids(true), claimed: ids(false) };
    },
    decide(state) {
      const decided = decideRetire(state, nodeId, force);
      if (!decided.ok) return decided;
      const streams = [...new Set(state.live.flatMap((i) => (i.streamId !== null ? [i.streamId] : [])))];
      return ok({
        events: decided.value,
        jobs: [...state.rollouts, ...state.claimed].map((r) => rolloutJob(r)).concat(streams.map((s) => streamRemovalJob(s))),
        result: { superseded_intents: state.live.map((i) => i.intentId), rollouts: [...state.rollouts, ...state.claimed] },
      });
    },
  };
}

const RUNNING = ['applying', 'paused'] as const;

/**
 * The rollouts the node's retirement concerns: running ones that still wait on it, and any, running or ended,
 * whose target on it holds a recovery claim or restores (SPEC I5): once the node is gone no evidence can
 * retire the claim or end the restore, and the rollout would be held, or show it, for good.
 */
const rolloutsOfNode = (trx: Kysely<Tables>, nodeId: string) =>
  trx
    .selectFrom('rollout_targets as t')
    .innerJoin('rollouts as r', 'r.rollout_id', 't.rollout_id')
    .select(['t.rollout_id', sql<boolean>`r.state = ANY(${[...RUNNING]})`.as('running')])
    .where('t.node_id', '=', nodeId)
    .where('t.state', '<>', 'cancelled')
    .where((eb) => eb.or([eb.and([eb('r.state', 'in', RUNNING), eb('t.state', 'in', UNSETTLED)]), eb('t.recovery_claim', 'in', ['post_mutation', 'unknown']), eb('t.recovery_phase', '=', 'restoring')]))
    .orderBy(sql`t.rollout_id`);
