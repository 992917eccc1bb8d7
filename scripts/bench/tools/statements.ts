import type pg from 'pg';
import { codeCell, count, table } from './format.ts';

/**
 * PostgreSQL's side of a measured span, from pg_stat_statements, when the server preloads it (an embedded
 * server does not; FLEETPLANE_BENCH_DATABASE_URL names one that does).
 */
export interface Statement {
  /** The normalised text, its whitespace folded. */
  query: string;
  calls: number;
  /** Execution and planning time, ms. */
  ms: number;
  /** Of which planning, ms: zero unless the server sets pg_stat_statements.track_planning. */
  planMs: number;
}

/** Resets the counters before a span; false when the server does not track statements. */
export async function resetStatements(pool: pg.Pool): Promise<boolean> {
  try {
    await pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await pool.query('SELECT pg_stat_statements_reset()');
    return true;
  } catch {
    return false;
  }
}

/**
 * The span's top-level statements on this database, most server time first, but the benchmark's own:
 * its raw inserts, these queries, and any statement containing one of `alsoOurs`.
 */
export async function topStatements(pool: pg.Pool, alsoOurs: readonly string[] = []): Promise<Statement[]> {
  const { rows } = await pool.query<{ query: string; calls: string; ms: number; plan_ms: number }>(
    `SELECT query, calls, total_exec_time + total_plan_time AS ms, total_plan_time AS plan_ms
       FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND toplevel
        AND query NOT LIKE '%bench_raw%' AND query NOT LIKE '%pg_stat_%'
      ORDER BY ms DESC`,
  );
  return rows
    .map((r) => ({ query: r.query.replace(/\s+/g, ' ').trim(), calls: Number(r.calls), ms: Number(r.ms), planMs: Number(r.plan_ms) }))
    .filter((s) => !alsoOurs.some((text) => s.query.includes(text)));
}

/**
 * The statements of a span per unit of its work (`units` of it, e.g. accepted reports or rollout
 * targets): in all, then the `top` that took the most server time.
 */
export function statementsTable(span: string, statements: readonly Statement[], units: number, unit: string, top = 12): string[] {
  const sum = (f: (s: Statement) => number) => statements.reduce((a, s) => a + f(s), 0);
  const perUnit = (ms: number) => count((ms / units) * 1000);
  return [
    `PostgreSQL statements ${span} (pg_stat_statements, top level, all sessions on the database): ` +
      `${(sum((s) => s.calls) / units).toFixed(1)} statements and ${perUnit(sum((s) => s.ms))} µs of execution + planning per ${unit}, ` +
      `of which planning ${perUnit(sum((s) => s.planMs))} µs (tracked only where the server sets pg_stat_statements.track_planning)`,
    '',
    ...table(
      ['statement', `calls per ${unit}`, `µs per ${unit} (exec + plan)`, `of which planning`, 'µs per call'],
      statements.slice(0, top).map((s) => [codeCell(s.query), (s.calls / units).toFixed(2), perUnit(s.ms), perUnit(s.planMs), count((s.ms / s.calls) * 1000)]),
    ),
    '',
  ];
}
