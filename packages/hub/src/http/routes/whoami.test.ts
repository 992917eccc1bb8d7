import { createTestDatabase, type TestDatabase } from '../../../../../test/support/database.ts';
import { startTestHub, TOKENS, type TestHub } from '../../../../../test/support/hub.ts';

let t: TestDatabase;
let hub: TestHub;
beforeAll(async () => {
  t = await createTestDatabase();
  hub = await startTestHub(t.url);
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
});

test('GET /api/v1/whoami answers the caller identity and role', async () => {
  expect(await hub.call('GET', '/api/v1/whoami', { token: TOKENS.operator })).toMatchObject({ status: 200, body: { id: 'bob', role: 'operator' } });
  expect(await hub.call('GET', '/api/v1/whoami', { token: TOKENS.viewer })).toMatchObject({ status: 200, body: { id: 'audit', role: 'viewer' } });
});

test('GET /api/v1/whoami refuses unknown tokens (401) and agents (403)', async () => {
  expect((await hub.call('GET', '/api/v1/whoami', { token: 'nope' })).status).toBe(401);
  expect(await hub.call('GET', '/api/v1/whoami', { token: TOKENS.agent1 })).toMatchObject({ status: 403, body: { code: 'forbidden' } });
});
