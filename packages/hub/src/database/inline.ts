import type { Compilable } from 'kysely';
import pg from 'pg';

/** A compiled parameter as a SQL literal (standard_conforming_strings on; pg's escaping handles quotes and backslashes). */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return pg.escapeLiteral(value.toISOString());
  return text(typeof value === 'string' ? value : JSON.stringify(value));
}

/**
 * A string as a literal. Without a backslash only quotes need doubling, done natively: pg's escapeLiteral
 * walks the string a character at a time in JavaScript, and a batch's append payload is tens of kB.
 */
function text(value: string): string {
  return value.includes('\\') ? pg.escapeLiteral(value) : `'${value.replaceAll("'", "''")}'`;
}

/**
 * Many compiled queries as one script of statements with their parameters inlined as literals: sent as
 * one simple-protocol round trip, they run in order, exactly as one by one would, without a round trip
 * each. For replaying projections, whose queries read nothing back (evolve is pure).
 */
export function inlined(queries: readonly Compilable[]): string {
  return queries
    .map((q) => {
      const { sql, parameters } = q.compile();
      return sql.replace(/\$(\d+)/g, (_, n: string) => literal(parameters[Number(n) - 1]));
    })
    .join(';\n');
}
