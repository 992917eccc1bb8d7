import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());

// The tests' own server is an embedded one unless TEST_DATABASE_URL names another (test/support/global-setup.ts),
// started as the Hub starts its own (database/embedded.ts): what it reports is what a Hub's server runs with.
(process.env.TEST_DATABASE_URL ? test.skip : test)('the embedded server runs with its settings: deadlocks broken after 100 ms, no zero-filled WAL segments, checkpoints minutes apart', async () => {
  const { rows } = await sql<{ name: string; setting: string }>`
    SELECT name, current_setting(name) AS setting FROM pg_settings
    WHERE name IN ('deadlock_timeout', 'wal_init_zero', 'max_wal_size') ORDER BY name`.execute(t.db);
  expect(rows).toEqual([
    { name: 'deadlock_timeout', setting: '100ms' },
    { name: 'max_wal_size', setting: '4GB' },
    { name: 'wal_init_zero', setting: 'off' },
  ]);
});
