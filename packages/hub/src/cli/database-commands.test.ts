import { sql } from 'kysely';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fleetplane } from '../../../../test/support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { takeAttempts, TestAgent } from '../../../../test/support/fleet.ts';
import { startTestHub, TOKENS, type TestHub } from '../../../../test/support/hub.ts';
import { EXIT } from './exit.ts';

// The database commands (verify, replay) on the database a real Hub writes, opened through DATABASE_URL.

let t: TestDatabase;
let hub: TestHub;
let dataDir: string;
beforeAll(async () => {
  t = await createTestDatabase();
  hub = await startTestHub(t.url);
  dataDir = await mkdtemp(join(tmpdir(), 'fleetplane-cli-db-'));
  for (const n of [1, 2]) expect((await new TestAgent(hub, `edge-${n}`).register()).status).toBe(200);
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
  await rm(dataDir, { recursive: true, force: true });
});

const db = (...args: string[]) => fleetplane(args, { DATABASE_URL: t.url, FLEETPLANE_DATA_DIR: dataDir });
const operator = (...args: string[]) => fleetplane(args, { FLEETPLANE_HUB: hub.url, FLEETPLANE_TOKEN: TOKENS.operator });

const labelEvent = async (env: string) =>
  (
    await sql<{ position: number; recorded_at: Date }>`
      SELECT position, recorded_at FROM events
      WHERE stream_id = 'node:edge-1' AND type = 'NodeLabelsReplaced' AND data->'after'->>'env' = ${env}`.execute(t.db)
  ).rows[0]!;
const labelsIn = async (schema: string, nodeId: string) =>
  (await sql<{ labels: Record<string, string> }>`SELECT labels FROM ${sql.id(schema, 'nodes')} WHERE node_id = ${nodeId}`.execute(t.db)).rows[0]?.labels;

test('replay --until reproduces the tables as they stood at a position, or at a time', async () => {
  expect((await operator('label', 'edge-1', 'env=staging')).code).toBe(0);
  const staging = await labelEvent('staging');
  expect((await operator('label', 'edge-1', 'env=prod')).code).toBe(0);
  expect((await operator('label', 'edge-2', 'env=prod')).code).toBe(0);

  const byPosition = await db('replay', '--into', 'asof_position', '--until', String(staging.position));
  expect(byPosition.code).toBe(EXIT.ok);
  expect(byPosition.out).toMatch(new RegExp(`^replayed \\d+ events into asof_position through position ${staging.position} in [\\d.]+ s \\(\\d+ events/s\\)\\n$`));
  expect(await labelsIn('asof_position', 'edge-1')).toEqual({ env: 'staging' });
  expect(await labelsIn('asof_position', 'edge-2')).toEqual({});
  expect(await labelsIn('public', 'edge-1')).toEqual({ env: 'prod' });

  const byTime = await db('--json', 'replay', '--into', 'asof_time', '--until', staging.recorded_at.toISOString());
  expect(byTime.json()).toMatchObject({ schema: 'asof_time', through: staging.position, events: expect.any(Number), events_per_second: expect.any(Number) });
  expect(await labelsIn('asof_time', 'edge-1')).toEqual({ env: 'staging' });

  const whole = await db('--json', 'replay', '--into', 'asof_now');
  expect(await labelsIn('asof_now', 'edge-2')).toEqual({ env: 'prod' });
  expect(whole.json().events).toBeGreaterThan(byTime.json().events);

  const again = await db('replay', '--into', 'asof_now');
  expect(again.code).toBe(EXIT.failed);
  expect(again.err).toMatch(/^schema asof_now exists/);
  expect((await db('replay', '--into', 'asof_bad', '--until', 'yesterday-ish')).code).toBe(EXIT.usage);
  expect((await db('replay')).code).toBe(EXIT.usage);
  for (const s of ['asof_position', 'asof_time', 'asof_now']) await sql`DROP SCHEMA ${sql.id(s)} CASCADE`.execute(t.db);
});

