import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import { fewerRoundTrips } from './round-trips.ts';
import type { Tables } from './tables.ts';

export type Db = Kysely<Tables>;

export interface Database {
  db: Db;
  pool: pg.Pool;
  url: string;
  close(): Promise<void>;
}

// int8 (positions, versions, sequences) as JS numbers: they stay far below 2^53.
const INT8_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/**
 * A statement whose text begins with `/* prepared:NAME *\/` is prepared once per connection and reused,
 * so the hottest statements (the append) skip parsing and planning. Only such tagged, fixed-text
 * statements are prepared: the set stays small whatever queries the rest of the Hub builds.
 */
const PREPARED = /^\/\* prepared:([a-z_]+) \*\//;

function prepareTagged(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (text: unknown, ...rest: unknown[]) => {
    const name = typeof text === 'string' ? PREPARED.exec(text)?.[1] : undefined;
    if (!name || typeof rest[0] === 'function') return query(text, ...rest);
    return query({ name, text, values: rest[0] }, ...rest.slice(1));
  };
}

export function connect(url: string, options: { max?: number; applicationName?: string } = {}): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 20,
    types,
    application_name: options.applicationName ?? 'fleetplane-hub',
  });
  // An idle client losing its server (restart, failover) must not crash the Hub; the next query reconnects.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    prepareTagged(client);
    fewerRoundTrips(client);
  });
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    pool,
    url,
    // Kysely ends the pool only if it ran a query itself; the pool may have been used directly.
    async close() {
      await db.destroy();
      if (!pool.ended) await pool.end();
    },
  };
}
