import type { Warning } from 'pg-boss';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { startBoss } from './boss.ts';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.drop();
});

test('a handler that overruns its job\'s expiry reaches the Hub as a warning, naming the queue', async () => {
  let warned!: (w: Warning) => void;
  const warning = new Promise<Warning>((resolve) => (warned = resolve));
  const boss = await startBoss(t.url, [{ name: 'slow', options: { expireInSeconds: 1 } }], { error: (e) => { throw e; }, warning: warned });
  try {
    // The handler holds its job until pg-boss has said the job overran.
    await boss.work('slow', { pollingIntervalSeconds: 0.5 }, async () => void (await warning));
    await boss.send('slow', {});
    expect(await warning).toMatchObject({ data: { type: 'handler_overrun', queue: 'slow' } });
  } finally {
    await boss.stop({ graceful: false });
  }
});
