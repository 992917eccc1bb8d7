import { sql, type Compilable, type Kysely } from 'kysely';

/** A plan node of EXPLAIN (ANALYZE, FORMAT JSON), as far as rowsRead reads it. */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/**
 * EXPLAIN, with `options` such as `(ANALYZE, FORMAT JSON)`, of the statement prepared as `name` on `db`'s one
 * connection, run with every parameter `key`, as in a statement keyed by one stream or node (or by an array of
 * them, `key` then spelled as one: `{a,b}`): its rows.
 */
export async function explainExecute<R>(db: Kysely<any>, name: string, key: string, options = ''): Promise<R[]> {
  const [{ n }] = (await sql<{ n: number }>`SELECT cardinality(parameter_types) AS n FROM pg_prepared_statements WHERE name = ${name}`.execute(db)).rows as [{ n: number }];
  const literal = `'${key.replaceAll("'", "''")}'`;
  const args = n > 0 ? `(${Array.from({ length: n }, () => literal).join(', ')})` : '';
  return (await sql<R>`${sql.raw(`EXPLAIN ${options} EXECUTE ${name}${args}`)}`.execute(db)).rows;
}

/**
 * How many rows of `tables` a statement goes through when run for `key`, in the one plan PostgreSQL keeps
 * for every key of a prepared statement: what its index scans of them found, and what scans of them then
 * threw away. `statement` is the name of a statement prepared on `db`'s one connection, or a query to
 * prepare there.
 */
export async function rowsRead(db: Kysely<any>, statement: string | Compilable<unknown>, key: string, tables: readonly string[]): Promise<number> {
  await sql`SET plan_cache_mode = force_generic_plan`.execute(db);
  const name = typeof statement === 'string' ? statement : 'rows_read_check';
  if (typeof statement !== 'string') await sql.raw(`PREPARE ${name} AS ${statement.compile().sql}`).execute(db);
  try {
    const [row] = await explainExecute<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(db, name, key, '(ANALYZE, FORMAT JSON)');
    return through(row!['QUERY PLAN'][0].Plan, new Set(tables));
  } finally {
    if (typeof statement !== 'string') await sql.raw(`DEALLOCATE ${name}`).execute(db);
  }
}

function through(node: PlanNode, tables: ReadonlySet<string>): number {
  const table = tables.has(node['Relation Name'] ?? '');
  const index = node['Index Name'] !== undefined && [...tables].some((t) => node['Index Name']!.startsWith(`${t}_`));
  const found = index || (table && node['Node Type'] === 'Seq Scan') ? node['Actual Rows'] : 0;
  const dropped = table ? (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0) : 0;
  return (found + dropped) * node['Actual Loops'] + (node.Plans ?? []).reduce((sum, child) => sum + through(child, tables), 0);
}

/**
 * `work`, run in a transaction of its own, and the rows of `table` it read, by scans and through indexes:
 * pg_stat_xact_user_tables before and after, in the transaction (a session's counts are flushed only between
 * transactions, so the difference is the work's alone).
 */
export async function rowsFetchedBy<T>(db: Kysely<any>, table: string, work: (trx: Kysely<any>) => Promise<T>): Promise<{ result: T; rows: number }> {
  return db.transaction().execute(async (trx) => {
    const fetched = async () =>
      Number((await sql<{ n: string }>`
        SELECT coalesce(sum(seq_tup_read + coalesce(idx_tup_fetch, 0)), 0) AS n FROM pg_stat_xact_user_tables WHERE relname = ${table}`.execute(trx)).rows[0]!.n);
    const before = await fetched();
    const result = await work(trx);
    return { result, rows: (await fetched()) - before };
  });
}