test('J3 replay refuses, before opening the database, a schema name PostgreSQL would refuse or change, or one the help\'s SQL cannot name unquoted', async () => {
  const refused = [
    ['pg_audit', /^--into: PostgreSQL reserves schema names beginning with pg_, got pg_audit\n/],
    ['a'.repeat(64), /^--into: a schema name is 1 to 63 lower-case letters, digits and _, not beginning with a digit, got a{64}\n/],
    ['Audit', /^--into: a schema name is 1 to 63 /],
    ['audit-x', /^--into: a schema name is 1 to 63 /],
    ['audit x', /^--into: a schema name is 1 to 63 /],
    ['1audit', /^--into: a schema name is 1 to 63 /],
  ] as const;
  for (const [name, message] of refused) {
    const r = await db('replay', '--into', name);
    expect([name, r.code]).toEqual([name, EXIT.usage]);
    expect(r.err).toMatch(message);
  }
  // PostgreSQL would have cut the 64-character name to 63 and made that schema instead.
  expect((await sql`SELECT FROM pg_namespace WHERE nspname = ${'a'.repeat(63)}`.execute(t.db)).rows).toEqual([]);
  // Refused before the database is opened: a database that cannot be reached would have ended it with 4.
  expect((await fleetplane(['replay', '--into', 'pg_audit'], { DATABASE_URL: 'postgres://nobody:x@127.0.0.1:1/none', FLEETPLANE_DATA_DIR: dataDir })).code).toBe(EXIT.usage);

  const longest = 'a'.repeat(63);
  expect((await db('replay', '--into', longest)).code).toBe(EXIT.ok);
  await sql`DROP SCHEMA ${sql.id(longest)} CASCADE`.execute(t.db);
});

test('J3 replay --until refuses a position no event can have: 0, beyond what a position can be, or beyond what the Hub reads exactly', async () => {
  for (const until of ['0', '99999999999999999999', '9223372036854775807', '9007199254740992']) {
    const r = await db('replay', '--into', 'asof_huge', '--until', until);
    expect([until, r.code]).toEqual([until, EXIT.usage]);
    expect(r.err).toMatch(new RegExp(`^--until: an event position is from 1 to 9007199254740991, got ${until}\n`));
  }
  expect((await sql`SELECT FROM pg_namespace WHERE nspname = 'asof_huge'`.execute(t.db)).rows).toEqual([]);
});

test("db/README's worked example: what the Hub believed when it dispatched an attempt", async () => {
  const agent = new TestAgent(hub, 'edge-2');
  expect((await operator('streams', 'set', 'audited', '--state', 'running', '--nodes', 'edge-2', '--command', 'sleep')).code).toBe(0);
  const [attempt] = await takeAttempts(agent, 'audited');
  agent.apply(attempt);
  await agent.result(attempt.attempt_id, { outcome: 'succeeded', generation: attempt.generation });
  await agent.report();
  expect((await operator('drain', 'edge-2')).code).toBe(0);

  const dispatched = (
    await sql<{ position: number }>`SELECT position FROM events WHERE type = 'AttemptDispatched' AND data->>'attempt_id' = ${attempt.attempt_id}`.execute(t.db)
  ).rows[0]!;
  expect((await db('replay', '--until', String(dispatched.position), '--into', 'asof_x')).code).toBe(EXIT.ok);
  const intent = (await sql<any>`SELECT state, generation, desired_state FROM asof_x.intents WHERE intent_id = ${attempt.intent_id}`.execute(t.db)).rows[0];
  expect(intent).toEqual({ state: 'converging', generation: 1, desired_state: 'running' });
  const node = (await sql<any>`SELECT maintenance FROM asof_x.nodes WHERE node_id = 'edge-2'`.execute(t.db)).rows[0];
  expect(node).toEqual({ maintenance: 'active' });
  // Live, the intent converged since and the node is draining.
  expect((await sql<any>`SELECT state FROM intents WHERE intent_id = ${attempt.intent_id}`.execute(t.db)).rows[0].state).toBe('converged');
  expect((await sql<any>`SELECT maintenance FROM nodes WHERE node_id = 'edge-2'`.execute(t.db)).rows[0].maintenance).toBe('draining');
  await sql`DROP SCHEMA asof_x CASCADE`.execute(t.db);
});

test('verify exits 0 on a clean database and 1, naming the rows, once a projection is edited outside the log', async () => {
  const clean = await db('verify');
  expect(clean).toMatchObject({ code: EXIT.ok, out: 'hash chain: ok\nprojections: ok\n' });

  const derived = await labelsIn('public', 'edge-1');
  await sql`UPDATE nodes SET labels = '{"env": "tampered"}' WHERE node_id = 'edge-1'`.execute(t.db);
  await sql`INSERT INTO nodes (node_id, boot_id, last_seen_at, registered_at, updated_at) VALUES ('ghost', 'b', now(), now(), now())`.execute(t.db);
  const tampered = await db('verify');
  expect(tampered.code).toBe(EXIT.failed);
  expect(tampered.out).toBe(
    'hash chain: ok\nprojections: 2 difference(s)\n' +
      '  nodes {"node_id":"edge-1"}: differs from the log\n' +
      '  nodes {"node_id":"ghost"}: not derived from the log\n',
  );
  const json = (await db('--json', 'verify')).json();
  expect(json.chain).toEqual([]);
  expect(json.projections.map((d: any) => [d.key.node_id, d.live?.labels ?? null, d.rebuilt?.labels ?? null])).toEqual([
    ['edge-1', { env: 'tampered' }, derived],
    ['ghost', {}, null],
  ]);
  // Repaired to what the log derives, the database verifies again (and this file's database can be dropped).
  await sql`UPDATE nodes SET labels = ${JSON.stringify(derived)}::jsonb WHERE node_id = 'edge-1'`.execute(t.db);
  await sql`DELETE FROM nodes WHERE node_id = 'ghost'`.execute(t.db);
  expect((await db('verify')).code).toBe(EXIT.ok);
});

