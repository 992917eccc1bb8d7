import { percentile, summary } from './percentiles.ts';

describe('percentile', () => {
  test('is the nearest rank: the smallest sample with at least that fraction at or below it', () => {
    const sorted = Float64Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, 0.5)).toBe(50);
    expect(percentile(sorted, 0.99)).toBe(99);
    expect(percentile(sorted, 1)).toBe(100);
    expect(percentile([3, 7], 0.5)).toBe(3);
    expect(percentile([3, 7], 0.51)).toBe(7);
  });

  test('of one sample is that sample, at any fraction', () => {
    expect(percentile([42], 0)).toBe(42);
    expect(percentile([42], 0.99)).toBe(42);
  });

  test('of no samples is NaN', () => {
    expect(percentile([], 0.5)).toBeNaN();
  });
});

describe('summary', () => {
  test('sorts the samples of several arrays together', () => {
    const s = summary([9, 1, 5], Float64Array.of(3, 7), [2, 4, 6, 8, 10]);
    expect(s).toEqual({ n: 10, p50: 5, p99: 10, max: 10 });
  });

  test('leaves out samples that are not finite (a span cut short)', () => {
    expect(summary([NaN, 2, Infinity, 1])).toEqual({ n: 2, p50: 1, p99: 2, max: 2 });
  });

  test('of nothing counts nothing and has no figures', () => {
    const s = summary([]);
    expect(s.n).toBe(0);
    expect(s.p50).toBeNaN();
    expect(s.max).toBeNaN();
  });

  test('does not reorder the arrays it is given', () => {
    const samples = [3, 1, 2];
    summary(samples);
    expect(samples).toEqual([3, 1, 2]);
  });
});
