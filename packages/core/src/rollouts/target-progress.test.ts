import type { TargetStateName } from './events.ts';
import { countTargets, targetProgress } from './target-progress.ts';

const progressOf = (...states: TargetStateName[]) => targetProgress(countTargets(states.map((state) => ({ state }))));

test('G5 a rollout\'s progress counts converged targets of all, and names the cancelled ones', () => {
  expect(progressOf()).toBe('0/0 converged');
  expect(progressOf('converged', 'applying', 'waiting')).toBe('1/3 converged');
  expect(progressOf('cancelled')).toBe('0/1 converged, 1 cancelled');
  expect(progressOf('converged', 'cancelled', 'cancelled', 'failed')).toBe('1/4 converged, 2 cancelled');
});
