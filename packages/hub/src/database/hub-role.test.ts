import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { at, event } from '../../../../test/support/events.ts';
import { startTestHub, TOKENS } from '../../../../test/support/hub.ts';
import { useSmallSegments } from '../../../../test/support/segments.ts';
import { openDestination, parseDestination } from '../archive/destination-url.ts';
import { archiveDueSegments } from '../archiver/archive-segments.ts';
import type { Clock } from '../clock.ts';
import { createPipeline } from '../commands/pipeline.ts';
import { appendToStream } from '../event-store/append.ts';
import { keepSegmentsAhead, listSegments, SEGMENT_BOUNDS } from '../event-store/segments.ts';
import { createLogger } from '../logger.ts';
import { allProjections } from '../projections/all.ts';
import { replayAsOf } from '../projections/replay-as-of.ts';
import { connect, type Database } from './connect.ts';
import { prepareDatabase } from './prepare.ts';
import type { Tables } from './tables.ts';

// Issue 23 item 4: the Hub runs as a member of fleetplane_hub. The owner migrates (prepareDatabase); the Hub's
// role appends and reads the log but cannot edit it, alter a table or create a role, and the whole Hub works.
const HOUR = 3_600_000;
const clock: Clock = { now: () => new Date(at.getTime() + 2 * HOUR) };
let t: TestDatabase;
let hubRole: Database;
let scratch: string;
const login = `fp_hub_${randomBytes(4).toString('hex')}`;
const password = randomBytes(12).toString('hex');

beforeAll(async () => {
  t = await createTestDatabase();
  scratch = await mkdtemp(join(tmpdir(), 'fleetplane-hub-role-'));
  await prepareDatabase(t.url);
  await sql`CREATE ROLE ${sql.id(login)} LOGIN PASSWORD ${sql.lit(password)} IN ROLE fleetplane_hub`.execute(t.db);
  const url = new URL(t.url);
  url.username = login;
  url.password = password;
  hubRole = connect(url.toString(), { max: 4 });
});
afterAll(async () => {
  await hubRole?.close();
  await sql`DROP ROLE IF EXISTS ${sql.id(login)}`.execute(t.db);
  await t?.drop();
  await rm(scratch, { recursive: true, force: true });
});

/** The error code `statement` fails with as the Hub's role, or null when it is allowed. */
const asHub = async (statement: ReturnType<typeof sql>) => {
  try {
    await statement.execute(hubRole.db);
    return null;
  } catch (e) {
    return (e as { code?: string }).code ?? (e as Error).message;
  }
};
const DENIED = '42501'; // insufficient_privilege

test("issue 23 item 4: the Hub's role appends events but is refused UPDATE, DELETE and TRUNCATE on them, ALTER TABLE, DROP, CREATE ROLE and CREATE SCHEMA", async () => {
  expect((await appendToStream(hubRole.db, 'role-test', 'any', [event('Happened', { n: 1 })])).ok).toBe(true);
  const [segment] = (await listSegments(hubRole.db)).map((s) => s.name);
  expect(await asHub(sql`UPDATE events SET data = '{}' WHERE stream_id = 'role-test'`)).toBe(DENIED);
  expect(await asHub(sql`DELETE FROM events WHERE stream_id = 'role-test'`)).toBe(DENIED);
  expect(await asHub(sql`UPDATE ${sql.table(segment!)} SET data = '{}'`)).toBe(DENIED);
  expect(await asHub(sql`TRUNCATE events`)).toBe(DENIED);
  expect(await asHub(sql`CREATE ROLE fp_intruder LOGIN SUPERUSER`)).toBe(DENIED);
  expect(await asHub(sql`ALTER TABLE events DISABLE TRIGGER events_append_only`)).toBe(DENIED);
  expect(await asHub(sql`ALTER TABLE nodes ADD COLUMN intruder int`)).toBe(DENIED);
  expect(await asHub(sql`DROP TABLE ${sql.table(segment!)}`)).toBe(DENIED);
  expect(await asHub(sql`CREATE SCHEMA intruder`)).toBe(DENIED);
  expect(await asHub(sql`DELETE FROM schema_migrations`)).toBe(DENIED);
  // The owner's functions do their one thing: a segment the archive does not hold is not dropped through them.
  expect(await asHub(sql`SELECT detach_archived_segment(${segment!})`)).toBe(DENIED);
  expect(await asHub(sql`SELECT drop_detached_segment('nodes')`)).toBe('22023');
  expect((await sql<{ n: number }>`SELECT count(*)::int AS n FROM events WHERE stream_id = 'role-test'`.execute(t.db)).rows[0]!.n).toBe(1);
});

