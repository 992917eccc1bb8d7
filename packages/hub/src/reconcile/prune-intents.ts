import { decideIntentHistoryPruned, ok, RECOVERY_REF_PREFIX, type Prunable } from '@fleetplane/core';
import { sql, type Kysely } from 'kysely';
import type { Actor, Command, Pipeline } from '../commands/pipeline.ts';
import type { Tables } from '../database/tables.ts';

/** Intents, and attempts, one run removes at most of each: the next run takes the rest. */
export const PRUNE_BATCH = 5_000;

const PRUNER: Actor = { principal: 'hub', role: 'system', source: 'worker', correlationId: 'prune-intents' };

/**
 * Removes from the tables what an intent's history no longer needs there, last changed before
 * `before`, by recording IntentHistoryPruned with the ids (its events stay in the log):
 * - intents done and behind their stream, with all their attempts: of a generation before the stream's
 *   current one (a new generation supersedes every live intent of the ones before it, SPEC A5) or of a
 *   removed stream, converged or superseded;
 * - configuration intents no rollback can reach any more, with all their attempts (unreachableConfigurations);
 * - finished attempts of the lifecycle intents that stay, but for each intent's newest (a target retrying a
 *   temporary failure for weeks leaves one attempt a retry).
 * Rows are locked in id order, skipping those another Hub's run holds: two runs at once remove each row once,
 * and a run never waits on a row. Finds nothing, records nothing.
 */
export function pruneIntents(before: Date, batch = PRUNE_BATCH): Command<Prunable, { intents: number; attempts: number }> {
  return {
    name: 'PruneIntents',
    async load(trx) {
      const lifecycle = await doneIntents(trx, before, batch);
      const configuration = lifecycle.length < batch ? await unreachableConfigurations(trx, before, batch - lifecycle.length) : [];
      const intentIds = [...lifecycle, ...configuration];
      return { intentIds, attemptIds: await finishedAttempts(trx, before, batch, intentIds) };
    },
    decide(prunable) {
      return ok({ events: decideIntentHistoryPruned(prunable, before), result: { intents: prunable.intentIds.length, attempts: prunable.attemptIds.length } });
    },
  };
}

/** Runs pruneIntents until a run takes less than a full batch of both; answers how many of each it removed. */
export async function pruneIntentsBefore(pipeline: Pipeline, before: Date, batch = PRUNE_BATCH): Promise<{ intents: number; attempts: number }> {
  const total = { intents: 0, attempts: 0 };
  for (;;) {
    const outcome = await pipeline.run(PRUNER, pruneIntents(before, batch));
    if (!outcome.ok) return total;
    const { intents, attempts } = outcome.value.result;
    total.intents += intents;
    total.attempts += attempts;
    if (intents < batch && attempts < batch) return total;
  }
}

async function doneIntents(trx: Kysely<Tables>, before: Date, batch: number): Promise<string[]> {
  const rows = await trx
    .selectFrom('intents as i')
    .innerJoin('streams as s', 's.stream_id', 'i.stream_id')
    .select('i.intent_id')
    .where('i.kind', '=', 'lifecycle')
    .where('i.state', 'in', ['converged', 'superseded'])
    .where('i.updated_at', '<', before)
    .where((eb) => eb.or([eb('i.generation', '<', eb.ref('s.generation')), eb('s.removed_at', 'is not', null)]))
    .orderBy('i.intent_id')
    .limit(batch)
    .forUpdate('i')
    .skipLocked()
    .execute();
  return rows.map((r) => r.intent_id);
}

/**
 * Configuration intents done and out of every rollback's reach. A rollback by scope restores the recovery
 * point an apply of its rollout on the node captured (rollout-action.ts, capturedPoints), and only while the
 * node still reports holding it: the agent keeps its newest few, so that is the window, as a Deployment's
 * `revisionHistoryLimit` is. An intent stays while
 * - it is its node's newest configuration intent (the node's present, what retires a claim: the node's
 *   `config_generation` is its generation);
 * - its rollout is applying or paused, or a target of it on the node restores or holds a claim (SPEC I5; a
 *   cancelled target's claim holds nothing, I6);
 * - the node holds a point captured by an attempt of its rollout there (what a rollback would restore), or,
 *   converged, a point holding its version (what SPEC H9 reads to exempt a rollback to that version).
 * A retired node (its row gone from `nodes`) has nothing left to restore nor a present to keep: its intents
 * go once nothing stands on them. A rollback of a rollout past the window answers `no_recovery_point`, as it
 * already did once the node let the point go; a rollback to a version applied only before the window needs
 * approval.
 */
async function unreachableConfigurations(trx: Kysely<Tables>, before: Date, batch: number): Promise<string[]> {
  const { rows } = await sql<{ intent_id: string }>`
    SELECT i.intent_id FROM intents i
      LEFT JOIN nodes n ON n.node_id = i.node_id
    WHERE i.kind = 'configuration' AND i.state IN ('converged', 'superseded') AND i.updated_at < ${before}
      AND NOT EXISTS (SELECT FROM rollouts r WHERE r.rollout_id = i.rollout_id AND r.state IN ('applying', 'paused'))
      AND NOT EXISTS (SELECT FROM rollout_targets t WHERE t.rollout_id = i.rollout_id AND t.node_id = i.node_id
        AND (t.recovery_phase = 'restoring' OR (t.state <> 'cancelled' AND t.recovery_claim IN ('post_mutation', 'unknown'))))
      AND (n.node_id IS NULL OR (
        i.generation < n.config_generation
        AND NOT (i.state = 'converged' AND n.recovery_points @> jsonb_build_array(jsonb_build_object('config_version', i.config_version)))
        AND NOT EXISTS (SELECT FROM intents o JOIN attempts a ON a.intent_id = o.intent_id
          WHERE o.kind = 'configuration' AND o.node_id = i.node_id AND o.rollout_id = i.rollout_id
            AND n.recovery_points @> jsonb_build_array(jsonb_build_object('ref', ${RECOVERY_REF_PREFIX} || a.attempt_id)))))
    ORDER BY i.intent_id
    LIMIT ${batch}
    FOR UPDATE OF i SKIP LOCKED`.execute(trx);
  return rows.map((r) => r.intent_id);
}

/** Those of intents that stay: the attempts of the intents `leaving` go with them. */
async function finishedAttempts(trx: Kysely<Tables>, before: Date, batch: number, leaving: readonly string[]): Promise<string[]> {
  const rows = await trx
    .selectFrom('attempts as a')
    .innerJoin('intents as i', 'i.intent_id', 'a.intent_id')
    .select('a.attempt_id')
    .where('i.kind', '=', 'lifecycle')
    .where(sql<boolean>`a.intent_id <> all(${[...leaving]})`)
    .where('a.state', 'in', ['succeeded', 'failed', 'ambiguous', 'superseded'])
    .where(sql<Date>`coalesce(a.completed_at, a.created_at)`, '<', before)
    // The intent's newest attempt stays: its view shows what it last tried.
    .where((eb) =>
      eb(
        'a.attempt_id',
        '<>',
        eb.selectFrom('attempts as n').select('n.attempt_id').whereRef('n.intent_id', '=', 'a.intent_id').orderBy('n.created_at', 'desc').orderBy('n.attempt_id', 'desc').limit(1),
      ),
    )
    .orderBy('a.attempt_id')
    .limit(batch)
    .forUpdate('a')
    .skipLocked()
    .execute();
  return rows.map((r) => r.attempt_id);
}
