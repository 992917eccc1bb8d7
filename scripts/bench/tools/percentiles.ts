/** The value below which a fraction `p` of the sorted samples lie (nearest rank); NaN when there are none. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

export interface Summary {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * The count, median, 99th percentile and maximum of samples in any order, taken from one or more arrays
 * together. A sample that is not a finite number (a span cut short has no end) is left out.
 */
export function summary(...parts: ArrayLike<number>[]): Summary {
  const sorted = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    for (let i = 0; i < part.length; i++) {
      const x = part[i]!;
      if (Number.isFinite(x)) sorted[at++] = x;
    }
  }
  const finite = sorted.subarray(0, at).sort();
  return { n: finite.length, p50: percentile(finite, 0.5), p99: percentile(finite, 0.99), max: finite.length ? finite[finite.length - 1]! : NaN };
}
