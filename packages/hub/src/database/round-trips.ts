import { CompiledQuery, sql, type Compilable, type Kysely } from 'kysely';
import type pg from 'pg';
import { inlined } from './inline.ts';

/**
 * Fewer round trips per transaction. Each statement sent costs the Hub's thread and PostgreSQL a wake-up
 * and a reply, whatever the statement does: measured under report load, one query fewer in a batch of
 * reports saved more Hub CPU than the report's whole validation. So, on every pooled connection:
 *
 * - A transaction's `begin` waits for its first statement and rides along with it when that statement is a
 *   script of several (`together`), or goes just before it otherwise. A transaction that sends nothing sends
 *   nothing at all.
 * - A script tagged `deferred` inside a transaction (the projections' writes, which read nothing back)
 *   waits for the next statement, or for the `commit`, and goes in the same round trip as the commit.
 *   Before any other statement it is sent first, so statements still run in the order they were issued.
 *   Outside a transaction it runs at once.
 * - A script tagged `together` answers with each of its statements' rows.
 *
 * Scripts are sent by the simple protocol (parameters inlined as literals), which is what lets several
 * statements share a round trip; an error in any of them fails the statement that carried it, and the
 * transaction with it, as it would have alone.
 */
const DEFERRED = '/* deferred */';
const TOGETHER = '/* together */';

/** Kysely's own transaction statements (PostgresDriver). */
const BEGIN = 'begin';
const COMMIT = 'commit';
const ROLLBACK = 'rollback';

/** Statements that change the tables, sent with the next round trip of the transaction (or its commit). */
export function deferredScript(queries: readonly Compilable[]) {
  return sql.raw(`${DEFERRED}\n${inlined(queries)}`);
}

/**
 * A database adapter for pg-boss whose statements (job inserts, read nothing back) are deferred like the
 * scripts above: in a transaction they go with its commit.
 */
export function deferringAdapter(db: Kysely<any>) {
  return {
    async executeSql(text: string, values?: unknown[]) {
      await deferredScript([{ compile: () => CompiledQuery.raw(text, values ?? []) }]).execute(db);
      return { rows: [] };
    },
  };
}

/** Read queries sent as one script: one round trip, each query's rows in order. */
export async function together<R extends readonly unknown[]>(db: Kysely<any>, queries: { [K in keyof R]: Compilable<R[K]> }): Promise<{ [K in keyof R]: R[K][] }> {
  const { rows } = await sql.raw<unknown[]>(`${TOGETHER}\n${inlined(queries)}`).execute(db);
  return rows as unknown as { [K in keyof R]: R[K][] };
}

type Query = (text: unknown, ...rest: unknown[]) => Promise<pg.QueryResult | pg.QueryResult[]>;

const empty = (command: string | null): pg.QueryResult => ({ command: command!, rowCount: null, rows: [], fields: [], oid: 0 });
const asList = (r: pg.QueryResult | pg.QueryResult[]) => (Array.isArray(r) ? r : [r]);

/** Installs the above on one pooled client. */
export function fewerRoundTrips(client: pg.PoolClient): void {
  const send = client.query.bind(client) as unknown as Query;
  let inTransaction = false;
  let beginPending = false;
  let deferred: string[] = [];

  /** What waits, as statements to put before the next one. */
  const waiting = () => [...(beginPending ? ['BEGIN'] : []), ...deferred];
  const clear = () => {
    beginPending = false;
    deferred = [];
  };

  const query = async (text: unknown, ...rest: unknown[]): Promise<unknown> => {
    const simple = typeof text === 'string' && (rest[0] === undefined || (Array.isArray(rest[0]) && rest[0].length === 0));
    if (!simple || typeof rest.at(-1) === 'function') {
      if (beginPending || deferred.length > 0) await flush();
      return send(text, ...rest);
    }
    const statement = text as string;
    if (statement === BEGIN && !inTransaction) {
      inTransaction = true;
      beginPending = true;
      return empty('BEGIN');
    }
    if (statement === COMMIT || statement === ROLLBACK) {
      inTransaction = false;
      // A rollback drops what waits; a commit sends it first, in the same round trip.
      const before = statement === COMMIT ? waiting() : [];
      const started = !beginPending;
      clear();
      // Nothing reached the server, or would: there is no transaction to end.
      if (!started && before.length <= 1) return empty(statement === COMMIT ? 'COMMIT' : 'ROLLBACK');
      return asList(await send([...before, statement].join(';\n'))).at(-1);
    }
    if (statement.startsWith(DEFERRED) && inTransaction) {
      deferred.push(statement);
      return empty(null);
    }
    if (statement.startsWith(TOGETHER)) {
      if (deferred.length > 0) await flush();
      const begin = beginPending;
      clear();
      const results = asList(await send(begin ? `BEGIN;\n${statement}` : statement));
      return { ...empty('SELECT'), rows: results.slice(begin ? 1 : 0).map((r) => r.rows) };
    }
    if (beginPending || deferred.length > 0) await flush();
    return send(statement, ...rest);
  };

  async function flush(): Promise<void> {
    const statements = waiting();
    clear();
    await send(statements.join(';\n'));
  }

  (client as { query: unknown }).query = query;
}
