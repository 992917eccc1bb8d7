import { CompiledQuery, type Compilable, type Kysely, type RootOperationNode } from 'kysely';
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
 * - `Prepared`: a hot, fixed-text statement prepared once per connection under its name.
 *
 * The scripts go by the simple protocol with their parameters inlined (database/inline.ts).
 */
abstract class Step implements CompiledQuery {
  readonly query: RootOperationNode;
  readonly queryId: CompiledQuery['queryId'];
  readonly sql: string;
  readonly parameters: readonly unknown[];

  constructor(sql: string, parameters: readonly unknown[] = []) {
    const raw = CompiledQuery.raw(sql);
    this.query = raw.query;
    this.queryId = raw.queryId;
    this.sql = sql;
    this.parameters = parameters;
  }
}

export class ReadsTogether extends Step {
  readonly count: number;
  constructor(reads: readonly CompiledQuery[]) {
    super(inlined(reads));
    this.count = reads.length;
  }
}

export class WritesWithCommit extends Step {
  readonly count: number;
  constructor(writes: readonly CompiledQuery[]) {
    super(inlined(writes));
    this.count = writes.length;
  }
}

export class RowsWithCommit<R = unknown> extends Step {
  readonly count = 1;
  /** Settled by the connection once the round trip that carried the statement answers, or it is dropped. */
  readonly rows: Promise<R[]>;
  readonly settle: { resolve(rows: R[]): void; reject(error: unknown): void };

  constructor(statement: CompiledQuery) {
    super(inlined([statement]));
    const { promise, resolve, reject } = Promise.withResolvers<R[]>();
    this.rows = promise;
    this.settle = { resolve, reject };
    // The commit reports the failure too: a rejection here is never its only report.
    promise.catch(() => {});
  }
}

export class Prepared extends Step {
  readonly name: string;
  constructor(name: string, statement: CompiledQuery) {
    super(statement.sql, statement.parameters);
    this.name = name;
  }
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

/** Runs a statement prepared once per connection under `name`: only for a few hot statements of fixed text. */
export async function executePrepared<R>(db: Kysely<any>, name: string, statement: Compilable<R>): Promise<R[]> {
  return (await db.executeQuery<R>(new Prepared(name, statement.compile()))).rows;
}
