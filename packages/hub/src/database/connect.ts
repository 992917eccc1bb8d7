import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
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

export function connect(url: string, options: { max?: number; applicationName?: string } = {}): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 20,
    types,
    application_name: options.applicationName ?? 'fleetplane-hub',
  });
  // An idle client losing its server (restart, failover) must not crash the Hub; the next query reconnects.
  pool.on('error', () => {});
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
