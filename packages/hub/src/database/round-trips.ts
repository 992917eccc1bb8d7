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
 * - A statement sent `withCommit` inside a transaction is deferred too, and its rows come back when the
 *   round trip that carried it answers: a write whose result only matters once it is committed (a batch
 *   of reports' append) costs no round trip of its own.
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

const WITH_COMMIT = /^\/\* with commit (\d+) \*\//;

/** The rows of statements sent withCommit, by id, until the round trip that carries them answers. */
const awaitingRows = new Map<string, { resolve(rows: unknown[]): void; reject(error: unknown): void }>();
/** Ids whose statement a connection deferred, until withCommit has seen it was. */
const deferredIds = new Set<string>();
let lastId = 0;

/**
 * Sends a statement that reads its rows back, deferred in a transaction like the scripts above: it goes
 * with the next round trip of the transaction, usually its commit. Resolves once it is queued, to the
 * promise of its rows. Those rows arrive with that round trip; if it fails, or the transaction is rolled back
 * first, the promise is rejected, and the commit fails as the statement would have failed the transaction.
 * One statement at a time waits: sending a second first sends what waits.
 */
export async function withCommit<R>(db: Kysely<any>, query: Compilable<R>): Promise<{ rows: Promise<R[]> }> {
  const id = String(++lastId);
  const rows = new Promise<unknown[]>((resolve, reject) => awaitingRows.set(id, { resolve, reject }));
  // Seen by the caller through the commit: a rejection here is never the only report of a failure.
  rows.catch(() => {});
  try {
    const ran = await sql.raw<R>(`/* with commit ${id} */\n${inlined([query])}`).execute(db);
    // Not deferred (no transaction): it ran, and its rows are here.
    if (!deferredIds.delete(id)) settle(id, (w) => w.resolve(ran.rows));
  } catch (e) {
    deferredIds.delete(id);
    settle(id, (w) => w.reject(e));
    throw e;
  }
  return { rows: rows as Promise<R[]> };
}

/** Read queries sent as one script: one round trip, each query's rows in order. */
export async function together<R extends readonly unknown[]>(db: Kysely<any>, queries: { [K in keyof R]: Compilable<R[K]> }): Promise<{ [K in keyof R]: R[K][] }> {
  const { rows } = await sql.raw<unknown[]>(`${TOGETHER}\n${inlined(queries)}`).execute(db);
  return rows as unknown as { [K in keyof R]: R[K][] };
}

type Query = (text: unknown, ...rest: unknown[]) => Promise<pg.QueryResult | pg.QueryResult[]>;

const empty = (command: string | null): pg.QueryResult => ({ command: command!, rowCount: null, rows: [], fields: [], oid: 0 });
const asList = (r: pg.QueryResult | pg.QueryResult[]) => (Array.isArray(r) ? r : [r]);

function settle(id: string, answer: (waiting: { resolve(rows: unknown[]): void; reject(error: unknown): void }) => void): void {
  const waiting = awaitingRows.get(id);
  awaitingRows.delete(id);
  if (waiting) answer(waiting);
}

/** Installs the above on one pooled client. */
export function fewerRoundTrips(client: pg.PoolClient): void {
  const send = client.query.bind(client) as unknown as Query;
  let inTransaction = false;
  let beginPending = false;
  let deferred: string[] = [];
  /** The id of a withCommit statement waiting, always the first of `deferred`. */
  let rowsFor: string | null = null;

  /** What waits, as statements to put before the next one. */
  const waiting = () => [...(beginPending ? ['BEGIN'] : []), ...deferred];
  const clear = () => {
    beginPending = false;
    deferred = [];
  };

  /** Sends statements (what waited first), answering a waiting withCommit statement with its rows. */
  const sendWaiting = async (statements: string[]): Promise<pg.QueryResult[]> => {
    const id = rowsFor;
    const at = beginPending ? 1 : 0;
    rowsFor = null;
    clear();
    try {
      const results = asList(await send(statements.join(';\n')));
      if (id !== null) settle(id, (w) => w.resolve(results[at]!.rows));
      return results;
    } catch (e) {
      if (id !== null) settle(id, (w) => w.reject(e));
      throw e;
    }
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
      const started = !beginPending;
      if (statement === ROLLBACK) {
        // A rollback drops what waits.
        if (rowsFor !== null) settle(rowsFor, (w) => w.reject(new Error('the transaction was rolled back before the statement was sent')));
        rowsFor = null;
        clear();
        return started ? send(ROLLBACK) : empty('ROLLBACK');
      }
      // A commit sends what waits first, in the same round trip. Nothing reached the server, or would: there
      // is no transaction to end.
      if (!started && deferred.length === 0) {
        clear();
        return empty('COMMIT');
      }
      return (await sendWaiting([...waiting(), statement])).at(-1);
    }
    const rowsId = WITH_COMMIT.exec(statement)?.[1];
    if (rowsId !== undefined && inTransaction) {
      if (deferred.length > 0) await flush();
      deferredIds.add(rowsId);
      rowsFor = rowsId;
      deferred.push(statement);
      return empty(null);
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
    await sendWaiting(waiting());
  }

  (client as { query: unknown }).query = query;
}