test('J3 verify and replay refuse a database another release migrated: migrations this one does not know, or its own not applied', async () => {
  const refusals = async (pattern: RegExp) => {
    for (const args of [['verify'], ['replay', '--into', 'other_release']]) {
      const r = await db(...args);
      expect([args[0], r.code, r.err]).toEqual([args[0], EXIT.failed, expect.stringMatching(pattern)]);
    }
    expect((await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = 'other_release'`.execute(t.db)).rows[0]!.n).toBe(0);
  };
  await sql`INSERT INTO schema_migrations (version, name, checksum) VALUES (9999, 'a_later_release', 'x')`.execute(t.db);
  try {
    await refusals(/^the database has migrations this release does not know \(9999\): run verify and replay of the release that migrated it\n/);
  } finally {
    await sql`DELETE FROM schema_migrations WHERE version = 9999`.execute(t.db);
  }
  const [last] = (await sql<{ version: number; name: string; checksum: string; applied_at: Date }>`SELECT * FROM schema_migrations ORDER BY version DESC LIMIT 1`.execute(t.db)).rows;
  await sql`DELETE FROM schema_migrations WHERE version = ${last!.version}`.execute(t.db);
  try {
    await refusals(new RegExp(`^the database lacks migrations of this release \\(${last!.version}\\): run \`fleetplane migrate\` as its owner first\n`));
  } finally {
    await sql`INSERT INTO schema_migrations VALUES (${last!.version}, ${last!.name}, ${last!.checksum}, ${last!.applied_at})`.execute(t.db);
  }
  expect((await db('verify')).code).toBe(EXIT.ok);
});

test('a log level the logger does not know is a usage error (exit 2) naming the levels, before the database is opened', async () => {
  const r = await fleetplane(['verify'], { DATABASE_URL: 'postgres://nobody:x@127.0.0.1:1/none', FLEETPLANE_DATA_DIR: dataDir, FLEETPLANE_LOG_LEVEL: 'loud' });
  expect(r.code).toBe(EXIT.usage);
  expect(r.err).toMatch(/^FLEETPLANE_LOG_LEVEL must be one of error, warn, info, http, verbose, debug, silly, got loud\n/);
});

test('a database that cannot be reached exits 4', async () => {
  const r = await fleetplane(['verify'], { DATABASE_URL: 'postgres://nobody:x@127.0.0.1:1/none', FLEETPLANE_DATA_DIR: dataDir });
  expect(r.code).toBe(EXIT.unreachable);
  expect(r.err).toMatch(/^cannot open the database: /);
});

test('J2 J3 with no DATABASE_URL and no database in the data directory, verify, replay and migrate refuse (exit 2) naming both, and make nothing there', async () => {
  const nowhere = join(dataDir, 'not-a-hub');
  for (const args of [['verify'], ['replay', '--into', 'audit_none'], ['migrate']]) {
    const r = await fleetplane(args, { FLEETPLANE_DATA_DIR: nowhere });
    expect([args, r.code]).toEqual([args, EXIT.usage]);
    expect(r.err).toMatch(
      new RegExp(`^no database: DATABASE_URL is not set and FLEETPLANE_DATA_DIR \\(${nowhere}\\) holds no embedded PostgreSQL \\(a Hub makes one at its first start\\)\\. Set DATABASE_URL to the Hub's database, or FLEETPLANE_DATA_DIR to its data directory\n`),
    );
    // Neither a new cluster nor a new admin token.
    expect(existsSync(nowhere)).toBe(false);
  }
});

test('J2 J3 the database commands on DATABASE_URL write nothing to the data directory: no admin.token', async () => {
  expect((await db('migrate')).code).toBe(EXIT.ok);
  expect((await db('verify')).code).toBe(EXIT.ok);
  expect((await db('replay', '--into', 'asof_nothing_written')).code).toBe(EXIT.ok);
  await sql`DROP SCHEMA asof_nothing_written CASCADE`.execute(t.db);
  expect(await readdir(dataDir)).toEqual([]);
});
