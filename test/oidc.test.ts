import { randomBytes } from 'node:crypto';
import { ConfigFile } from '../packages/hub/src/config.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { TestAgent } from './support/fleet.ts';
import { startTestHub, testConfig, TOKENS, type TestHub } from './support/hub.ts';
import { startOpenIdProvider, type OpenIdProvider } from './support/openid-provider.ts';
import { freePort } from './support/ports.ts';

// Issue 23 item 1: a Hub that trusts an OpenID provider (oidc-provider, a real one in a process of its own)
// beside its static credentials; its people are identities of their own for the approval gate (SPEC H10).

jest.setTimeout(90_000);

let t: TestDatabase;
let hub: TestHub;
let provider: OpenIdProvider;
let nowhere: string;

const issuers = (...list: { name: string; issuer: string }[]) =>
  ConfigFile.parse({
    control_api: { oidc: list.map((i) => ({ ...i, audience: 'fleetplane', roles: { 'fleet-admins': 'admin', 'fleet-ops': 'operator' } })) },
  }).control_api.oidc;

function reloadWith(oidc: ConfigFile['control_api']['oidc']) {
  const file = hub.context.config.file;
  hub.reload({ ...file, control_api: { ...file.control_api, oidc } });
}

beforeAll(async () => {
  t = await createTestDatabase();
  provider = await startOpenIdProvider({ accounts: {}, clients: [{ client_id: 'fleetplane', redirect_uris: ['http://localhost/sign-in/callback'] }] });
  nowhere = `http://localhost:${await freePort()}`;
  const config = testConfig(1, { mode: 'configuration' }, { approval_required: true });
  config.file.control_api.oidc = issuers({ name: 'corp', issuer: provider.issuer }, { name: 'gone', issuer: nowhere });
  hub = await startTestHub(t.url, { config });
  const agent = new TestAgent(hub, 'edge-1');
  await agent.register();
  await agent.report();
});
afterAll(async () => {
  await hub?.stop();
  await provider?.stop();
  await t?.drop();
});

const token = (sub: string, groups: string[], claims: Record<string, unknown> = {}) => provider.sign({ sub, aud: 'fleetplane', groups, ...claims });

test('issue 23.1: two subjects of one issuer are two identities for the approval gate; the submitter cannot approve', async () => {
  const ann = await token('ann', ['fleet-admins']);
  const ben = await token('ben', ['fleet-admins']);
  expect((await hub.call('GET', '/api/v1/whoami', { token: ann })).body).toEqual({ id: 'corp:ann', role: 'admin' });
  const version = (await hub.call('POST', '/api/v1/config-versions', { token: ann, body: { content: 'sso', format: 'text' } })).body.config_version;
  const submitted = await hub.call('POST', '/api/v1/config-approvals', { token: ann, body: { config_version: version, targets: { nodes: ['edge-1'] } } });
  expect(submitted.status).toBe(201);
  const own = await hub.call('POST', `/api/v1/config-approvals/${submitted.body.approval_id}/approve`, { token: await token('ann', ['fleet-admins']) });
  expect([own.status, own.body.code]).toEqual([403, 'self_approval_forbidden']);
  const approved = await hub.call('POST', `/api/v1/config-approvals/${submitted.body.approval_id}/approve`, { token: ben });
  expect(approved.status).toBe(200);
  expect(approved.body).toMatchObject({ status: 'approved', submitted_by: 'corp:ann', decided_by: 'corp:ben' });
});

test('issue 23.1: groups map to roles; a token none of whose groups has a role is refused (403 no_role)', async () => {
  expect((await hub.call('GET', '/api/v1/whoami', { token: await token('cid', ['staff', 'fleet-ops']) })).body).toEqual({ id: 'corp:cid', role: 'operator' });
  const none = await hub.call('GET', '/api/v1/whoami', { token: await token('eve', ['contractors']) });
  expect([none.status, none.body.code]).toEqual([403, 'no_role']);
});

test('issue 23.1: expired, other-audience and other-issuer tokens get 401 with their own code; an unreachable issuer 503, never admitted', async () => {
  const past = Math.floor(Date.now() / 1000) - 120;
  const expired = await hub.call('GET', '/api/v1/whoami', { token: await token('ann', ['fleet-admins'], { iat: past - 600, exp: past }) });
  expect([expired.status, expired.body.code]).toEqual([401, 'token_expired']);
  const audience = await hub.call('GET', '/api/v1/whoami', { token: await token('ann', ['fleet-admins'], { aud: 'another-app' }) });
  expect([audience.status, audience.body.code]).toEqual([401, 'token_invalid']);
  const other = await hub.call('GET', '/api/v1/whoami', { token: await token('ann', ['fleet-admins'], { iss: 'https://elsewhere.example' }) });
  expect([other.status, other.body.code]).toEqual([401, 'unknown_issuer']);
  const unreachable = await hub.call('POST', '/api/v1/config-versions', { token: await token('ann', ['fleet-admins'], { iss: nowhere }), body: { content: 'never', format: 'text' } });
  expect([unreachable.status, unreachable.body.code, unreachable.headers.get('retry-after')]).toEqual([503, 'issuer_unavailable', '2']);
  const versions = await hub.call('GET', '/api/v1/config-versions', { token: TOKENS.viewer });
  expect(JSON.stringify(versions.body)).not.toContain('never');
});

