import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { startPullTransport, type PullTransport } from './pull.ts';

let t: TestDatabase;
let pull: PullTransport;
beforeAll(async () => {
  t = await createTestDatabase();
  pull = await startPullTransport(t.url, (e) => {
    throw e;
  });
});
afterAll(async () => {
  await pull.stop();
  await t.drop();
});

test('a long poll whose caller is already gone ends at once, not at its deadline a minute later', async () => {
  const gone = new AbortController();
  gone.abort();
  await expect(pull.wait('edge-1', 60_000, gone.signal)).resolves.toBe(false);
});
