import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { deadlockTimeoutWarning } from './deadlock-timeout.ts';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());

test('the Hub warns, with the fix, when the server breaks deadlocks later than 100 ms', async () => {
  await t.db.connection().execute(async (conn) => {
    await sql`SET deadlock_timeout = '1s'`.execute(conn);
    expect(await deadlockTimeoutWarning(conn)).toMatch(/deadlock_timeout is 1000 ms: .*ALTER DATABASE <name> SET deadlock_timeout = '100ms'/);
    await sql`SET deadlock_timeout = '100ms'`.execute(conn);
    expect(await deadlockTimeoutWarning(conn)).toBeNull();
    await sql`RESET deadlock_timeout`.execute(conn);
  });
});
