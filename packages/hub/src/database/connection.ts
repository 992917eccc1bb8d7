import { AbortedTransactionError, type CompiledQuery, type DatabaseConnection, type QueryResult } from 'kysely';
import type pg from 'pg';
import { InlineError, inlined } from './inline.ts';
import { Prepared, ReadsTogether, RowsWithCommit, WritesWithCommit } from './transaction-plan.ts';

/**
 * One pooled connection as Kysely sees it, sending a transaction's statements in as few round trips as their
 * answers allow. Each statement sent costs the Hub's thread and PostgreSQL a wake-up and a reply, whatever
 * the statement does; under report load a round trip fewer per batch saves more than the batch's validation.
 *
 * The driver (database/dialect.ts) tells the connection when a transaction begins, commits or rolls back;
 * the statements come from Kysely, some of them planned (database/transaction-plan.ts):
 *
 * - BEGIN waits for the transaction's first statement, and rides along with it: a script (reads together,
 *   planned writes) as it is, an ordinary statement with its parameters inlined (database/inline.ts; one it
 *   cannot inline goes after them, bound). A transaction that sends nothing sends nothing.
 * - Writes planned with the commit wait, in order, for the next statement or the COMMIT, and go in its
 *   round trip the same way: statements still run in the order issued.
 * - Other ordinary statements go by the extended protocol, parameters bound; prepared ones under their name.
 *
 * An error in a script fails the statement that carried it and the transaction with it, as it would have
 * alone; rows waiting on that round trip are rejected with it.
 */
export class PlannedConnection implements DatabaseConnection {
  readonly #client: pg.PoolClient;
  /** The BEGIN (or START TRANSACTION) not sent yet, or null. */
  #begin: string | null = null;
  /** Whether a transaction is open on the server. */
  #open = false;
  /** Planned writes and rows, in the order planned, sent before the next statement. */
  #waiting: (WritesWithCommit | RowsWithCommit)[] = [];
  #broken = false;

  constructor(client: pg.PoolClient) {
    this.#client = client;
  }

  begin(statement: string): void {
    this.#begin = statement;
  }

  async commit(): Promise<void> {
    if (this.#begin !== null && this.#waiting.length === 0) {
      // Nothing reached the server, or would: there is no transaction to end.
      this.#begin = null;
      return;
    }
    const results = await this.#sendWithWaiting([{ sql: 'COMMIT', count: 1 }]);
    this.#open = false;
    if (results[0]!.command === 'ROLLBACK') throw new AbortedTransactionError();
  }

  async rollback(): Promise<void> {
    const dropped = new Error('the transaction was rolled back before the statement was sent');
    for (const w of this.#waiting) if (w instanceof RowsWithCommit) w.settle.reject(dropped);
    this.#waiting = [];
    this.#begin = null;
    if (!this.#open) return;
    this.#open = false;
    try {
      await this.#client.query('ROLLBACK');
    } catch (e) {
      this.#broken = true;
      throw e;
    }
  }

  release(): void {
    this.#client.release(this.#broken);
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (query instanceof ReadsTogether) {
      const results = await this.#sendWithWaiting([query]);
      return { rows: results.map((r) => r.rows) as R[] };
    }
    if (query instanceof WritesWithCommit || query instanceof RowsWithCommit) {
      this.#waiting.push(query);
      if (this.#inTransaction()) return { rows: [] };
      await this.#sendWithWaiting([]);
      return { rows: [] };
    }
    if (this.#begin !== null || this.#waiting.length > 0) {
      // The statement rides along with what waits, its parameters inlined, when the inliner can spell them.
      const script = inlinedOrNull(query);
      if (script !== null) return resultOf((await this.#sendWithWaiting([{ sql: script, count: 1 }]))[0]!);
      await this.#sendWithWaiting([]);
    }
    const result = await this.#client.query<any>(
      query instanceof Prepared ? { name: query.name, text: query.sql, values: [...query.parameters] } : { text: query.sql, values: [...query.parameters] },
    );
    return resultOf(result);
  }

  async *streamQuery(): AsyncIterableIterator<QueryResult<never>> {
    throw new Error('the Hub reads no query as a stream');
  }

  #inTransaction(): boolean {
    return this.#begin !== null || this.#open;
  }

  /**
   * Sends, in one simple-protocol round trip, the waiting BEGIN and planned statements followed by `then`,
   * settles the planned rows, and answers the results of `then`'s statements.
   */
  async #sendWithWaiting(then: readonly { sql: string; count: number }[]): Promise<pg.QueryResult[]> {
    const parts = [...(this.#begin !== null ? [{ sql: this.#begin, count: 1 }] : []), ...this.#waiting, ...then];
    const waiting = this.#waiting;
    const opens = this.#begin !== null;
    this.#begin = null;
    this.#waiting = [];
    if (parts.length === 0) return [];
    let results: pg.QueryResult[];
    try {
      const answer = await this.#client.query(parts.map((p) => p.sql).join(';\n'));
      results = Array.isArray(answer) ? answer : [answer];
    } catch (e) {
      for (const w of waiting) if (w instanceof RowsWithCommit) w.settle.reject(e);
      throw e;
    } finally {
      if (opens) this.#open = true;
    }
    const expected = parts.reduce((n, p) => n + p.count, 0);
    if (results.length !== expected) throw new Error(`a script of ${expected} statements answered ${results.length} results`);
    let at = opens ? 1 : 0;
    for (const w of waiting) {
      if (w instanceof RowsWithCommit) w.settle.resolve(results[at]!.rows);
      at += w.count;
    }
    return results.slice(at);
  }
}

/** The statement as a script with its parameters inlined, or null when a parameter cannot be inlined (bytes, NUL). */
function inlinedOrNull(query: CompiledQuery): string | null {
  try {
    return inlined([query]);
  } catch (e) {
    if (e instanceof InlineError) return null;
    throw e;
  }
}

function resultOf<R>({ command, rowCount, rows }: pg.QueryResult): QueryResult<R> {
  const changes = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
  return { rows: rows ?? [], ...(changes ? { numAffectedRows: BigInt(rowCount ?? 0) } : {}) };
}
