import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { archiveDestination, durationMs, hashToken, loadConfig, newToken, parseConfigFile, reloadedConfig, sizeBytes } from './config.ts';
import { credentialStore } from './http/principal.ts';
import { makeCertificates } from '../../../test/support/certificates.ts';

const file = (digest: string) => JSON.stringify({ control_api: { credentials: [{ id: 'alice', role: 'admin', token_sha256: digest }] } });

test('a credential digest is hex in either case, as tools print it; the Hub keeps it lowercase and authenticates with it', () => {
  const parsed = parseConfigFile(file(hashToken('s3cret').toUpperCase()), 'fleetplane.json');
  expect(parsed.control_api.credentials[0]!.token_sha256).toBe(hashToken('s3cret'));
  expect(credentialStore(parsed.control_api.credentials)('s3cret')).toMatchObject({ id: 'alice', role: 'admin' });
});

test('one token_sha256 listed for two principals stops the Hub naming both; one principal listed with two tokens (a rotation) signs in with either', () => {
  const listed = (...credentials: object[]) => JSON.stringify({ control_api: { credentials } });
  const admin = { id: 'alice', role: 'admin', token_sha256: hashToken('old') };
  const copied = { id: 'edge-1-agent', role: 'agent', node_id: 'edge-1', token_sha256: hashToken('old') };
  expect(() => parseConfigFile(listed(admin, copied), 'f.json')).toThrow(
    'credentials alice (admin) and edge-1-agent (agent of edge-1) have the same token_sha256: a token signs in one principal',
  );
  const otherNode = { ...copied, id: 'alice', role: 'agent' };
  expect(() => parseConfigFile(listed(admin, otherNode), 'f.json')).toThrow('credentials alice (admin) and alice (agent of edge-1) have the same token_sha256');
  const rotating = parseConfigFile(listed(admin, { ...admin, token_sha256: hashToken('new') }, admin), 'f.json');
  const signIn = credentialStore(rotating.control_api.credentials);
  for (const token of ['old', 'new']) expect(signIn(token)).toEqual({ id: 'alice', role: 'admin', nodeId: null });
});

test('a generated token is taken whole as a command-line option\'s value (`--token T`), and is found by its prefix', () => {
  // Bare base64url would start with "-" once in 64 tokens, and the argument parser would refuse it as an option.
  for (let i = 0; i < 2000; i++) {
    const token = newToken();
    expect(token).toMatch(/^fp_[A-Za-z0-9_-]{32}$/);
    expect(parseArgs({ args: ['--token', token], options: { token: { type: 'string' } } }).values.token).toBe(token);
  }
});

test('a digest that is not 64 hex digits stops the Hub with the file named', () => {
  expect(() => parseConfigFile(file('abc'), 'fleetplane.json')).toThrow(/fleetplane\.json is not a valid Fleetplane configuration.*hex SHA-256/s);
});

test('issue 19 log.segment_duration is a duration, a day by default; a bad one stops the Hub with the key named', () => {
  expect(parseConfigFile('{}', 'fleetplane.json').log.segment_duration).toBe('1d');
  expect(durationMs(parseConfigFile('{"log": {"segment_duration": "90m"}}', 'fleetplane.json').log.segment_duration)).toBe(90 * 60_000);
  for (const [value, problem] of [
    ['"1 hour"', /a duration such as/],
    ['"30s"', /at least 1m/],
    ['"8d"', /at most 7d/],
    ['3600000', /Invalid input: expected string/],
  ] as const) {
    expect(() => parseConfigFile(`{"log": {"segment_duration": ${value}}}`, 'fleetplane.json')).toThrow(
      new RegExp(`fleetplane\\.json is not a valid Fleetplane configuration: ✖ ${problem.source}.* at log\\.segment_duration`, 's'),
    );
  }
});

const refusal = (log: string) => {
  try {
    parseConfigFile(`{"log": ${log}}`, 'fleetplane.json');
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`log ${log} was accepted`);
};

test('issue 19 the log is kept hot 7 days by default, with no size limit, archived every minute under the data directory', () => {
  const { log } = parseConfigFile('{}', 'fleetplane.json');
  expect(log).toEqual({ segment_duration: '1d', hot_retention: '7d', hot_max_bytes: null, archive: null, archive_every: '1m' });
  expect(archiveDestination({ dataDir: '/var/lib/fleetplane', file: parseConfigFile('{}', 'fleetplane.json') })).toEqual({
    kind: 'directory',
    path: '/var/lib/fleetplane/archive',
    url: 'file:///var/lib/fleetplane/archive',
  });
  const set = parseConfigFile('{"log": {"hot_retention": "36h", "hot_max_bytes": "50GB", "archive": "s3://fleet-archive/prod/log", "archive_every": "30s"}}', 'f.json').log;
  expect([durationMs(set.hot_retention), sizeBytes(set.hot_max_bytes!), durationMs(set.archive_every)]).toEqual([36 * 3_600_000, 50 * 1024 ** 3, 30_000]);
  expect(archiveDestination({ dataDir: '/x', file: parseConfigFile('{"log": {"archive": "s3://fleet-archive/prod/log"}}', 'f.json') })).toMatchObject({ kind: 's3', bucket: 'fleet-archive', prefix: 'prod/log/' });
  expect(sizeBytes('500MB')).toBe(500 * 1024 * 1024);
  expect(sizeBytes('1kB')).toBe(1024);
});