test('issue 23.1: static credentials keep working beside the issuers; an unknown plain token is 401 unauthenticated', async () => {
  expect((await hub.call('GET', '/api/v1/whoami', { token: TOKENS.operator })).body).toEqual({ id: 'bob', role: 'operator' });
  const unknown = await hub.call('GET', '/api/v1/whoami', { token: randomBytes(16).toString('hex') });
  expect([unknown.status, unknown.body.code]).toEqual([401, 'unauthenticated']);
});

test("F3 an operator signed in through the issuer sends a configuration version as large as a static credential may; a forged token's large body is 413", async () => {
  // About 2 MiB of JSON for 1 MiB of content: over the default body limit, within the route's own.
  const content = '"\n'.repeat(512 * 1024);
  const taken = await hub.call('POST', '/api/v1/config-versions', { token: await token('olga', ['fleet-ops']), body: { content, format: 'text' } });
  expect([taken.status, taken.body.size_bytes, taken.body.created_by]).toEqual([201, 1024 * 1024, expect.stringContaining('olga')]);
  const forged = await hub.call('POST', '/api/v1/config-versions', { token: (await token('olga', ['fleet-ops'])).slice(0, -4) + 'AAAA', body: { content, format: 'text' } });
  expect([forged.status, forged.body.code]).toEqual([413, 'body_too_large']);
});

test('issue 23.1: GET /auth/providers names the issuers for the console; a code the issuer does not know is refused (401 sso_failed)', async () => {
  const { providers } = (await hub.call('GET', '/api/v1/auth/providers', { token: null })).body;
  expect(providers).toEqual([
    { name: 'corp', issuer: provider.issuer, client_id: 'fleetplane', scopes: ['openid', 'groups'], authorization_endpoint: `${provider.issuer}/auth`, unavailable: null },
    expect.objectContaining({ name: 'gone', authorization_endpoint: null, unavailable: expect.stringContaining(nowhere) }),
  ]);
  const exchanged = await hub.call('POST', '/api/v1/auth/token', {
    token: null,
    body: { provider: 'corp', code: 'not-a-code', code_verifier: 'v'.repeat(43), redirect_uri: 'http://localhost/sign-in/callback' },
  });
  expect([exchanged.status, exchanged.body.code]).toEqual([401, 'sso_failed']);
  const unknown = await hub.call('POST', '/api/v1/auth/token', {
    token: null,
    body: { provider: 'nobody', code: 'c', code_verifier: 'v'.repeat(43), redirect_uri: 'http://localhost/sign-in/callback' },
  });
  expect([unknown.status, unknown.body.code]).toEqual([404, 'unknown_provider']);
});

test('issue 23.1: an issuer removed by a reload is trusted no more; added back, it is again', async () => {
  const ann = await token('ann', ['fleet-admins']);
  reloadWith(issuers({ name: 'gone', issuer: nowhere }));
  const refused = await hub.call('GET', '/api/v1/whoami', { token: ann });
  expect([refused.status, refused.body.code]).toEqual([401, 'unknown_issuer']);
  reloadWith(issuers({ name: 'corp', issuer: provider.issuer }));
  expect((await hub.call('GET', '/api/v1/whoami', { token: ann })).body).toEqual({ id: 'corp:ann', role: 'admin' });
});

test("a token's expiry is judged by the Hub's clock, the database's, not its host's: every Hub behind one address takes or refuses a token alike", async () => {
  // A Hub on a clock an hour ahead of this host's: a token with ten minutes left here has run out there.
  const config = testConfig(1);
  config.file.control_api.oidc = issuers({ name: 'corp', issuer: provider.issuer });
  const ahead = await startTestHub(t.url, { config, clock: { now: () => new Date(Date.now() + 3_600_000) } });
  try {
    const answer = await ahead.call('GET', '/api/v1/whoami', { token: await token('ann', ['fleet-admins']) });
    expect([answer.status, answer.body.code]).toEqual([401, 'token_expired']);
  } finally {
    await ahead.stop();
  }
});