test("issue 23 item 4: every table and view a migration made is open to the Hub's role: a migration that forgets its grant fails here", async () => {
  const { rows } = await sql<{ name: string }>`
    SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v') AND NOT c.relispartition
      AND NOT has_table_privilege('fleetplane_hub', c.oid, 'SELECT')`.execute(t.db);
  expect(rows.map((r) => r.name)).toEqual([]);
});

test("issue 23 item 4: the whole Hub runs as that role: its database's identity, API writes, the job queues, and segment upkeep", async () => {
  const url = new URL(t.url);
  url.username = login;
  url.password = password;
  const hub = await startTestHub(url.toString());
  try {
    expect((await hub.call('GET', '/readyz')).body.ready).toBe(true);
    // It read the database's identity (pg_control_system(), the current WAL file's timeline: PUBLIC's) and recorded it.
    expect(await hubRole.db.selectFrom('database_identity').select(['timeline', 'restored_at']).execute()).toEqual([{ timeline: expect.any(Number), restored_at: null }]);
    expect((await hub.call('POST', '/api/v1/agent/register', { token: TOKENS.agent1, body: { node_id: 'edge-1', boot_id: 'b1' } })).status).toBe(200);
    const put = await hub.call('PUT', '/api/v1/streams/ingest', {
      body: { desired_state: 'running', spec: { command: 'true' }, placement: { nodes: ['edge-1'] } },
    });
    expect(put.status).toBe(200);
    // The reconcile job (pg-boss, as the Hub's role) queues the attempt the agent's poll takes.
    const polled = await hub.call('GET', '/api/v1/agent/attempts?wait=10', { token: TOKENS.agent1 });
    expect(polled.body.attempts).toHaveLength(1);
    expect(await keepSegmentsAhead(hubRole.db, { ...SEGMENT_BOUNDS, durationMs: HOUR }, new Date())).toEqual(expect.any(Array));
  } finally {
    await hub.stop();
  }
}, 60_000);

test("issue 23 item 4: the archiver, as the Hub's role, exports, records, detaches and drops archived segments", async () => {
  const owner = await createTestDatabase();
  try {
    await prepareDatabase(owner.url);
    await useSmallSegments(owner.db, 20, 7);
    for (let i = 0; i < 120; i++) expect((await appendToStream(owner.db, `crash-${'abc'[i % 3]}`, 'any', [event('Happened', { n: i })])).ok).toBe(true);
    const url = new URL(owner.url);
    url.username = login;
    url.password = password;
    const role = connect(url.toString(), { max: 2 });
    try {
      const db: Kysely<Tables> = role.db;
      await archiveDueSegments({
        db,
        pipeline: createPipeline({ db, boss: null, clock, projections: allProjections }),
        destination: openDestination(parseDestination(join(scratch, 'archive'))),
        policy: { hotRetentionMs: HOUR, hotMaxBytes: null },
        projections: allProjections,
        clock,
        logger: createLogger('error', true),
      });
      const archived = (await sql<{ n: number }>`SELECT count(*)::int AS n FROM events WHERE stream_id = 'log:archive'`.execute(db)).rows[0]!.n;
      expect(archived).toBeGreaterThan(0);
      expect((await listSegments(owner.db)).map((s) => s.name)).not.toContain('events_0000000000000000001');
    } finally {
      await role.close();
    }
  } finally {
    await owner.drop();
  }
}, 60_000);

test("issue 23 item 4: fleetplane_reader runs db/README.md's as-of example on a schema replay --into made", async () => {
  await replayAsOf(t.db, allProjections, { schema: 'asof_test', archive: () => openDestination(parseDestination(join(scratch, 'none'))) });
  const client = new pg.Client({ connectionString: t.url });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL ROLE fleetplane_reader');
    // The reader may read both schemas: each query answers rows (none or some), not permission denied.
    const reads = [
      `SELECT a.intent_id, a.state AS then, n.state AS now FROM asof_test.intents a JOIN public.intents n USING (intent_id)
      WHERE a.state IS DISTINCT FROM n.state`,
      `SELECT node_id, labels FROM asof_test.nodes WHERE node_id = 'edge-1'`,
      `SELECT * FROM asof_test.observed_streams WHERE node_id = 'edge-1'`,
    ];
    for (const read of reads) await expect(client.query(read)).resolves.toMatchObject({ command: 'SELECT', rows: expect.any(Array) });
    await client.query('ROLLBACK');
  } finally {
    await client.end();
  }
  await sql`DROP SCHEMA asof_test CASCADE`.execute(t.db);
});
