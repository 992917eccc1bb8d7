import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { EMBEDDED_SETTINGS } from './embedded-settings.ts';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());

// The tests' own server is an embedded one unless TEST_DATABASE_URL names another (test/support/global-setup.ts).
(process.env.TEST_DATABASE_URL ? test.skip : test)('the embedded server runs with its settings: deadlocks broken after 100 ms, no zero-filled WAL segments, checkpoints minutes apart', async () => {
  const settings = EMBEDDED_SETTINGS.map((s) => s.split('='));
  expect(settings.map(([name]) => name)).toEqual(['deadlock_timeout', 'wal_init_zero', 'max_wal_size']);
  for (const [name, value] of settings) {
    const { rows } = await sql<{ value: string }>`SELECT current_setting(${name}) AS value`.execute(t.db);
    expect([name, rows[0]!.value]).toEqual([name, value]);
  }
});
