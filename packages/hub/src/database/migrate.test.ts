import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { connect, type Database } from './connect.ts';
import { loadMigrations, migrate, MigrationRefused, pendingMigrations, type MigrationRefusal } from './migrate.ts';

const databases: TestDatabase[] = [];
const pools: Database[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
  await Promise.all(databases.map((d) => d.drop()));
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function emptyDatabase(): Promise<TestDatabase> {
  const d = await createTestDatabase({ empty: true });
  databases.push(d);
  return d;
}

/** Another pool on the same database: what a second Hub starting at the same time has. */
function secondPool(d: TestDatabase): Database {
  const p = connect(d.url, { max: 2, applicationName: 'fleetplane-test-2' });
  pools.push(p);
  return p;
}

/** A directory of migration files (its path without a trailing slash, as mkdtemp returns it). */
async function migrationsDir(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'fleetplane-migrations-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

const applied = async (d: Database) =>
  (await d.pool.query<{ version: number; name: string; checksum: string }>(
    'SELECT version, name, checksum FROM schema_migrations ORDER BY version',
  )).rows;

const tableExists = async (d: Database, name: string): Promise<boolean> =>
  (await d.pool.query<{ exists: boolean }>('SELECT to_regclass($1) IS NOT NULL AS exists', [name])).rows[0]!.exists;

async function refusal(promise: Promise<unknown>): Promise<MigrationRefusal> {
  const error = await promise.then(
    () => {
      throw new Error('expected a MigrationRefused, but it resolved');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MigrationRefused);
  return (error as MigrationRefused).refusal;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

test('loadMigrations reads the numbered SQL files of a directory in order, with or without a trailing slash', async () => {
  const files = {
    '0002_second_step.sql': 'CREATE TABLE b (id int);',
    '0001_first.sql': 'CREATE TABLE a (id int);',
    '0010_tenth.sql': 'CREATE TABLE c (id int);',
    'README.md': 'not a migration',
    '0003-bad-name.sql': 'not a migration either',
    '3_short.sql': 'nor this',
  };
  const dir = await migrationsDir(files);
  const expected = [
    { version: 1, name: 'first', sql: files['0001_first.sql'], checksum: sha256(files['0001_first.sql']) },
    { version: 2, name: 'second_step', sql: files['0002_second_step.sql'], checksum: sha256(files['0002_second_step.sql']) },
    { version: 10, name: 'tenth', sql: files['0010_tenth.sql'], checksum: sha256(files['0010_tenth.sql']) },
  ];
  expect(loadMigrations(dir)).toEqual(expected);
  expect(loadMigrations(dir + '/')).toEqual(expected);

  const shipped = loadMigrations();
  expect(shipped.length).toBeGreaterThanOrEqual(2);
  expect(shipped.map((m) => m.version)).toEqual(shipped.map((_, i) => i + 1));
  expect(shipped[0]!.name).toBe('event_store');
});

test('migrate applies every migration to an empty database and records each in schema_migrations', async () => {
  const d = await emptyDatabase();
  const shipped = loadMigrations();
  expect((await pendingMigrations(d.pool)).map((m) => m.version)).toEqual(shipped.map((m) => m.version));

  expect(await migrate(d.pool)).toEqual(shipped.map((m) => m.version));

  expect(await applied(d)).toEqual(shipped.map((m) => ({ version: m.version, name: m.name, checksum: m.checksum })));
  expect(await tableExists(d, 'events')).toBe(true);
  expect(await tableExists(d, 'nodes')).toBe(true);
  expect(await pendingMigrations(d.pool)).toEqual([]);
});

test('a second run applies nothing and leaves schema_migrations as it was', async () => {
  const d = await emptyDatabase();
  await migrate(d.pool);
  const before = (await d.pool.query('SELECT * FROM schema_migrations ORDER BY version')).rows;

  expect(await migrate(d.pool)).toEqual([]);
  expect(await migrate(secondPool(d).pool)).toEqual([]);

  expect((await d.pool.query('SELECT * FROM schema_migrations ORDER BY version')).rows).toEqual(before);
});

test('only the migrations not yet applied are applied, in order', async () => {
  const d = await emptyDatabase();
  const files = {
    '0001_one.sql': 'CREATE TABLE steps (n int);',
    '0002_two.sql': 'INSERT INTO steps VALUES (2);',
  };
  const dir = await migrationsDir(files);
  expect(await migrate(d.pool, loadMigrations(dir))).toEqual([1, 2]);

  await writeFile(join(dir, '0003_three.sql'), 'INSERT INTO steps VALUES (3);');
  await writeFile(join(dir, '0004_four.sql'), 'INSERT INTO steps VALUES (4);');
  expect((await pendingMigrations(d.pool, loadMigrations(dir))).map((m) => m.version)).toEqual([3, 4]);
  expect(await migrate(d.pool, loadMigrations(dir))).toEqual([3, 4]);

  expect((await d.pool.query('SELECT n FROM steps')).rows.map((r) => r.n)).toEqual([2, 3, 4]);
  expect((await applied(d)).map((r) => r.version)).toEqual([1, 2, 3, 4]);
});

test('two Hubs migrating at once both succeed and apply each migration once', async () => {
  const d = await emptyDatabase();
  const shipped = loadMigrations();
  const results = await Promise.all([migrate(d.pool), migrate(secondPool(d).pool)]);

  expect(results.flat().sort((a, b) => a - b)).toEqual(shipped.map((m) => m.version));
  expect(await applied(d)).toEqual(shipped.map((m) => ({ version: m.version, name: m.name, checksum: m.checksum })));
});

test('two Hubs migrating at once take turns: a slow, non-repeatable migration runs once', async () => {
  const d = await emptyDatabase();
  const dir = await migrationsDir({
    // Run twice, either statement fails: only the advisory lock keeps the second Hub out until it is done.
    '0001_slow.sql': 'SELECT pg_sleep(0.3); CREATE TABLE widgets (id int);',
    '0002_column.sql': 'ALTER TABLE widgets ADD COLUMN name text;',
  });
  const migrations = loadMigrations(dir);
  const results = await Promise.all([migrate(d.pool, migrations), migrate(secondPool(d).pool, migrations)]);

  expect(results).toContainEqual([1, 2]);
  expect(results).toContainEqual([]);
  expect((await applied(d)).map((r) => r.version)).toEqual([1, 2]);
  const locks = await d.pool.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (
    SELECT oid FROM pg_database WHERE datname = current_database())`);
  expect(locks.rows[0].n).toBe(0);
});

test('a failing migration is rolled back, reported, not recorded, and releases the lock', async () => {
  const d = await emptyDatabase();
  const dir = await migrationsDir({
    '0001_fine.sql': 'CREATE TABLE fine (id int);',
    '0002_broken.sql': 'CREATE TABLE half (id int); SELECT * FROM no_such_table;',
  });
  await expect(migrate(d.pool, loadMigrations(dir))).rejects.toThrow(/migration 2 \(broken\) failed: .*no_such_table/);

  expect((await applied(d)).map((r) => r.version)).toEqual([1]);
  expect(await tableExists(d, 'half')).toBe(false);
  // A second Hub is not kept waiting by a lock the failed run left behind.
  await writeFile(join(dir, '0002_broken.sql'), 'CREATE TABLE half (id int);');
  expect(await migrate(secondPool(d).pool, loadMigrations(dir))).toEqual([2]);
});

test('a migration outlasting the statement_timeout an SRE set on the database runs to its end', async () => {
  const d = await emptyDatabase();
  await d.pool.query(`ALTER DATABASE ${new URL(d.url).pathname.slice(1)} SET statement_timeout = '100ms'`);
  const dir = await migrationsDir({ '0001_long.sql': 'SELECT pg_sleep(0.5); CREATE TABLE built (id int);' });
  const pool = secondPool(d); // a new session, which takes the database's setting
  expect(await migrate(pool.pool, loadMigrations(dir))).toEqual([1]);
  expect(await tableExists(d, 'built')).toBe(true);
  // The setting still holds for the session's other statements.
  await expect(pool.pool.query('SELECT pg_sleep(0.5)')).rejects.toMatchObject({ code: '57014' });
});

test('a database migrated by a newer Fleetplane is refused with database_newer_than_code', async () => {
  const d = await emptyDatabase();
  const dir = await migrationsDir({ '0001_one.sql': 'CREATE TABLE one (id int);' });
  await migrate(d.pool, loadMigrations(dir));
  await d.pool.query(`INSERT INTO schema_migrations (version, name, checksum) VALUES (7, 'from_the_future', 'abc'), (9, 'later', 'def')`);
  // This code also has a migration the database lacks: it is not applied to a database it does not understand.
  await writeFile(join(dir, '0002_two.sql'), 'CREATE TABLE two (id int);');
  const migrations = loadMigrations(dir);

  expect(await refusal(migrate(d.pool, migrations))).toEqual({ code: 'database_newer_than_code', versions: [7, 9] });
  expect(await refusal(pendingMigrations(d.pool, migrations))).toEqual({ code: 'database_newer_than_code', versions: [7, 9] });
  await expect(migrate(d.pool, migrations)).rejects.toThrow(/does not know \(7, 9\)/);

  expect(await tableExists(d, 'two')).toBe(false);
  expect((await applied(d)).map((r) => r.version)).toEqual([1, 7, 9]);
  // The refusal released the advisory lock: a run with code that knows every version goes ahead.
  await writeFile(join(dir, '0007_from_the_future.sql'), 'SELECT 7;');
  await writeFile(join(dir, '0009_later.sql'), 'SELECT 9;');
  await d.pool.query(`UPDATE schema_migrations SET checksum = $1 WHERE version = 7`, [sha256('SELECT 7;')]);
  await d.pool.query(`UPDATE schema_migrations SET checksum = $1 WHERE version = 9`, [sha256('SELECT 9;')]);
  expect(await migrate(secondPool(d).pool, loadMigrations(dir))).toEqual([2]);
});

test('a migration changed after it was applied is refused with migration_changed', async () => {
  const d = await emptyDatabase();
  const dir = await migrationsDir({
    '0001_one.sql': 'CREATE TABLE one (id int);',
    '0002_two.sql': 'CREATE TABLE two (id int);',
  });
  await migrate(d.pool, loadMigrations(dir));
  await writeFile(join(dir, '0002_two.sql'), 'CREATE TABLE two (id bigint);');
  await writeFile(join(dir, '0003_three.sql'), 'CREATE TABLE three (id int);');
  const migrations = loadMigrations(dir);

  expect(await refusal(migrate(d.pool, migrations))).toEqual({ code: 'migration_changed', version: 2, name: 'two' });
  expect(await refusal(pendingMigrations(d.pool, migrations))).toEqual({ code: 'migration_changed', version: 2, name: 'two' });
  await expect(pendingMigrations(d.pool, migrations)).rejects.toThrow(/migration 2 \(two\) differs/);
  expect(await tableExists(d, 'three')).toBe(false);
  expect((await applied(d)).map((r) => r.version)).toEqual([1, 2]);
});
