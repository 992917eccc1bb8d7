import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { freePort } from '../../../../test/support/ports.ts';
import { databaseUnavailability } from './unavailable.ts';

// Errors as PostgreSQL and node-postgres really raise them: the ones that mean "the database is away" answer
// 503 (clients retry); a statement PostgreSQL refuses is not one of them.
let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());

const failureOf = async (work: () => Promise<unknown>): Promise<unknown> => {
  try {
    await work();
  } catch (e) {
    return e;
  }
  throw new Error('expected a failure');
};

test('a refused connection, a terminated session and a connection lost mid-statement mean the database is away', async () => {
  const refused = await failureOf(async () => {
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${await freePort()}/x` });
    await client.connect();
  });
  expect(databaseUnavailability(refused)).not.toBeNull();

  const client = new pg.Client({ connectionString: t.url });
  // The client reports the lost connection on its own as well, after the statement failed.
  const lost = new Promise<Error>((resolve) => client.on('error', resolve));
  await client.connect();
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const pending = failureOf(() => client.query('SELECT pg_sleep(5)'));
  await t.pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
  const terminated = await pending;
  expect((terminated as { code?: string }).code).toBe('57P01');
  expect(databaseUnavailability(terminated)).not.toBeNull();
  expect(databaseUnavailability(await lost)).not.toBeNull();
  expect(databaseUnavailability(await failureOf(() => client.query('SELECT 1')))).not.toBeNull();
  await client.end().catch(() => {});

  expect(databaseUnavailability(new Error('the command failed', { cause: terminated }))).not.toBeNull();
});

test('a write the server refuses as read-only, and a server out of resources (class 53), are the database away, each saying why', async () => {
  const client = await t.pool.connect();
  try {
    await client.query('BEGIN READ ONLY');
    const readOnly = await failureOf(() => client.query('CREATE TEMPORARY TABLE nothing (x int)'));
    await client.query('ROLLBACK');
    expect((readOnly as { code?: string }).code).toBe('25006');
    expect(databaseUnavailability(readOnly)).toBe('read_only');
  } finally {
    client.release();
  }
  // A role's connection limit refuses with too_many_connections (53300), as a server at max_connections does.
  const role = `limited_${process.pid}`;
  await t.pool.query(`CREATE ROLE ${role} LOGIN PASSWORD 'limited' CONNECTION LIMIT 0`);
  try {
    const refused = await failureOf(async () => {
      const url = new URL(t.url);
      url.username = role;
      url.password = 'limited';
      await new pg.Client({ connectionString: url.href }).connect();
    });
    expect((refused as { code?: string }).code).toBe('53300');
    expect(databaseUnavailability(refused)).toBe('out_of_resources');
  } finally {
    await t.pool.query(`DROP ROLE ${role}`);
  }
  expect(databaseUnavailability(new Error('the command failed', { cause: { code: '53100', message: 'could not extend file' } }))).toBe('out_of_resources');
});

test('a statement PostgreSQL refuses, and any other error, is not the database being away', async () => {
  expect(databaseUnavailability(await failureOf(() => t.pool.query('SELEC 1')))).toBeNull();
  expect(databaseUnavailability(await failureOf(() => t.pool.query("SELECT convert_from('\\x00'::bytea, 'UTF8')")))).toBeNull();
  expect(databaseUnavailability(await failureOf(() => t.pool.query('SELECT 1/0')))).toBeNull();
  expect(databaseUnavailability(new TypeError('x is undefined'))).toBeNull();
  expect(databaseUnavailability('Connection terminated')).toBeNull();
  // Another "feature not supported" (0A000) than a stale prepared statement's.
  expect(databaseUnavailability(await failureOf(() => t.pool.query('SELECT 1 UNION SELECT 2 FOR UPDATE')))).toBeNull();
});

test('a prepared statement made stale by a migration (its table changed shape) is answered as the database away: its session is replaced', async () => {
  const client = new pg.Client({ connectionString: t.url });
  await client.connect();
  try {
    await client.query('CREATE TABLE stale_probe (a integer)');
    await client.query('PREPARE stale_read AS SELECT * FROM stale_probe');
    await client.query('EXECUTE stale_read');
    await client.query('ALTER TABLE stale_probe ADD COLUMN b integer');
    expect(databaseUnavailability(await failureOf(() => client.query('EXECUTE stale_read')))).not.toBeNull();
  } finally {
    await client.query('DROP TABLE IF EXISTS stale_probe');
    await client.end();
  }
});

test('a statement the server cancels, by statement_timeout or lock_timeout, is the database away for now (canceled)', async () => {
  const client = await t.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query("SET LOCAL statement_timeout = '50ms'");
    const timedOut = await failureOf(() => client.query('SELECT pg_sleep(1)'));
    await client.query('ROLLBACK');
    expect((timedOut as { code?: string }).code).toBe('57014');
    expect(databaseUnavailability(timedOut)).toBe('canceled');

    await t.pool.query('CREATE TABLE IF NOT EXISTS locked_probe (a integer)');
    const holder = await t.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE locked_probe IN ACCESS EXCLUSIVE MODE');
      await client.query('BEGIN');
      await client.query("SET LOCAL lock_timeout = '50ms'");
      const notLocked = await failureOf(() => client.query('SELECT * FROM locked_probe'));
      await client.query('ROLLBACK');
      expect((notLocked as { code?: string }).code).toBe('55P03');
      expect(databaseUnavailability(notLocked)).toBe('canceled');
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
  } finally {
    client.release();
  }
});
