import { count, percent, table, verdict } from './format.ts';

/**
 * A goal as the benchmarks print it: normalised by the raw rate of the same run (PostgreSQL inserts on
 * the same database, in the same minutes), because this machine's speed changes by several times from
 * one hour to the next. Two runs in different hours compare by `rate / raw`, not by `rate`.
 */
export interface Goal {
  /** What the goal asks, in words. */
  goal: string;
  /** The run's figures, as the benchmark prints them (e.g. `N reports/s, p99 M ms`). */
  measured: string;
  /** The run's rate the goal is about, per second; null for a goal on latency alone. */
  rate: number | null;
  /** The raw rate of the same run, per second. */
  raw: number;
  /** The lowest `rate / raw` that meets the goal; null for a goal on latency alone. */
  ratio: number | null;
  /** The goal's other conditions (a latency bound, nothing lost), met or not. */
  holds?: boolean;
}

/**
 * A goal stated as a rate in an hour of a given raw rate (e.g. 5,000 reports/s where raw inserts reach
 * 7,000/s), as a ratio of raw.
 */
export function ratioOfRaw(rate: number, whereRawReaches: number): number {
  return rate / whereRawReaches;
}

/** Whether the run meets the goal: its rate as a share of raw at least the goal's, and its other conditions. */
export function met(g: Goal): boolean {
  const fast = g.rate === null || g.ratio === null || (g.raw > 0 && g.rate / g.raw >= g.ratio);
  return fast && g.holds !== false;
}

/** The goal rows of a report: the absolute figure, the same run's raw rate, the ratio, the goal's ratio, the verdict. */
export function goalTable(goals: readonly Goal[], raw = 'raw inserts/s, same run'): string[] {
  return table(
    ['goal', 'measured', raw, 'measured / raw', 'goal / raw', 'verdict'],
    goals.map((g) => [
      g.goal,
      g.measured,
      count(g.raw),
      // A decimal, so that a ratio just short of its goal does not print as the goal.
      g.rate === null ? '–' : percent(g.rate / g.raw, 1),
      g.ratio === null ? '–' : `≥ ${percent(g.ratio, 1)}`,
      verdict(met(g)),
    ]),
  );
}
