import type { NewEvent } from '../events/envelope.ts';
import { historyStream, type IntentHistoryPrunedData } from './events.ts';

/** What a run chose to prune: intents with all their attempts, and attempts of intents that stay. */
export interface Prunable {
  intentIds: readonly string[];
  attemptIds: readonly string[];
}

/** One event naming all that a run chose, or none when it chose nothing, so a run that finds nothing records nothing. */
export function decideIntentHistoryPruned({ intentIds, attemptIds }: Prunable, before: Date): Array<NewEvent<'IntentHistoryPruned', IntentHistoryPrunedData>> {
  if (intentIds.length === 0 && attemptIds.length === 0) return [];
  return [{ streamId: historyStream, type: 'IntentHistoryPruned', data: { before: before.toISOString(), intent_ids: [...intentIds], attempt_ids: [...attemptIds] } }];
}
