import type { CompiledQuery } from 'kysely';
import { prepareValue } from 'pg/lib/utils.js';

/**
 * Compiled queries as one script of statements with their parameters inlined as literals: sent by the
 * simple protocol, several statements share one round trip (database/connection.ts).
 *
 * Every parameter becomes a quoted literal of the text pg would send for it bound. pg sends it with no
 * declared type, which PostgreSQL infers from where it stands, as it does for a quoted literal: `x = $1`,
 * `$1::jsonb` and `LIMIT $1` mean the same inlined as bound. Only placeholders outside quoted text, quoted identifiers, dollar quotes and comments are
 * replaced. A value PostgreSQL's text cannot hold as given (a NUL, an unpaired surrogate, raw bytes) is
 * refused with an InlineError rather than sent altered.
 */
export function inlined(queries: readonly CompiledQuery[]): string {
  return queries.map(inlineParameters).join(';\n');
}

/**
 * A statement prepared under `name` (PREPARE) run with its parameters inlined: `EXECUTE name('a', '2')`. Each
 * literal takes the type PostgreSQL inferred for its parameter when it prepared the statement, as a bound
 * parameter of no declared type does.
 */
export function inlinedExecute(name: string, parameters: readonly unknown[]): string {
  return parameters.length === 0 ? `EXECUTE ${name}` : `EXECUTE ${name}(${parameters.map(literal).join(', ')})`;
}

export class InlineError extends Error {
  constructor(message: string) {
    super(`cannot inline a query parameter: ${message}`);
    this.name = 'InlineError';
  }
}

// Quoted text (E'' with backslash escapes, or standard), quoted identifiers, comments, dollar quotes, and
// the placeholders between them. Placeholders are the only captured alternative.
const TOKENS = /[eE]'(?:[^'\\]|\\[\s\S]|'')*'|'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?\*\/|(?<![\w$])\$(\d+)|(?<![\w$])\$([A-Za-z_]\w*)?\$[\s\S]*?\$\2\$/g;

function inlineParameters({ sql, parameters }: CompiledQuery): string {
  if (parameters.length === 0) return sql;
  return sql.replace(TOKENS, (token, n: string | undefined) => {
    if (n === undefined) return token;
    const index = Number(n) - 1;
    if (index < 0 || index >= parameters.length) throw new InlineError(`$${n} has no value`);
    return literal(parameters[index]);
  });
}

/** A parameter as the literal of its text (standard_conforming_strings is on, PostgreSQL's default). */
function literal(value: unknown): string {
  const text = asText(value);
  return text === null ? 'NULL' : quoted(text);
}

/** The text pg sends for a parameter (its own conversion: dates, arrays, JSON), or null for NULL. */
function asText(value: unknown): string | null {
  if (value instanceof Date && Number.isNaN(value.getTime())) throw new InlineError('an invalid date');
  const text = prepareValue(value);
  if (Buffer.isBuffer(text)) throw new InlineError('raw bytes are sent bound, never inlined');
  return text;
}

/**
 * Text as a literal. Without a backslash only quotes need doubling; with one, the E'' form escapes it. A
 * batch's append payload is tens of kB, so the common case stays one native replace.
 */
function quoted(text: string): string {
  if (text.includes('\0')) throw new InlineError('text holds a NUL character, which PostgreSQL text cannot hold');
  if (!text.isWellFormed()) throw new InlineError('text holds an unpaired surrogate, which UTF-8 cannot encode');
  const doubled = text.replaceAll("'", "''");
  return text.includes('\\') ? ` E'${doubled.replaceAll('\\', '\\\\')}'` : `'${doubled}'`;
}
