import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { freePort } from './support/ports.ts';
import { hubProcessToEnd } from './support/process.ts';
import { withDatabase } from './support/template.ts';

// README, "Running the Hub": a start refused for a mistake in the configuration (exit 2) or an environment
// not ready (exit 1) says why in one line on stderr, without a JSON log line or a stack.
let dir: string;
let t: TestDatabase;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-refusals-'));
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.drop();
  await rm(dir, { recursive: true, force: true });
});

/**
 * The Hub started on `env` (and its own data directory, which a configuration refusal never makes), to its end.
 * Unless `env` names a database, it is given one nothing listens on: a start not refused ends too.
 */
async function refused(env: Record<string, string>) {
  const dataDir = join(dir, `data-${Math.random().toString(36).slice(2)}`);
  const nowhere = `postgres://postgres@127.0.0.1:${await freePort()}/fleetplane`;
  const ended = await hubProcessToEnd({ DATABASE_URL: nowhere, FLEETPLANE_DATA_DIR: dataDir, FLEETPLANE_PORT: String(await freePort()), ...env });
  expect(ended.out + ended.err).not.toMatch(/stack|\n\s+at /);
  expect(ended.err.split('\n')).toEqual([expect.stringMatching(/^Fleetplane Hub cannot start: /), '']);
  return { ...ended, line: ended.err.trimEnd(), dataDirMade: existsSync(dataDir) };
}

test.each([
  ['a log level winston does not know', { FLEETPLANE_LOG_LEVEL: 'loud' }, 'FLEETPLANE_LOG_LEVEL must be one of error, warn, info, http, verbose, debug, silly, got loud'],
  ['a port that is no number', { FLEETPLANE_PORT: 'abc' }, 'FLEETPLANE_PORT must be a port number, got abc'],
  ['one TLS variable without the other', { FLEETPLANE_TLS_CERT: '/etc/hub.crt' }, 'FLEETPLANE_TLS_CERT and FLEETPLANE_TLS_KEY go together'],
  ['a configuration file that cannot be read', { FLEETPLANE_CONFIG: '/nonexistent/hub.json' }, 'FLEETPLANE_CONFIG /nonexistent/hub.json cannot be read: ENOENT'],
])('Running the Hub: a start on %s is refused in one line on stderr, exit 2, and makes nothing', async (_, env, message) => {
  const ended = await refused(env);
  expect(ended.line).toContain(message);
  expect(ended.code).toBe(2);
  expect(ended.dataDirMade).toBe(false);
}, 30_000);

test('Running the Hub: a configuration file with several mistakes is refused in one line naming each, exit 2', async () => {
  const file = join(dir, 'bad.json');
  await writeFile(file, JSON.stringify({ control_api: { wat: 1, credentials: [{ id: 'a' }] } }));
  const ended = await refused({ FLEETPLANE_CONFIG: file });
  expect(ended.line).toBe(
    `Fleetplane Hub cannot start: ${file} is not a valid Fleetplane configuration: ✖ Unrecognized key: "wat" at control_api; ` +
      "✖ Invalid discriminator value. Expected 'viewer' | 'operator' | 'admin' | 'agent' at control_api.credentials[0].role",
  );
  expect(ended.code).toBe(2);
}, 30_000);

test('Running the Hub: a database that cannot be reached or refuses writes, or a port another process holds, is refused in one line, exit 1', async () => {
  const away = await refused({});
  expect(away.line).toMatch(/^Fleetplane Hub cannot start: the database cannot be reached: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
  expect(away.code).toBe(1);

  // A server that answers but refuses writes (the address reaches a standby).
  await t.pool.query(`ALTER DATABASE ${t.name} SET default_transaction_read_only = on`);
  try {
    const readOnly = await refused({ DATABASE_URL: withDatabase(process.env.FLEETPLANE_TEST_ADMIN_URL!, t.name), FLEETPLANE_LOG_LEVEL: 'error' });
    expect(readOnly.line).toMatch(/^Fleetplane Hub cannot start: the database refuses writes \(read-only: a standby, or default_transaction_read_only\): cannot execute [A-Z ]+ in a read-only transaction$/);
    expect(readOnly.code).toBe(1);
  } finally {
    await t.pool.query(`ALTER DATABASE ${t.name} RESET default_transaction_read_only`);
  }

  const holder: Server = createServer();
  const port = await new Promise<number>((resolve) => holder.listen(0, () => resolve((holder.address() as { port: number }).port)));
  try {
    const taken = await refused({ DATABASE_URL: withDatabase(process.env.FLEETPLANE_TEST_ADMIN_URL!, t.name), FLEETPLANE_PORT: String(port), FLEETPLANE_LOG_LEVEL: 'error' });
    expect(taken.line).toBe(`Fleetplane Hub cannot start: cannot listen on every interface port ${port}: listen EADDRINUSE: address already in use :::${port}`);
    expect(taken.code).toBe(1);
  } finally {
    holder.close();
  }
}, 60_000);

test('Database roles: a Hub on its own role that finds a migration pending (an upgrade before `fleetplane migrate`) is refused in one line naming what to run, exit 1', async () => {
  const login = `fp_hub_${randomBytes(4).toString('hex')}`;
  await sql`CREATE ROLE ${sql.id(login)} LOGIN PASSWORD 'hub' IN ROLE fleetplane_hub`.execute(t.db);
  // The database as the previous Fleetplane left it: the newest migration not yet recorded.
  const row = (await sql<{ version: number; name: string; checksum: string }>`SELECT version, name, checksum FROM schema_migrations ORDER BY version DESC LIMIT 1`.execute(t.db)).rows[0]!;
  const newest = row.version;
  await sql`DELETE FROM schema_migrations WHERE version = ${newest}`.execute(t.db);
  try {
    const url = new URL(withDatabase(process.env.FLEETPLANE_TEST_ADMIN_URL!, t.name));
    url.username = login;
    url.password = 'hub';
    const ended = await refused({ DATABASE_URL: url.toString() });
    expect(ended.line).toBe(
      `Fleetplane Hub cannot start: migrations ${newest} cannot be applied: permission denied for schema public ` +
        "(this role may not change the schema: run `npx fleetplane migrate` as the database's owner)",
    );
    expect(ended.code).toBe(1);
  } finally {
    await sql`INSERT INTO schema_migrations (version, name, checksum) VALUES (${row.version}, ${row.name}, ${row.checksum})`.execute(t.db);
    await sql`DROP ROLE ${sql.id(login)}`.execute(t.db);
  }
}, 60_000);
