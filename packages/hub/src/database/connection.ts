import { AbortedTransactionError, type CompiledQuery, type DatabaseConnection, type QueryResult } from 'kysely';
import type pg from 'pg';
import { InlineError, inlined, inlinedExecute } from './inline.ts';
import { SessionStatements } from './session-statements.ts';
import { Prepared, ReadsTogether, RowsWithCommit, WritesWithCommit } from './transaction-plan.ts';

/**
 * The statements each client's session holds. Kept by client, not by driver or connection object: a session's
 * prepared statements are the client's, whichever Kysely instance sends on it, and they go with it when the
 * pool closes it.
 */
const preparedIn = new WeakMap<pg.PoolClient, SessionStatements>();

/** Statements named by their text a session keeps at most (transaction-plan.ts, preparedByText). */
export const BY_TEXT_LIMIT = 128;

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
 * - Other ordinary statements go by the extended protocol, parameters bound.
 * - A prepared statement (transaction-plan.ts, Prepared), alone or in a script, is EXECUTEd by name, its
 *   parameters inlined. The first time on a connection, its PREPARE goes in a message of its own just before the
 *   round trip that runs it: PostgreSQL keeps the whole text of the message that prepared a statement and
 *   copies it on every EXECUTE, so a PREPARE inside a script (a batch's append with its payload, a rollout
 *   batch's projections) made every later run copy that script. When a session holds more than BY_TEXT_LIMIT
 *   statements named by their text, the message that prepares one more first DEALLOCATEs the least recently
 *   used that nothing waiting to be sent runs.
 *
 * An error in a script fails the statement that carried it and the transaction with it, as it would have
 * alone; rows waiting on that round trip are rejected with it. A failed PREPARE or DEALLOCATE leaves unknown
 * which statements the server holds: the connection is then closed, not pooled again; so is one whose
 * transaction is given up with a DEALLOCATE planned and never sent.
 */
export class PlannedConnection implements DatabaseConnection {
  readonly #client: pg.PoolClient;
  readonly #onDeallocated: (count: number) => void;
  /** The statements prepared in this client's session. */
  readonly #prepared: SessionStatements;
  /** The BEGIN (or START TRANSACTION) not sent yet, or null. */
  #begin: string | null = null;
  /** Whether a transaction is open on the server. */
  #open = false;
  /** Planned writes and rows, in the order planned, as they will be sent before the next statement. */
  #waiting: Waiting[] = [];
  #broken = false;

  constructor(client: pg.PoolClient, onDeallocated: (count: number) => void) {
    this.#client = client;
    this.#onDeallocated = onDeallocated;
    let prepared = preparedIn.get(client);
    if (!prepared) preparedIn.set(client, (prepared = new SessionStatements(BY_TEXT_LIMIT)));
    this.#prepared = prepared;
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
    const results = await this.#sendWithWaiting(plain('COMMIT'));
    this.#open = false;
    if (results[0]!.command === 'ROLLBACK') throw new AbortedTransactionError();
  }

  async rollback(): Promise<void> {
    const dropped = new Error('the transaction was rolled back before the statement was sent');
    for (const w of this.#waiting) {
      if (w.step instanceof RowsWithCommit) w.step.settle.reject(dropped);
      // Never sent: the statements it would have prepared are not on the server, and those it would have
      // deallocated still are, which the session no longer counts: the connection is closed.
      this.#prepared.forget(w.script.prepares);
      if (w.script.deallocates > 0) this.#broken = true;
    }
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
      const results = await this.#sendWithWaiting(this.#script(query.statements));
      return { rows: results.map((r) => r.rows) as R[] };
    }
    if (query instanceof WritesWithCommit || query instanceof RowsWithCommit) {
      this.#waiting.push({ step: query, script: this.#script(query.statements) });
      if (this.#inTransaction()) return { rows: [] };
      await this.#sendWithWaiting(NOTHING);
      return { rows: [] };
    }
    if (query instanceof Prepared || this.#begin !== null || this.#waiting.length > 0) {
      // The statement rides along with what waits, its parameters inlined, when the inliner can spell them.
      const script = this.#scriptOrNull(query);
      if (script !== null) return resultOf((await this.#sendWithWaiting(script))[0]!);
      await this.#sendWithWaiting(NOTHING);
    }
    return resultOf(await this.#client.query<any>({ text: query.sql, values: [...query.parameters] }));
  }

  async *streamQuery(): AsyncIterableIterator<QueryResult<never>> {
    throw new Error('the Hub reads no query as a stream');
  }

  #inTransaction(): boolean {
    return this.#begin !== null || this.#open;
  }

  /**
   * Statements spelled as a script: each prepared one as its EXECUTE; what the session must prepare first (the
   * PREPAREs of names this connection has not sent yet, after the DEALLOCATEs that keep its statements named by
   * their text within their bound) goes apart, as the script's setup. A name counts as prepared from here: a
   * later script relies on this one's setup going first, and rollback forgets it if this one is never sent.
   */
  #script(statements: readonly CompiledQuery[]): Script {
    const preparing = new Map<string, { text: string; byText: boolean }>();
    const runs = new Set<string>();
    const texts = statements.map((statement) => {
      if (!(statement instanceof Prepared)) return inlined([statement]);
      runs.add(statement.name);
      const known = preparing.get(statement.name)?.text ?? this.#prepared.use(statement.name);
      if (known !== undefined && known !== statement.sql) throw new Error(`prepared statement ${statement.name} was given another text`);
      if (known === undefined) preparing.set(statement.name, { text: statement.sql, byText: statement.byText });
      return inlinedExecute(statement.name, statement.parameters);
    });
    // Only once the whole script is spelled: a statement it cannot spell leaves nothing counted as prepared. What
    // waits to be sent runs before this script, after every setup: none of its names may go.
    const keep = new Set([...runs, ...this.#waiting.flatMap((w) => [...w.script.runs])]);
    const evicted = this.#prepared.add(preparing, keep);
    const setup = [...evicted.map((name) => `DEALLOCATE ${name}`), ...[...preparing].map(([name, { text }]) => `PREPARE ${name} AS ${text}`)];
    return { sql: texts.join(';\n'), setup, prepares: [...preparing.keys()], deallocates: evicted.length, runs, count: statements.length };
  }

  /** The statement as a script, or null when a parameter cannot be inlined (bytes, NUL): it is then sent bound. */
  #scriptOrNull(query: CompiledQuery): Script | null {
    try {
      return query instanceof Prepared ? this.#script([query]) : plain(inlined([query]));
    } catch (e) {
      if (e instanceof InlineError) return null;
      throw e;
    }
  }

  /**
   * Sends, in one simple-protocol round trip, the waiting BEGIN and planned statements followed by `then`,
   * settles the planned rows, and answers the results of `then`'s statements. Their setup, if any, goes just
   * before, in a round trip of its own: once per statement and session.
   */
  async #sendWithWaiting(then: Script): Promise<pg.QueryResult[]> {
    const scripts = [...(this.#begin !== null ? [plain(this.#begin)] : []), ...this.#waiting.map((w) => w.script), then];
    const waiting = this.#waiting;
    const opens = this.#begin !== null;
    this.#begin = null;
    this.#waiting = [];
    if (scripts.every((p) => p.count === 0)) return [];
    const rejectWaiting = (e: unknown) => {
      for (const w of waiting) if (w.step instanceof RowsWithCommit) w.step.settle.reject(e);
    };
    const setup = scripts.flatMap((p) => p.setup);
    if (setup.length > 0) {
      try {
        await this.#client.query(setup.join(';\n'));
      } catch (e) {
        rejectWaiting(e);
        this.#broken = true;
        throw e;
      }
      const deallocated = scripts.reduce((n, p) => n + p.deallocates, 0);
      if (deallocated > 0) this.#onDeallocated(deallocated);
    }
    let results: pg.QueryResult[];
    try {
      const answer = await this.#client.query(scripts.flatMap((p) => (p.count > 0 ? [p.sql] : [])).join(';\n'));
      results = Array.isArray(answer) ? answer : [answer];
    } catch (e) {
      rejectWaiting(e);
      if (stalePlan(e)) this.#broken = true;
      throw e;
    } finally {
      if (opens) this.#open = true;
    }
    const expected = scripts.reduce((n, p) => n + p.count, 0);
    if (results.length !== expected) throw new Error(`a script of ${expected} statements answered ${results.length} results`);
    const answers = scripts.map((p) => results.splice(0, p.count));
    waiting.forEach((w, i) => {
      if (w.step instanceof RowsWithCommit) w.step.settle.resolve(answers[(opens ? 1 : 0) + i]![0]!.rows);
    });
    return answers.at(-1)!;
  }
}

/**
 * A prepared statement whose tables changed shape under it (a migration by a newer Hub added a column its
 * `SELECT *` reads): PostgreSQL refuses to run it again, here as on every later try. Identified by the server
 * function that refuses (its message may be translated). The connection is closed, so a command run again
 * prepares it anew (commands/retry.ts).
 */
export function stalePlan(e: unknown): boolean {
  const { code, routine } = e as { code?: string; routine?: string };
  return code === '0A000' && routine === 'RevalidateCachedQuery';
}

/** Statements spelled for the simple protocol, `count` results, and what the session must prepare before them. */
interface Script {
  sql: string;
  /** DEALLOCATEs, then PREPAREs, sent before the script. */
  setup: readonly string[];
  /** The names the setup prepares. */
  prepares: readonly string[];
  /** How many statements the setup deallocates. */
  deallocates: number;
  /** The prepared statements the script runs. */
  runs: ReadonlySet<string>;
  count: number;
}

interface Waiting {
  step: WritesWithCommit | RowsWithCommit;
  script: Script;
}

const NOTHING: Script = { sql: '', setup: [], prepares: [], deallocates: 0, runs: new Set(), count: 0 };

const plain = (sql: string): Script => ({ sql, setup: [], prepares: [], deallocates: 0, runs: new Set(), count: 1 });

function resultOf<R>({ command, rowCount, rows }: pg.QueryResult): QueryResult<R> {
  const changes = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
  return { rows: rows ?? [], ...(changes ? { numAffectedRows: BigInt(rowCount ?? 0) } : {}) };
}
