import { goalTable, met, ratioOfRaw, type Goal } from './goals.ts';

const appends: Goal = { goal: 'single-event appends at 8 clients', measured: '3,769 appends/s', rate: 3_769, raw: 7_603, ratio: 0.5 };

test('a goal stated in an hour of a given raw rate is that share of raw', () => {
  expect(ratioOfRaw(5_000, 7_000)).toBeCloseTo(0.714, 3);
  // 10,000 nodes in 30 s where raw reaches 10,000/s, and in 60 s where it reaches 5,000/s: the same goal.
  expect(ratioOfRaw(10_000 / 30, 10_000)).toBeCloseTo(ratioOfRaw(10_000 / 60, 5_000), 12);
});

test('a rate goal is met when the rate is at least its share of the same run\'s raw rate', () => {
  expect(met(appends)).toBe(false); // 49.6%
  expect(met({ ...appends, rate: 3_802 })).toBe(true);
  // The same Hub in an hour twice as fast, at twice the rate: the same verdict.
  expect(met({ ...appends, rate: 2 * 3_802, raw: 2 * 7_603 })).toBe(true);
});

test('a goal is not met when its other conditions fail, whatever its rate', () => {
  expect(met({ ...appends, rate: 7_000, holds: false })).toBe(false);
  expect(met({ ...appends, rate: 7_000, holds: true })).toBe(true);
});

test('a latency goal is judged by its conditions alone', () => {
  const latency: Goal = { goal: 'p99 ≤ 100 ms', measured: 'p99 25.0 ms', rate: null, raw: 15_000, ratio: null, holds: true };
  expect(met(latency)).toBe(true);
  expect(met({ ...latency, holds: false })).toBe(false);
});

test('without a raw rate no rate goal is met', () => {
  expect(met({ ...appends, raw: 0 })).toBe(false);
  expect(met({ ...appends, raw: NaN })).toBe(false);
});

test('the goal table prints the absolute figure, the raw rate, both ratios and the verdict', () => {
  const latency: Goal = { goal: 'idle p99 ≤ 100 ms', measured: 'p99 25.0 ms', rate: null, raw: 15_381, ratio: null, holds: true };
  expect(goalTable([appends, latency])).toEqual([
    '| goal | measured | raw inserts/s, same run | measured / raw | goal / raw | verdict |',
    '| --- | --- | --- | --- | --- | --- |',
    '| single-event appends at 8 clients | 3,769 appends/s | 7,603 | 49.6% | ≥ 50.0% | BELOW |',
    '| idle p99 ≤ 100 ms | p99 25.0 ms | 15,381 | – | – | PASS |',
  ]);
  expect(goalTable([], 'raw rows/s')[0]).toContain('| raw rows/s |');
});
