import type pg from 'pg';
import { slice, type Series } from './series.ts';

/**
 * The baseline every benchmark measures in its own run: single-row INSERTs into a plain table, each
 * autocommitted, on the benchmark's database. What the machine's PostgreSQL does in those minutes is the
 * unit the benchmarks' goals are stated in.
 */
export async function createRawTable(pool: pg.Pool): Promise<void> {
  await pool.query(`CREATE TABLE bench_raw (id bigserial primary key, stream_id text, data jsonb, recorded_at timestamptz)`);
}

/** One raw insert: a row as an event's size, into the table createRawTable made. */
export async function rawInsert(pool: pg.Pool, streamId: string, client: number, benchmark: string): Promise<void> {
  await pool.query('INSERT INTO bench_raw (stream_id, data, recorded_at) VALUES ($1, $2, $3)', [
    streamId,
    JSON.stringify({ client, note: `fleetplane ${benchmark} benchmark`, at: Date.now() }),
    new Date(),
  ]);
}

/** A slice of raw inserts from `clients` clients for `ms`, each client on a stream of its own, added to `into`. */
export function rawSlice(pool: pg.Pool, benchmark: string, clients: number, ms: number, into: Series): Promise<void> {
  return slice((c) => rawInsert(pool, `bench-raw-${c}`, c, benchmark), clients, ms, into);
}
