import { createHash } from 'node:crypto';
import { CompiledQuery, sql, type Compilable, type Expression, type Kysely, type RawBuilder, type RootOperationNode } from 'kysely';
import { inlined } from './inline.ts';

/**
 * The kinds of statement a transaction plans, besides the ordinary ones it sends and awaits. Each is a
 * compiled query of a class of its own, run like any other (`db.executeQuery`); the connection layer
 * (database/connection.ts) tells them apart by class and decides when they reach the server:
 *
 * - `ReadsTogether`: reads sent as one script, one round trip; a transaction's BEGIN rides along.
 * - `WritesWithCommit`: writes that read nothing back (projections, job inserts, barriers, row locks taken
 *   ahead), sent with the transaction's commit, or before its next statement if one comes first. Outside a transaction they run
 *   at once. Their error is the commit's.
 * - `RowsWithCommit`: one statement whose rows matter only once it commits (a batch of reports' append),
 *   sent like the writes; its rows arrive with the round trip that carried it.
 * - `Prepared`: a hot statement, prepared once per connection under its name and executed by name wherever it
 *   goes: alone, or as one statement of any of the above. Named in the code (`prepared`), or by its text
 *   (`preparedByText`), of which a session keeps a bounded number (database/session-statements.ts).
 *
 * The scripts go by the simple protocol with their parameters inlined (database/inline.ts).
 */
abstract class Step implements CompiledQuery {
  readonly query: RootOperationNode;
  readonly queryId: CompiledQuery['queryId'];
  readonly parameters: readonly unknown[] = [];
  /** What the step sends, in order; the connection spells each (inlined, or executed by name). */
  readonly statements: readonly CompiledQuery[];

  constructor(statements: readonly CompiledQuery[]) {
    const raw = CompiledQuery.raw('');
    this.query = raw.query;
    this.queryId = raw.queryId;
    this.statements = statements;
  }

  /** The step as one script with its parameters inlined, as a log would show it. */
  get sql(): string {
    return inlined(this.statements);
  }

  get count(): number {
    return this.statements.length;
  }
}

export class ReadsTogether extends Step {}

export class WritesWithCommit extends Step {}

export class RowsWithCommit<R = unknown> extends Step {
  /** Settled by the connection once the round trip that carried the statement answers, or it is dropped. */
  readonly rows: Promise<R[]>;
  readonly settle: { resolve(rows: R[]): void; reject(error: unknown): void };

  constructor(statement: CompiledQuery) {
    super([statement]);
    const { promise, resolve, reject } = Promise.withResolvers<R[]>();
    this.rows = promise;
    this.settle = { resolve, reject };
    // The commit reports the failure too: a rejection here is never its only report.
    promise.catch(() => {});
  }
}

/**
 * A statement PostgreSQL parses and plans once per connection (PREPARE), then runs by name (EXECUTE) with its
 * parameters inlined: a script's statements are otherwise planned on every run, which for a reconcile pass's
 * reads costs the server more than running them. A name stands for one text, and the connection refuses another
 * under it. `byText`: the name is drawn from the text, and the session keeps such statements up to a bound.
 */
export class Prepared implements CompiledQuery {
  readonly query: RootOperationNode;
  readonly queryId: CompiledQuery['queryId'];
  readonly sql: string;
  readonly parameters: readonly unknown[];
  readonly name: string;
  readonly byText: boolean;

  constructor(name: string, statement: CompiledQuery, byText = false) {
    if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`a prepared statement's name is lower-case letters, digits and _: ${name}`);
    this.query = statement.query;
    this.queryId = statement.queryId;
    this.sql = statement.sql;
    this.parameters = statement.parameters;
    this.name = name;
    this.byText = byText;
  }
}

/**
 * Constants written into a statement's text instead of bound: a prepared statement's plan is made once for
 * every value of its parameters, so a constant passed as one (an intent's states) hides what the planner needs
 * (which partial index applies, how few rows match) and PostgreSQL plans it again on every run instead.
 */
export function literals<T extends string | number>(values: readonly T[]): RawBuilder<T>[] {
  return values.map((v) => sql.lit(v));
}

/**
 * `column = any(array(subquery))`: the rows a subquery names, each found by the column's index. Written as
 * `column IN (subquery)`, a prepared statement's generic plan may hash the subquery and scan the whole table
 * instead (it guesses a set-returning function's rows, a placement's nodes, at a hundred), and inside an OR
 * it filters every row.
 */
export function namedBy(column: string, subquery: Expression<unknown>): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(column)} = any(array(${subquery}))`;
}

/**
 * `statement`, prepared once per connection under `name` (see Prepared): usable wherever a query is. For
 * statements of one text on every call (no list whose length varies): a session keeps them for its life.
 */
export function prepared<R>(name: string, statement: Compilable<R>): Compilable<R> {
  return { compile: () => new Prepared(name, statement.compile()) as CompiledQuery<R> };
}

/**
 * What a key column is compared with (`=`): one key by equality, for which PostgreSQL soon keeps one plan of a
 * prepared statement for every key; several (or none) as one array, whose length a plan made for any value
 * cannot know, so that statement is planned on each run, once for all its keys. Either way the text does not
 * depend on the keys.
 */
export function keyMatch(keys: readonly string[]): RawBuilder<string> {
  return keys.length === 1 ? sql<string>`${keys[0]!}` : sql<string>`any(${keys})`;
}

/** keyMatch for the prepared statements of a load by keys (a pass's nodes, a write's streams), and their names under `one` or `many`. */
export function keyed(keys: readonly string[], one: string, many: string): { match: RawBuilder<string>; name: (statement: string) => string } {
  return { match: keyMatch(keys), name: (statement) => `${keys.length === 1 ? one : many}_${statement}` };
}

/**
 * `statement`, prepared under a name drawn from its text (`kind_` and a digest): for statements whose texts are
 * many but each recurs (a projection's, one text per set of columns or length of a list; a job insert's, one per
 * queue). A session keeps the most recently used of them (database/session-statements.ts).
 */
export function preparedByText<R>(kind: string, statement: Compilable<R>): Compilable<R> {
  return {
    compile: () => {
      const compiled = statement.compile();
      return new Prepared(`${kind}_${createHash('sha256').update(compiled.sql).digest('hex').slice(0, 16)}`, compiled, true) as CompiledQuery<R>;
    },
  };
}

/** Reads sent as one script: one round trip, each read's rows in order. */
export async function together<R extends readonly unknown[]>(db: Kysely<any>, reads: { [K in keyof R]: Compilable<R[K]> }): Promise<{ [K in keyof R]: R[K][] }> {
  const { rows } = await db.executeQuery(new ReadsTogether(reads.map((q) => q.compile())));
  return rows as unknown as { [K in keyof R]: R[K][] };
}

/**
 * Writes sent with the transaction's commit, or ahead of its next statement (at once outside a transaction);
 * resolves once they are planned. Row locks whose rows nothing reads are planned the same way.
 */
export async function withCommit(db: Kysely<any>, writes: readonly Compilable[]): Promise<void> {
  if (writes.length > 0) await db.executeQuery(new WritesWithCommit(writes.map((q) => q.compile())));
}

/**
 * A statement sent with the transaction's commit whose rows arrive with the commit's answer: resolves once it
 * is planned, to the promise of its rows. If the commit fails, or the transaction is rolled back, that promise
 * is rejected.
 */
export async function rowsWithCommit<R>(db: Kysely<any>, statement: Compilable<R>): Promise<{ rows: Promise<R[]> }> {
  const step = new RowsWithCommit<R>(statement.compile());
  await db.executeQuery(step);
  return { rows: step.rows };
}
