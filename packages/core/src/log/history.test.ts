import { historyStream } from './events.ts';
import { decideIntentHistoryPruned } from './history.ts';

const before = new Date('2026-11-29T00:00:00.000Z');

test('J3 given intents and attempts to prune, when decided, then one IntentHistoryPruned names them all and its horizon', () => {
  expect(decideIntentHistoryPruned({ intentIds: ['in_1', 'in_2'], attemptIds: ['at_9'] }, before)).toEqual([
    { streamId: historyStream, type: 'IntentHistoryPruned', data: { before: '2026-11-29T00:00:00.000Z', intent_ids: ['in_1', 'in_2'], attempt_ids: ['at_9'] } },
  ]);
  expect(decideIntentHistoryPruned({ intentIds: [], attemptIds: ['at_9'] }, before)[0]!.data).toEqual({ before: '2026-11-29T00:00:00.000Z', intent_ids: [], attempt_ids: ['at_9'] });
});

test('J3 given nothing to prune, when decided, then nothing is recorded', () => {
  expect(decideIntentHistoryPruned({ intentIds: [], attemptIds: [] }, before)).toEqual([]);
});
