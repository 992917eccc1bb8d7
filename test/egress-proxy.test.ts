import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { archiveStream } from '@fleetplane/core';
import { sql } from 'kysely';
import S3rver from 's3rver';
import { ConfigFile } from '../packages/hub/src/config.ts';
import { fleetActivity } from './support/activity.ts';
import { makeCertificates, type TestCertificates } from './support/certificates.ts';
import { startConnectProxy, type ConnectProxy } from './support/connect-proxy.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { eventually } from './support/fleet.ts';
import { caller, testConfig } from './support/hub.ts';
import { startOpenIdProvider, type OpenIdProvider } from './support/openid-provider.ts';
import { startConfiguredHub, type HubProcess } from './support/process.ts';
import { TEST_BUCKET } from './support/s3.ts';
import { closeCurrentSegment } from './support/segments.ts';

// A Hub in a locked-down network: its OpenID issuer and its S3 bucket have names only the egress proxy resolves
// (a CONNECT-only proxy, as test/tls.test.ts's), so the Hub reaches them through HTTPS_PROXY or not at all,
// verifying their certificates (NODE_EXTRA_CA_CERTS) at the tunnel's far end.

jest.setTimeout(120_000);

const IDP = 'idp.corp.invalid';
const S3 = 's3.corp.invalid';

let t: TestDatabase;
let dir: string;
let certs: TestCertificates;
let proxy: ConnectProxy;
let provider: OpenIdProvider;
let s3: S3rver;
let s3Port: number;
const hubs: HubProcess[] = [];
// Only the Hubs' own environment names the proxy: none of these is inherited from the test's.
const PROXY_NAMES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'];
const saved = PROXY_NAMES.map((n) => [n, process.env[n]] as const);

beforeAll(async () => {
  for (const n of PROXY_NAMES) delete process.env[n];
  t = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-egress-'));
  certs = makeCertificates([IDP, S3]);
  proxy = await startConnectProxy({ [IDP]: '127.0.0.1', [S3]: '127.0.0.1' });
  provider = await startOpenIdProvider({ accounts: {}, clients: [{ client_id: 'fleetplane', redirect_uris: ['http://localhost/sign-in/callback'] }], tls: { host: IDP, cert: certs.cert, key: certs.key } });
  s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: join(dir, 's3'),
    configureBuckets: [{ name: TEST_BUCKET, configs: [] }],
    // Its host is a name, not the bucket's (the Hub addresses buckets by path).
    vhostBuckets: false,
    cert: readFileSync(certs.cert),
    key: readFileSync(certs.key),
  });
  s3Port = (await s3.run()).port;
});
afterAll(async () => {
  for (const hub of hubs) await hub.stop('SIGKILL');
  await s3?.close();
  await provider?.stop();
  await proxy?.close();
  await t?.drop();
  await rm(dir, { recursive: true, force: true });
  await rm(certs.dir, { recursive: true, force: true });
  for (const [n, v] of saved) if (v !== undefined) process.env[n] = v;
});

/** A Hub process archiving to the bucket every second, trusting the issuer, with `env` on top of the proxy's. */
async function startHub(env: Record<string, string>): Promise<HubProcess> {
  const config = testConfig(2, {}, {}, { hot_max_bytes: '1kB', archive_every: '1s', archive: `s3://${TEST_BUCKET}/fleet/` }).file;
  config.control_api.oidc = ConfigFile.parse({
    control_api: { oidc: [{ name: 'corp', issuer: provider.issuer, audience: 'fleetplane', roles: { 'fleet-admins': 'admin' } }] },
  }).control_api.oidc;
  const hub = await startConfiguredHub({
    databaseUrl: t.url,
    dir,
    config,
    env: {
      HTTPS_PROXY: proxy.url,
      NODE_EXTRA_CA_CERTS: certs.ca,
      AWS_ENDPOINT_URL_S3: `https://${S3}:${s3Port}`,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_CONFIG_FILE: join(dir, 'no-aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-aws-credentials'),
      AWS_MAX_ATTEMPTS: '1',
      ...env,
    },
  });
  hubs.push(hub);
  return hub;
}

const archivedSegments = async () =>
  (await sql<{ v: number }>`SELECT coalesce((SELECT stream_version FROM stream_heads WHERE stream_id = ${archiveStream}), 0) AS v`.execute(t.db)).rows[0]!.v;
const idpTunnel = () => `${IDP}:${new URL(provider.issuer).port}`;

test("a Hub behind an egress proxy signs people in through its issuer and archives its log to S3 through HTTPS_PROXY, verifying the issuer's certificate; NO_PROXY naming their hosts sends it direct", async () => {
  const hub = await startHub({});
  const api = caller(hub.url);
  const ann = await provider.sign({ sub: 'ann', aud: 'fleetplane', groups: ['fleet-admins'] });
  const whoami = await api.call('GET', '/api/v1/whoami', { token: ann });
  expect([whoami.status, whoami.body]).toEqual([200, { id: 'corp:ann', role: 'admin' }]);
  // The token endpoint too: the issuer's own refusal of a code it never gave, not 503 issuer_unavailable.
  const exchanged = await api.call('POST', '/api/v1/auth/token', {
    token: null,
    body: { provider: 'corp', code: 'not-a-code', code_verifier: 'v'.repeat(43), redirect_uri: 'http://localhost/sign-in/callback' },
  });
  expect([exchanged.status, exchanged.body.code, exchanged.body.message]).toEqual([401, 'sso_failed', expect.stringContaining('invalid_grant')]);
  expect(new Set(proxy.tunnels)).toEqual(new Set([idpTunnel()]));

  await fleetActivity(api, 1);
  await closeCurrentSegment(t.db);
  await fleetActivity(api, 2);
  await eventually(async () => ((await archivedSegments()) === 1 ? true : undefined), 30_000);
  expect(new Set(proxy.tunnels)).toEqual(new Set([idpTunnel(), `${S3}:${s3Port}`]));
  await hub.stop('SIGTERM');

  // Through the tunnel the issuer's certificate is verified as without one: a Hub trusting another CA refuses it.
  const untrusting = await startHub({ NODE_EXTRA_CA_CERTS: certs.wrongCa });
  const unverified = await caller(untrusting.url).call('GET', '/api/v1/whoami', { token: ann });
  expect([unverified.status, unverified.body.code]).toEqual([503, 'issuer_unavailable']);
  expect(proxy.tunnels.at(-1)).toBe(idpTunnel());
  await untrusting.stop('SIGTERM');

  // Listed in NO_PROXY, the hosts are tried directly, where their names do not resolve: the proxy sees nothing.
  const seen = proxy.tunnels.length;
  const direct = await startHub({ NO_PROXY: `${IDP},${S3}` });
  const refused = await caller(direct.url).call('GET', '/api/v1/whoami', { token: ann });
  expect([refused.status, refused.body.code]).toEqual([503, 'issuer_unavailable']);
  await closeCurrentSegment(t.db);
  await fleetActivity(caller(direct.url), 3);
  const triedDirect = () => direct.output().split('\n').some((l) => l.includes('archiving the log failed') && l.includes(`getaddrinfo ENOTFOUND ${S3}`));
  await eventually(async () => (triedDirect() ? true : undefined), 30_000);
  expect(proxy.tunnels).toHaveLength(seen);
  expect(await archivedSegments()).toBe(1);
});