test.each([
  ['hot_retention', '"7 days"', /a duration such as/],
  ['hot_retention', '"0d"', /at least 1m/],
  ['hot_retention', '"30s"', /at least 1m/],
  ['hot_retention', '604800000', /expected string/],
  ['hot_max_bytes', '"50G"', /a size such as/],
  ['hot_max_bytes', '"0GB"', /more than 0 bytes/],
  ['hot_max_bytes', '"-5GB"', /a size such as/],
  ['hot_max_bytes', '"99999999TB"', /at most 8191TB/],
  ['archive', '"ftp://archive.example/log"', /the scheme ftp: is not supported/],
  ['archive', '"s3://Fleet_Archive/log"', /is not a bucket name/],
  ['archive', '"s3://fleet-archive/a//b"', /no empty, '\.' or '\.\.' segment/],
  ['archive', '""', /it is empty/],
  ['archive_every', '"500ms"', /at least 1s/],
  ['archive_every', '"2d"', /at most 1d/],
])('issue 19 log.%s %s is refused at start with the key named', (key, value, problem) => {
  expect(refusal(`{"${key}": ${value}}`)).toMatch(new RegExp(`fleetplane\\.json is not a valid Fleetplane configuration: ✖ .*${problem.source}.* at log\\.${key}`, 's'));
});

test.each(['approval_ttl_ms', 'idempotency_ttl_ms'])('control_api.%s past 3650 days is refused with the key named: an approval expiring then, or the oldest key kept then, is no date', (key) => {
  expect(() => parseConfigFile(`{"control_api": {"${key}": ${Number.MAX_SAFE_INTEGER}}}`, 'fleetplane.json')).toThrow(
    new RegExp(`fleetplane\\.json is not a valid Fleetplane configuration: ✖ at most 315360000000 \\(3650 days\\) at control_api\\.${key}`),
  );
  expect(parseConfigFile(`{"control_api": {"${key}": 315360000000}}`, 'fleetplane.json').control_api[key as 'approval_ttl_ms']).toBe(315_360_000_000);
});

