import { sql, type Kysely } from 'kysely';
import { createTestDatabase, snapshotDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { startTestHub } from '../../../../test/support/hub.ts';
import type { Tables } from './tables.ts';

// The database's identity (database/identity.ts): recorded once per identity, by the Hubs' start and their
// sweeps. A clone of the migrated template (every test database) has none: no Hub ever started on it.
let t: TestDatabase;
let copy: TestDatabase | undefined;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await copy?.drop();
  await t.drop();
});

const recorded = async (db: Kysely<Tables>) =>
  (await sql<{ data: Record<string, unknown>; recorded_at: Date }>`SELECT data, recorded_at FROM event_history WHERE stream_id = 'database:identity' ORDER BY stream_version`.execute(db)).rows;
const live = async (db: Kysely<Tables>) =>
  (
    await sql<{ system_identifier: string; timeline: number; database_oid: number }>`
      SELECT s.system_identifier::text AS system_identifier, c.timeline_id AS timeline, d.oid::bigint AS database_oid
      FROM pg_control_system() s, pg_control_checkpoint() c, pg_database d WHERE d.datname = current_database()`.execute(db)
  ).rows[0]!;

test('a fresh database records its identity at the first start, as no restore; a second start on it records nothing', async () => {
  expect(await recorded(t.db)).toEqual([]);
  const first = await startTestHub(t.url);
  const identity = await live(t.db);
  expect((await recorded(t.db)).map((r) => r.data)).toEqual([{ ...identity, previous: null }]);
  expect(await t.db.selectFrom('database_identity').selectAll().execute()).toEqual([expect.objectContaining({ ...identity, restored_at: null })]);
  expect((await first.call('GET', '/readyz')).body.checks.database).toEqual({ ok: true });
  await first.stop();
  const second = await startTestHub(t.url, { sweepEveryMs: 50 });
  await new Promise((r) => setTimeout(r, 200));
  await second.stop();
  expect(await recorded(t.db)).toHaveLength(1);
});

test('a copy of it (a restore) is another identity: Hubs starting on it together record the change once, restored_at the time of its event', async () => {
  copy = await snapshotDatabase(t);
  const hubs = await Promise.all([startTestHub(copy.url), startTestHub(copy.url)]);
  await Promise.all(hubs.map((h) => h.stop()));
  const [before, change] = await recorded(copy.db);
  expect(change).toBeDefined();
  expect(await recorded(copy.db)).toHaveLength(2);
  expect(change!.data).toEqual({ ...(await live(copy.db)), previous: { ...(await live(t.db)) } });
  expect(change!.data.database_oid).not.toBe(before!.data.database_oid);
  expect(await copy.db.selectFrom('database_identity').select('restored_at').execute()).toEqual([{ restored_at: change!.recorded_at }]);
});
