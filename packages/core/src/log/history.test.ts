import { historyStream } from './events.ts';
import { decideIntentHistoryPruned } from './history.ts';

const before = new Date('2026-11-29T00:00:00.000Z');

test('J3 given intents to prune, when decided, then one IntentHistoryPruned names them all and its horizon', () => {
  expect(decideIntentHistoryPruned(['in_1', 'in_2'], before)).toEqual([
    { streamId: historyStream, type: 'IntentHistoryPruned', data: { before: '2026-11-29T00:00:00.000Z', intent_ids: ['in_1', 'in_2'] } },
  ]);
});

test('J3 given none to prune, when decided, then nothing is recorded', () => {
  expect(decideIntentHistoryPruned([], before)).toEqual([]);
});