test('issue 19 a relative log.archive path is read from the config file\'s directory, as other paths in it are', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fleetplane-config-'));
  try {
    const file = join(dir, 'fleetplane.json');
    await writeFile(file, JSON.stringify({ log: { archive: 'history/archive' } }));
    const config = await loadConfig({ FLEETPLANE_CONFIG: file, FLEETPLANE_DATA_DIR: join(dir, 'data') });
    expect(archiveDestination(config)).toMatchObject({ kind: 'directory', path: join(dir, 'history/archive') });
    await writeFile(file, JSON.stringify({ log: { archive: 'file:///srv/archive' } }));
    expect(archiveDestination(await loadConfig({ FLEETPLANE_CONFIG: file }))).toMatchObject({ kind: 'directory', path: '/srv/archive' });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('issue 23 item 3: a reload takes the live keys, keeps and names the others, and says which credentials came and went', () => {
  const running = parseConfigFile(file(hashToken('a')), 'fleetplane.json');
  const next = parseConfigFile(
    JSON.stringify({
      control_api: { approval_ttl_ms: 60_000, credentials: [{ id: 'bob', role: 'viewer', token_sha256: hashToken('b') }] },
      reconciliation: { mode: 'observe' },
      log: { archive_every: '5m' },
    }),
    'fleetplane.json',
  );
  const reloaded = reloadedConfig(running, next);
  expect(reloaded.kept).toEqual(['reconciliation.mode', 'log.archive_every']);
  expect([reloaded.added, reloaded.removed]).toEqual([['bob'], ['alice']]);
  expect(reloaded.file.control_api).toEqual(next.control_api);
  expect([reloaded.file.reconciliation, reloaded.file.log]).toEqual([running.reconciliation, running.log]);
});

describe('issue 23 item 2: the listener settings', () => {
  const certs = makeCertificates();
  afterAll(() => rm(certs.dir, { recursive: true, force: true }));
  const load = (env: Record<string, string>) => loadConfig({ FLEETPLANE_CONFIG: join(certs.dir, 'hub.json'), ...env });
  beforeAll(() => writeFile(join(certs.dir, 'hub.json'), '{}'));

  test('no certificate: plain HTTP on every interface; a pair: HTTPS with it; FLEETPLANE_BIND names the address', async () => {
    expect(await load({})).toMatchObject({ tls: null, bind: null });
    const config = await load({ FLEETPLANE_TLS_CERT: certs.cert, FLEETPLANE_TLS_KEY: certs.key, FLEETPLANE_BIND: '::1' });
    expect(config.tls).toMatchObject({ certFile: certs.cert, keyFile: certs.key, cert: expect.stringContaining('BEGIN CERTIFICATE') });
    expect(config.bind).toBe('::1');
    expect((await load({ FLEETPLANE_BIND: 'hub.internal' })).bind).toBe('hub.internal');
  });

  test.each([
    [{ FLEETPLANE_TLS_KEY: 'KEY' }, /FLEETPLANE_TLS_CERT and FLEETPLANE_TLS_KEY go together: set both to serve HTTPS, or neither/],
    [{ FLEETPLANE_TLS_CERT: 'CERT', FLEETPLANE_TLS_KEY: 'MISSING' }, /FLEETPLANE_TLS_KEY \S+missing\.key cannot be read: ENOENT/],
    [{ FLEETPLANE_TLS_CERT: 'KEY', FLEETPLANE_TLS_KEY: 'KEY' }, /cannot serve TLS: the certificate is not a PEM certificate/],
    [{ FLEETPLANE_TLS_CERT: 'CERT', FLEETPLANE_TLS_KEY: 'CERT' }, /cannot serve TLS: the key is not a PEM private key/],
    [{ FLEETPLANE_TLS_CERT: 'CERT', FLEETPLANE_TLS_KEY: 'ENCRYPTED' }, /cannot serve TLS: the private key is encrypted: give it unencrypted, readable by this user alone/],
    [{ FLEETPLANE_TLS_CERT: 'CERT', FLEETPLANE_TLS_KEY: 'OTHER' }, /cannot serve TLS: the private key does not match the certificate \(CN=localhost\)/],
    [{ FLEETPLANE_TLS_CERT: 'EXPIRED', FLEETPLANE_TLS_KEY: 'KEY' }, /cannot serve TLS: the certificate expired at 2020-01-02T00:00:00\.000Z/],
    [{ FLEETPLANE_BIND: '127.0.0.1:8080' }, /FLEETPLANE_BIND must be an IP address or a host name \(no port: that is FLEETPLANE_PORT\), got 127\.0\.0\.1:8080/],
    [{ FLEETPLANE_BIND: 'http://hub' }, /FLEETPLANE_BIND must be an IP address or a host name/],
  ])('%j is refused, saying why and never quoting the key', async (given, message) => {
    const files: Record<string, string> = { CERT: certs.cert, KEY: certs.key, OTHER: certs.otherKey, ENCRYPTED: certs.encryptedKey, EXPIRED: certs.expiredCert, MISSING: join(certs.dir, 'missing.key') };
    const env = Object.fromEntries(Object.entries(given).map(([k, v]) => [k, files[v] ?? v]));
    const refusal = await load(env).then(() => null, (e: Error) => e.message);
    expect(refusal).toMatch(message);
    expect(refusal).not.toContain('PRIVATE KEY');
  });
});

const issuer = (name: string, audience = 'fleetplane') => ({ name, issuer: `https://${name}.example`, audience, roles: { ops: 'operator' } });

test('issue 23 item 1: control_api.oidc is live; a reload names the issuers that came, went or changed', () => {
  const running = parseConfigFile(JSON.stringify({ control_api: { oidc: [issuer('corp'), issuer('lab')] } }), 'fleetplane.json');
  const next = parseConfigFile(JSON.stringify({ control_api: { oidc: [issuer('corp', 'other'), issuer('dex')] } }), 'fleetplane.json');
  const reloaded = reloadedConfig(running, next);
  expect(reloaded.kept).toEqual([]);
  expect(reloaded.file.control_api.oidc).toEqual(next.control_api.oidc);
  expect([reloaded.issuersAdded, reloaded.issuersRemoved]).toEqual([['corp', 'dex'], ['corp', 'lab']]);
});

test('issue 23 item 1: issuers have defaults, unique names, and no static credential is spelled as one of their principals', () => {
  const [corp] = parseConfigFile(JSON.stringify({ control_api: { oidc: [issuer('corp')] } }), 'f.json').control_api.oidc;
  expect(corp).toMatchObject({ client_id: null, scopes: ['openid', 'groups'], groups_claim: 'groups' });
  expect(() => parseConfigFile(JSON.stringify({ control_api: { oidc: [issuer('corp'), issuer('corp')] } }), 'f.json')).toThrow('two issuers are named corp');
  const spoof = { control_api: { oidc: [issuer('corp')], credentials: [{ id: 'corp:ann', role: 'admin', token_sha256: hashToken('t') }] } };
  expect(() => parseConfigFile(JSON.stringify(spoof), 'f.json')).toThrow('credential id corp:ann is spelled as a principal of issuer corp');
  const role = { control_api: { oidc: [{ ...issuer('corp'), roles: { ops: 'agent' } }] } };
  expect(() => parseConfigFile(JSON.stringify(role), 'f.json')).toThrow('control_api.oidc[0].roles.ops');
  expect(() => parseConfigFile(JSON.stringify({ control_api: { oidc: [{ ...issuer('corp'), issuer: 'ftp://x' }] } }), 'f.json')).toThrow('control_api.oidc[0].issuer');
});
