import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { jobQueuesReady } from '../jobs/boss.ts';
import { HUB_QUEUES, prepareDatabase } from './prepare.ts';

let t: TestDatabase;
beforeAll(async () => {
  // Migrated, but without pg-boss's schema: what the first Hubs find on a new database after `migrate` of the SQL alone.
  t = await createTestDatabase();
});
afterAll(() => t.drop());

test('three Hubs preparing one database at once all succeed: the job queues are installed one Hub at a time', async () => {
  expect(await jobQueuesReady(t.pool, HUB_QUEUES)).toBe(false);
  const outcomes = await Promise.allSettled([1, 2, 3].map(() => prepareDatabase(t.url)));
  expect(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : 'prepared'))).toEqual(['prepared', 'prepared', 'prepared']);
  expect(await jobQueuesReady(t.pool, HUB_QUEUES)).toBe(true);
});
