import { TOKENS } from '../../../../../test/support/hub.ts';
import { hubSuite } from '../../../../../test/support/hub-suite.ts';

const suite = hubSuite();

test('GET /api/v1/whoami answers the caller identity and role', async () => {
  expect(await suite.hub.call('GET', '/api/v1/whoami', { token: TOKENS.operator })).toMatchObject({ status: 200, body: { id: 'bob', role: 'operator' } });
  expect(await suite.hub.call('GET', '/api/v1/whoami', { token: TOKENS.viewer })).toMatchObject({ status: 200, body: { id: 'audit', role: 'viewer' } });
});

test('GET /api/v1/whoami refuses unknown tokens (401) and agents (403)', async () => {
  expect((await suite.hub.call('GET', '/api/v1/whoami', { token: 'nope' })).status).toBe(401);
  expect(await suite.hub.call('GET', '/api/v1/whoami', { token: TOKENS.agent1 })).toMatchObject({ status: 403, body: { code: 'forbidden' } });
});
