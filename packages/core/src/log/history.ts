import type { NewEvent } from '../events/envelope.ts';
import { historyStream, type IntentHistoryPrunedData } from './events.ts';

/**
 * The pruning of the intents chosen (done, behind their stream, last changed before `before`): one event
 * naming them all, or none when there are none, so a run that finds nothing records nothing.
 */
export function decideIntentHistoryPruned(intentIds: readonly string[], before: Date): Array<NewEvent<'IntentHistoryPruned', IntentHistoryPrunedData>> {
  return intentIds.length > 0 ? [{ streamId: historyStream, type: 'IntentHistoryPruned', data: { before: before.toISOString(), intent_ids: [...intentIds] } }] : [];
}
