import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { connect, type Database } from '../../packages/hub/src/database/connect.ts';
import { allProjections } from '../../packages/hub/src/projections/all.ts';
import { historyProblems, verifyHistory } from '../../packages/hub/src/verify-history.ts';
import { countingProxy, running, type RoundTrip } from './round-trips.ts';
import { withDatabase } from './template.ts';

export interface TestDatabase extends Database {
  name: string;
  /**
   * Proves the file left a log that verifies as `fleetplane verify` proves it (SPEC J2, J3): every hash chain
   * holds from where the archived history ends, the stored checkpoint is the recorded one, and a rebuild of
   * every projection from it equals the live tables; then drops the database. A failed test or a failed proof keeps it,
   * named, for inspection, and the proof's failure fails the file.
   */
  drop(): Promise<void>;
}

/**
 * A fresh database for one test file: migrated (a clone of the run's template) or, with `empty`, bare.
 * `tampered`: the file breaks the log or the projections on purpose, so drop proves nothing.
 */
export async function createTestDatabase(options: { empty?: boolean; tampered?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = process.env.FLEETPLANE_TEST_ADMIN_URL!;
  const name = `fp_test_${randomBytes(5).toString('hex')}`;
  const template = options.empty ? 'template0' : process.env.FLEETPLANE_TEST_TEMPLATE!;
  await admin(adminUrl, `CREATE DATABASE ${name} TEMPLATE ${template}`);
  return opened(adminUrl, name, options);
}

function opened(adminUrl: string, name: string, options: { empty?: boolean; tampered?: boolean }): TestDatabase {
  const database = connect(withDatabase(adminUrl, name), { max: 10, applicationName: 'fleetplane-test' });
  return {
    ...database,
    name,
    async drop() {
      const failed = (globalThis as { __fleetplaneTestFailed?: boolean }).__fleetplaneTestFailed;
      const problems = failed || options.empty || options.tampered ? null : await proofProblems(database);
      await database.close();
      if (failed || (problems && problems.length > 0)) {
        process.stderr.write(`kept database ${name} of a failed test for inspection\n`);
        if (problems && problems.length > 0) throw new Error(`the log of ${name} does not verify: ${JSON.stringify(problems.slice(0, 5))}`);
        return;
      }
      await admin(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/**
 * A copy of `source` as it stands now, taken while its Hubs run, as a backup restored later would hold it
 * (db/README.md, "Backups"): `CREATE DATABASE … TEMPLATE`, PostgreSQL's copy of a whole database, which wants
 * no session on its source, so the source refuses connections for the moment of the copy and its sessions are
 * ended (its Hubs see a short outage and reconnect). Everything committed before is in the copy, pg-boss's
 * jobs as they stood included; nothing after.
 */
export async function snapshotDatabase(source: TestDatabase): Promise<TestDatabase> {
  const adminUrl = process.env.FLEETPLANE_TEST_ADMIN_URL!;
  const name = `fp_test_${randomBytes(5).toString('hex')}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`ALTER DATABASE ${source.name} ALLOW_CONNECTIONS false`);
    try {
      for (;;) {
        await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [source.name]);
        try {
          await client.query(`CREATE DATABASE ${name} TEMPLATE ${source.name}`);
          break;
        } catch (e) {
          if ((e as { code?: string }).code !== '55006') throw e; // a session not gone yet
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    } finally {
      await client.query(`ALTER DATABASE ${source.name} ALLOW_CONNECTIONS true`);
    }
  } finally {
    await client.end();
  }
  return opened(adminUrl, name, {});
}

/**
 * Runs `work` on a pool of its own, configured as the Hub's (database/connect.ts), and answers the round trips
 * it sent, in order, as they reached the server (support/round-trips.ts): those that run statements, as on a
 * connection that has prepared them. The pool's connection is new, so each prepared statement's PREPARE goes
 * once, apart (database/connection.ts); database/connection.test.ts counts those.
 */
export async function roundTripsOf(url: string, work: (db: Database['db'], pool: Database['pool']) => Promise<void>): Promise<RoundTrip[]> {
  const proxy = await countingProxy(url);
  const recorded = connect(proxy.url, { max: 1 });
  try {
    await work(recorded.db, recorded.pool);
  } finally {
    await recorded.close();
    await proxy.close();
  }
  return running(proxy.roundTrips);
}

/**
 * Waits until at least `n` sessions of the database wait on a lock: a statement queued behind a held row. The
 * job queue's own sessions are not counted: its maintenance may wait on its own locks at any moment.
 */
export async function waitingForLocks(db: Kysely<any>, n = 1): Promise<void> {
  for (;;) {
    const { rows } = await sql<{ n: string }>`
      SELECT count(*) n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock' AND application_name <> 'fleetplane-jobs'`.execute(db);
    if (Number(rows[0]!.n) >= n) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Waits until every event committed in the database is below the horizon readAll reads below. The horizon is
 * cluster-wide: a transaction of another test file running in parallel holds it back for a moment.
 */
export async function logSettled(db: Kysely<any>): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { rows } = await sql<{ below: boolean }>`
      SELECT coalesce((SELECT tx_id FROM events ORDER BY tx_id DESC LIMIT 1) < pg_snapshot_xmin(pg_current_snapshot()), true) AS below`.execute(db);
    if (rows[0]!.below) return;
    if (Date.now() > deadline) throw new Error('events stayed above the snapshot horizon for 10 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function admin(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** What `fleetplane verify` finds wrong with the database's history (none expected). */
async function proofProblems(database: Database): Promise<unknown[]> {
  return historyProblems(await verifyHistory(database.db, allProjections));
}
