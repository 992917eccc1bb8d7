import { retryDelayMs } from './backoff.ts';

test('C1 backoff doubles from the base up to the cap, and its jitter spans the upper half of each step', () => {
  // The lowest and highest draws bound each step: [ceiling / 2, ceiling].
  expect([1, 2, 3, 4, 5, 9].map((n) => retryDelayMs(n, 1_000, 8_000, 0))).toEqual([500, 1_000, 2_000, 4_000, 4_000, 4_000]);
  expect([1, 2, 3, 4, 5, 9].map((n) => retryDelayMs(n, 1_000, 8_000, 1))).toEqual([1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
  // Draws in between land in between, so nodes failing together do not retry together.
  expect(retryDelayMs(3, 1_000, 8_000, 0.25)).toBe(2_500);
  expect(retryDelayMs(3, 1_000, 8_000, 0.75)).toBe(3_500);
  // A draw outside [0, 1] is held to it.
  expect(retryDelayMs(3, 1_000, 8_000, -1)).toBe(2_000);
  expect(retryDelayMs(3, 1_000, 8_000, 7)).toBe(4_000);
});
