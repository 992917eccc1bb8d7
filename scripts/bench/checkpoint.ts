import { getHeapStatistics } from 'node:v8';
import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../packages/hub/src/database/tables.ts';
import { writeCheckpoint, type RowBatches } from '../../packages/hub/src/checkpoints/checkpoint-file.ts';
import { deriveCheckpoint, tableRows } from '../../packages/hub/src/checkpoints/derive.ts';
import { allProjections } from '../../packages/hub/src/projections/all.ts';
import { ownedTables } from '../../packages/hub/src/projections/rebuild.ts';
import { onOwnDatabase } from './interruptible.ts';
import { sizeOption } from './options.ts';
import * as fmt from './tools/format.ts';
import { log } from './tools/progress.ts';
import { header, serverSettings } from './tools/server.ts';

/**
 * `npm run bench -- checkpoint`: the projections' checkpoint of tables holding 1,000,000 configuration intents
 * (CHECKPOINT_ROWS to change it), as the archiver takes it after a year of weekly rollouts to 10,000 nodes:
 * the tables stored as a checkpoint, then the next one derived from it (loaded into scratch tables, read back
 * by cursor, written through zstd), with its time, its file and the process's peak memory; beside, in the
 * same run, PostgreSQL copying the same rows into a table like the scratch one (`INSERT … SELECT`), the raw
 * cost of moving them once. No goal is set: it says what a table's size costs an archive run, in time and in
 * the Hub's memory (which follows the compressed file, not the rows: run it with
 * NODE_OPTIONS=--max-old-space-size=256 to see the rows never held).
 */

const SAMPLE_MS = 20;

export async function run(args: string[]): Promise<number> {
  if (args.length > 0) {
    log(`checkpoint takes no arguments (got: ${args.join(' ')}); set CHECKPOINT_ROWS to change the table's size`);
    return 2;
  }
  const rows = sizeOption('CHECKPOINT_ROWS', 1_000_000, 1, log);
  if (rows === null) return 2;
  return onOwnDatabase(log, async (database) => {
    const pool = database.connect(2);
    try {
      const t0 = performance.now();
      await fillIntents(pool.db, rows);
      const { rows: [text] } = await sql<{ bytes: string }>`SELECT sum(octet_length(to_jsonb(t)::text)) AS bytes FROM intents t`.execute(pool.db);
      const json = Number(text!.bytes);
      log(`tables: ${fmt.count(rows)} configuration intents in ${fmt.seconds((performance.now() - t0) / 1000)}`);

      // The tables as the stored checkpoint, at the log's end: what the previous segment's archiving left.
      const position = Number((await sql<{ p: string | null }>`SELECT max(position) AS p FROM events`.execute(pool.db)).rows[0]!.p ?? 0);
      const stored = await pool.db.transaction().setIsolationLevel('repeatable read').execute(async (trx) => {
        const tables = new Map<string, RowBatches>();
        for (const [table, keys] of ownedTables(allProjections)) tables.set(table, tableRows(trx, 'public', table, keys));
        return writeCheckpoint(position, tables);
      });
      await pool.db.insertInto('projection_checkpoints').values({ position, taken_at: new Date(), content: stored.bytes, sha256: stored.sha256 }).execute();

      const memory = peakMemory();
      const d0 = performance.now();
      const derived = await deriveCheckpoint(pool.db, allProjections, position);
      const deriveSeconds = (performance.now() - d0) / 1000;
      const peak = memory.stop();
      if (derived.sha256 !== stored.sha256) throw new Error('the derived checkpoint is not the stored one: the benchmark measured something else');

      const rawSeconds = await rawCopy(pool.db);
      const rate = rows / deriveSeconds;
      const raw = rows / rawSeconds;
      const mib = (bytes: number) => `${fmt.count(bytes / 2 ** 20)} MiB`;
      process.stdout.write(
        [
          ...header('checkpoint', database, await serverSettings(pool.pool), `${fmt.count(rows)} configuration intents, ${mib(json)} of rows as JSON, loaded and read back 5,000 rows a statement; the process's heap limit ${mib(getHeapStatistics().heap_size_limit)}`),
          '',
          ...fmt.table(
            ['measurement', 'rows', 'seconds', 'rows/s', 'rows/s ÷ raw', 'file', 'peak heap + buffers'],
            [
              ['derive a checkpoint from the stored one (load, read back, write)', fmt.count(rows), deriveSeconds.toFixed(1), fmt.count(rate), fmt.percent(rate / raw, 1), mib(derived.bytes.length), `${mib(peak)} (${(peak / derived.bytes.length).toFixed(1)} × the file)`],
              ['raw: INSERT … SELECT the same rows into a table like the scratch one', fmt.count(rows), rawSeconds.toFixed(1), fmt.count(raw), 'baseline', '–', '–'],
            ],
          ),
          '',
        ].join('\n'),
      );
      return 0;
    } finally {
      await pool.close();
    }
  });
}

/** Configuration intents, converged, 10,000 nodes a rollout, with a failure message of random text (compressible as a real one is, not more). */
async function fillIntents(db: Kysely<Tables>, rows: number): Promise<void> {
  await sql`INSERT INTO intents (intent_id, kind, node_id, generation, config_version, rollout_id, state, retry_count, correlation_id, created_at, updated_at, converged_at, failure_message)
    SELECT 'in_' || gen_random_uuid(), 'configuration', 'edge-' || (i % 10000), i / 10000 + 1, 'cv_' || md5((i / 10000)::text), 'ro_' || md5((i / 10000)::text),
      'converged', 0, gen_random_uuid()::text, now(), now(), now(), repeat(md5(i::text), 10)
    FROM generate_series(1, ${rows}) i`.execute(db);
  await sql`VACUUM ANALYZE intents`.execute(db);
}

/** Seconds for PostgreSQL to copy the intents into a table created as the scratch ones are. */
async function rawCopy(db: Kysely<Tables>): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await sql`CREATE TEMP TABLE raw_intents (LIKE public.intents INCLUDING ALL) ON COMMIT DROP`.execute(trx);
    const t0 = performance.now();
    await sql`INSERT INTO raw_intents SELECT * FROM intents`.execute(trx);
    return (performance.now() - t0) / 1000;
  });
}

/** The process's peak heap in use plus array buffers (where compressed chunks live), sampled until stopped. */
function peakMemory(): { stop(): number } {
  const sample = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  let peak = sample();
  const timer = setInterval(() => (peak = Math.max(peak, sample())), SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, sample());
    },
  };
}
