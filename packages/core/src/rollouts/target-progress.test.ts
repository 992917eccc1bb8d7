import { targetProgress } from './target-progress.ts';

test('G5 a rollout\'s progress counts converged targets of all, and names the cancelled ones', () => {
  expect(targetProgress([])).toBe('0/0 converged');
  expect(targetProgress([{ state: 'converged' }, { state: 'applying' }, { state: 'waiting' }])).toBe('1/3 converged');
  expect(targetProgress([{ state: 'cancelled' }])).toBe('0/1 converged, 1 cancelled');
  expect(targetProgress([{ state: 'converged' }, { state: 'cancelled' }, { state: 'cancelled' }, { state: 'failed' }])).toBe('1/4 converged, 2 cancelled');
});
