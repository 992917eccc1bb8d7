import { decideIntentHistoryPruned, ok } from '@fleetplane/core';
import type { Kysely } from 'kysely';
import type { Command } from '../commands/pipeline.ts';
import type { Tables } from '../database/tables.ts';

/** Intents one run removes at most: the next run takes the rest. */
export const PRUNE_BATCH = 5_000;

/**
 * Removes from the tables the lifecycle intents that are done and behind their stream, last changed before
 * `before`, with their attempts, by recording IntentHistoryPruned with their ids. Such an intent is of a
 * generation before its stream's current one (a new generation supersedes every live intent of the ones
 * before it, SPEC A5) or of a removed stream, and converged or superseded. Configuration intents stay: a
 * rollout's rollback reads what its applies captured. The intents are locked in id order, as every locker of
 * intents takes them. Finds nothing, records nothing; two Hubs running it at once remove each intent once.
 */
export function pruneIntents(before: Date): Command<string[], { pruned: number }> {
  return {
    name: 'PruneIntents',
    load: (trx) => prunableIntents(trx, before),
    decide(intentIds) {
      return ok({ events: decideIntentHistoryPruned(intentIds, before), result: { pruned: intentIds.length } });
    },
  };
}

async function prunableIntents(trx: Kysely<Tables>, before: Date): Promise<string[]> {
  const rows = await trx
    .selectFrom('intents as i')
    .innerJoin('streams as s', 's.stream_id', 'i.stream_id')
    .select('i.intent_id')
    .where('i.kind', '=', 'lifecycle')
    .where('i.state', 'in', ['converged', 'superseded'])
    .where('i.updated_at', '<', before)
    .where((eb) => eb.or([eb('i.generation', '<', eb.ref('s.generation')), eb('s.removed_at', 'is not', null)]))
    .orderBy('i.intent_id')
    .limit(PRUNE_BATCH)
    .forUpdate('i')
    .skipLocked()
    .execute();
  return rows.map((r) => r.intent_id);
}
