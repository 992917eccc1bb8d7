import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import { connect as connectTcp } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { Agent as Connections } from 'undici';
import { HubClient, HubUnreachable } from '../packages/agent/src/hub-client.ts';
import { fleetplane } from './support/cli.ts';
import { makeCertificates, type TestCertificates } from './support/certificates.ts';
import { startConnectProxy } from './support/connect-proxy.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { eventually, TestAgent } from './support/fleet.ts';
import { agentToken, caller, testConfig, TOKENS } from './support/hub.ts';
import { freePort } from './support/ports.ts';
import { startAgentProcess, startConfiguredHub, startHubProcess, startProcess, type AgentProcess, type HubProcess, type RunningProcess } from './support/process.ts';

// Issue 23 item 2: the Hub over HTTPS on a bind address, agents and the CLI verifying it against a CA, and the
// Hub verifying agents' TLS control endpoints against its own. Certificates are made by openssl for the test.
const HUB_TO_NODE_TOKEN = 'tls-hub-to-node-token-0123456789';
let certs: TestCertificates;
let t: TestDatabase;
let dir: string;
let hub: HubProcess;
let agent: AgentProcess | undefined;
const others: RunningProcess[] = [];
const trusting = (ca: string) => new Connections({ connect: { ca: readFileSync(ca, 'utf8') } });
// The Hub serves from copies it may have rotated under it (SIGHUP).
const hubCert = () => join(dir, 'hub.crt');
const hubKey = () => join(dir, 'hub.key');

beforeAll(async () => {
  certs = makeCertificates();
  t = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-tls-e2e-'));
  copyFileSync(certs.cert, hubCert());
  copyFileSync(certs.key, hubKey());
  await writeFile(join(dir, 'node-proxy.token'), HUB_TO_NODE_TOKEN + '\n', { mode: 0o600 });
  const file = testConfig(3).file;
  file.control_api.node_proxy_token_file = 'node-proxy.token';
  file.control_api.node_proxy_ca_file = certs.ca;
  hub = await startConfiguredHub({
    databaseUrl: t.url,
    dir,
    config: file,
    env: { FLEETPLANE_TLS_CERT: hubCert(), FLEETPLANE_TLS_KEY: hubKey(), FLEETPLANE_BIND: '127.0.0.1', FLEETPLANE_LOG_LEVEL: 'info' },
  });
}, 60_000);

afterAll(async () => {
  await agent?.stop('SIGKILL');
  await Promise.all(others.map((p) => p.stop('SIGKILL')));
  await hub?.stop('SIGKILL');
  try {
    const { pid } = JSON.parse(readFileSync(join(dir, 'edge-1', 'streams', 'over-tls', 'state.json'), 'utf8')) as { pid?: number };
    if (pid) process.kill(pid, 'SIGKILL');
  } catch {
    // never started, or already gone
  }
  await rm(dir, { recursive: true, force: true });
  await rm(certs.dir, { recursive: true, force: true });
  await t.drop();
});

const api = () => caller(hub.url, trusting(certs.ca));
const port = () => Number(new URL(hub.url).port);
/** Whether a TCP connection to `host` on the Hub's port is taken. */
const accepts = (host: string) =>
  new Promise<boolean>((resolve) => {
    const socket = connectTcp(port(), host, () => resolve(!!socket.end()));
    socket.once('error', () => resolve(false));
  });
/** The certificate the Hub presents to a new connection. */
const presented = () =>
  new Promise<X509Certificate>((resolve, reject) => {
    const socket = connectTls({ host: '127.0.0.1', port: port(), ca: readFileSync(certs.ca) }, () => {
      resolve(socket.getPeerX509Certificate()!);
      socket.end();
    });
    socket.once('error', reject);
  });
const jsonLines = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

test('issue 23 item 2: the Hub serves HTTPS on its bind address alone, and answers a client trusting its CA', async () => {
  expect(hub.url).toBe(`https://127.0.0.1:${port()}`);
  expect((await api().call('GET', '/readyz')).body.ready).toBe(true);
  expect((await api().call('GET', '/api/v1/nodes')).status).toBe(200);
  // Bound to 127.0.0.1: another loopback address finds nothing listening.
  expect(await accepts('127.0.0.1')).toBe(true);
  expect(await accepts('127.0.0.2')).toBe(false);
  // Plain HTTP to an HTTPS port gets no API answer.
  await expect(fetch(`http://127.0.0.1:${port()}/readyz`)).rejects.toThrow();
  // A client trusting another CA refuses the Hub before any request is sent.
  await expect(caller(hub.url, trusting(certs.wrongCa)).call('GET', '/readyz')).rejects.toMatchObject({ cause: { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' } });
});

test('issue 23 item 2: the CLI verifies the Hub against --ca or FLEETPLANE_CA, and names an untrusted certificate', async () => {
  const listed = await fleetplane(['nodes', '--hub', hub.url, '--ca', certs.ca, '--json'], { FLEETPLANE_TOKEN: TOKENS.admin });
  expect(listed.code).toBe(0);
  const byEnv = await fleetplane(['nodes', '--json'], { FLEETPLANE_HUB: hub.url, FLEETPLANE_CA: certs.ca, FLEETPLANE_TOKEN: TOKENS.admin });
  expect(byEnv.code).toBe(0);

  const wrong = await fleetplane(['nodes', '--hub', hub.url, '--ca', certs.wrongCa], { FLEETPLANE_TOKEN: TOKENS.admin });
  expect(wrong.code).toBe(4);
  expect(wrong.err).toMatch(/its TLS certificate is not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE: .*\); is it signed by the CA in --ca/);
  const none = await fleetplane(['nodes', '--hub', hub.url], { FLEETPLANE_TOKEN: TOKENS.admin });
  expect(none.code).toBe(4);
  expect(none.err).toMatch(/its TLS certificate is not trusted .*give the CA that signed it with --ca or FLEETPLANE_CA/);

  const notCa = await fleetplane(['nodes', '--hub', hub.url, '--ca', certs.key], { FLEETPLANE_TOKEN: TOKENS.admin });
  expect(notCa.code).toBe(2);
  expect(notCa.err).toContain(`--ca ${certs.key} is not a PEM certificate`);
  const plain = await fleetplane(['nodes', '--hub', 'http://127.0.0.1:9', '--ca', certs.ca], { FLEETPLANE_TOKEN: TOKENS.admin });
  expect(plain.code).toBe(2);
  expect(plain.err).toContain('is not https://: it would not be verified');
});

test('issue 23 item 2: an agent trusting the CA registers, serves its control endpoint over TLS, and the Hub pushes to it', async () => {
  const credential = await fleetplane(['node-credential', 'edge-1', '--token-file', join(dir, 'node-proxy.token')], {});
  agent = await startAgentProcess({
    hub: hub.url,
    'hub-ca': certs.ca,
    'node-id': 'edge-1',
    token: agentToken('edge-1'),
    'state-dir': join(dir, 'edge-1'),
    'report-every-ms': '500',
    'poll-seconds': '60',
    'control-port': '0',
    'control-cert': certs.cert,
    'control-key': certs.key,
    'hub-credential-sha256': credential.out.trim(),
  });
  const started = jsonLines(agent.output()).find((l) => l.message === 'agent started')!;
  expect(started.control_address).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  expect((await api().call('GET', '/api/v1/nodes/edge-1')).body.control_address).toBe(started.control_address);

  const worker = { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] };
  const put = await api().call('PUT', '/api/v1/streams/over-tls', { token: TOKENS.operator, body: { desired_state: 'running', spec: worker, placement: { nodes: ['edge-1'] } } });
  expect(put.status).toBe(200);
  await eventually(async () => {
    const s = (await api().call('GET', '/api/v1/streams/over-tls')).body;
    return s.observed?.['edge-1']?.state === 'running' && s.intents?.[0]?.state === 'converged' ? s : undefined;
  }, 20_000);
  // Delivered by the Hub over the TLS control endpoint, not taken by the long poll.
  const received = jsonLines(agent.output()).filter((l) => l.message === 'attempt received');
  expect(received).toEqual([expect.objectContaining({ channel: 'node_proxy', path: '/v1/attempts' })]);
}, 40_000);

test('issue 23 item 2: an agent trusting another CA never reaches the Hub and logs why', async () => {
  const agentDir = await mkdtemp(join(tmpdir(), 'fleetplane-tls-agent-'));
  const cli = join(__dirname, '../packages/agent/src/cli.ts');
  const args = ['--hub', hub.url, '--hub-ca', certs.wrongCa, '--node-id', 'edge-3', '--token', agentToken('edge-3'), '--state-dir', agentDir];
  const refused = await startProcess(cli, args, process.env, /^\{.*"register failed, retrying".*\}$/m);
  others.push(refused);
  const line = JSON.parse(refused.match[0]);
  expect(line).toMatchObject({ level: 'warn', error: 'POST /api/v1/agent/register: no answer from the Hub', cause: expect.stringMatching(/unable to verify the first certificate/) });
  expect((await api().call('GET', '/api/v1/nodes/edge-3')).status).toBe(404);
  await refused.stop('SIGTERM');
  await rm(agentDir, { recursive: true, force: true });
});

test('an agent and the CLI behind an egress proxy reach the Hub through HTTPS_PROXY, verifying its certificate inside the tunnel; NO_PROXY naming its host sends them direct', async () => {
  const proxy = await startConnectProxy();
  const names = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'];
  const saved = names.map((n) => [n, process.env[n]] as const);
  for (const n of names) delete process.env[n];
  const ca = readFileSync(certs.ca, 'utf8');
  // An answer of the Hub's own (a poll's, edge-3 holding nothing) is the proof a request reached it.
  const poll = (trusted: string) => new HubClient(hub.url, agentToken('edge-3'), 10_000, trusted).attempts(0);
  const tunnel = `127.0.0.1:${port()}`;
  try {
    process.env.HTTPS_PROXY = proxy.url;
    await expect(poll(ca)).resolves.toEqual({ attempts: [], removedStreams: [] });
    expect(proxy.tunnels).toEqual([tunnel]);
    await expect(poll(readFileSync(certs.wrongCa, 'utf8'))).rejects.toBeInstanceOf(HubUnreachable);
    expect(proxy.tunnels).toEqual([tunnel, tunnel]);
    const listed = await fleetplane(['nodes', '--hub', hub.url, '--ca', certs.ca, '--json'], { FLEETPLANE_TOKEN: TOKENS.admin, HTTPS_PROXY: proxy.url });
    expect(listed.code).toBe(0);
    expect(proxy.tunnels).toEqual([tunnel, tunnel, tunnel]);

    process.env.NO_PROXY = '127.0.0.1';
    await expect(poll(ca)).resolves.toEqual({ attempts: [], removedStreams: [] });
    const direct = await fleetplane(['nodes', '--hub', hub.url, '--ca', certs.ca, '--json'], { FLEETPLANE_TOKEN: TOKENS.admin, HTTPS_PROXY: proxy.url, NO_PROXY: '127.0.0.1' });
    expect(direct.code).toBe(0);
    expect(proxy.tunnels).toHaveLength(3);
  } finally {
    for (const [n, v] of saved) {
      if (v === undefined) delete process.env[n];
      else process.env[n] = v;
    }
    await proxy.close();
  }
});

test('issue 23 item 2: the agent refuses a bad control pair or a CA file that is no certificate, with exit code 2', async () => {
  const base = { hub: hub.url, 'node-id': 'edge-3', token: 't', 'state-dir': '/nonexistent/fleetplane-agent' };
  await expect(startAgentProcess({ ...base, 'control-port': '0', 'control-cert': certs.cert, 'control-key': certs.otherKey })).rejects.toThrow(
    /exited with 2 before it was ready:\n[^]*cannot serve TLS: the private key does not match the certificate/,
  );
  await expect(startAgentProcess({ ...base, 'control-port': '0', 'control-cert': certs.cert })).rejects.toThrow(/--control-cert and --control-key go together/);
  await expect(startAgentProcess({ ...base, 'hub-ca': certs.key })).rejects.toThrow(/--hub-ca \S+ is not a PEM certificate/);
});

test('issue 23 item 2: the Hub refuses a control endpoint whose certificate is not from its CA, sends it nothing and retries', async () => {
  // edge-2's endpoint presents a certificate of another CA: the handshake fails before any request.
  let requests = 0;
  const wrongKey = join(certs.dir, 'wrong-ca.key');
  const impostor = createServer({ cert: readFileSync(certs.wrongCa), key: readFileSync(wrongKey) }, (req, res) => {
    requests += 1;
    res.writeHead(202).end('{}');
  });
  await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
  try {
    const node = new TestAgent(api(), 'edge-2');
    expect((await node.register({ control_address: `https://127.0.0.1:${(impostor.address() as AddressInfo).port}` })).status).toBe(200);
    expect((await node.report()).status).toBe(202);
    const put = await api().call('PUT', '/api/v1/streams/untrusted', { token: TOKENS.operator, body: { desired_state: 'running', spec: { command: 'true' }, placement: { nodes: ['edge-2'] } } });
    expect(put.status).toBe(200);
    const failed = await eventually(async () => {
      const intents = (await api().call('GET', '/api/v1/intents?stream_id=untrusted')).body.items as Array<{ intent_id: string }>;
      const attempts = intents.length ? (await api().call('GET', `/api/v1/intents/${intents[0]!.intent_id}`)).body.attempts : [];
      return attempts.find((a: { code: string | null }) => a.code === 'node_untrusted');
    }, 20_000);
    // Never sent: a temporary failure, retried with backoff (the CA may be fixed, or the node's certificate).
    expect(failed).toMatchObject({ state: 'failed', failure_class: 'temporary', message: expect.stringMatching(/^the control endpoint's TLS handshake failed: .*self-signed certificate/) });
    const intent = (await api().call('GET', `/api/v1/intents/${failed.intent_id}`)).body;
    expect(intent).toMatchObject({ failure_code: 'node_untrusted', next_retry_at: expect.any(String) });
    expect(requests).toBe(0);
    const warned = jsonLines(hub.output()).find((l) => String(l.message).startsWith('attempt push refused'))!;
    expect(warned).toMatchObject({ node_id: 'edge-2', error: expect.stringMatching(/self-signed certificate/) });
  } finally {
    impostor.close();
  }
}, 30_000);

/** `fleetplane_tls_certificate_expiry_timestamp_seconds` as /metrics shows it. */
const certificateExpiry = async () => {
  const text = (await api().call('GET', '/metrics')).body as string;
  return Number(/^fleetplane_tls_certificate_expiry_timestamp_seconds (\S+)$/m.exec(text)?.[1]);
};
const notAfterSeconds = (file: string) => new X509Certificate(readFileSync(file)).validToDate.getTime() / 1000;

test('issue 23 item 2: SIGHUP serves a renewed certificate to new connections, and refuses a bad pair keeping the running one; /metrics shows the serving certificate\'s expiry', async () => {
  expect((await presented()).fingerprint256).toBe(new X509Certificate(readFileSync(certs.cert)).fingerprint256);
  expect(await certificateExpiry()).toBe(notAfterSeconds(certs.cert));
  copyFileSync(certs.renewedCert, hubCert());
  copyFileSync(certs.renewedKey, hubKey());
  hub.child.kill('SIGHUP');
  await eventually(async () => (hub.output().includes('"TLS certificate reloaded"') ? true : undefined));
  const renewed = new X509Certificate(readFileSync(certs.renewedCert)).fingerprint256;
  expect((await presented()).fingerprint256).toBe(renewed);
  expect(await certificateExpiry()).toBe(notAfterSeconds(certs.renewedCert));
  expect(notAfterSeconds(certs.renewedCert)).toBeGreaterThan(notAfterSeconds(certs.cert));

  // A key that is not the certificate's: refused, and the renewed pair still serves.
  copyFileSync(certs.otherKey, hubKey());
  hub.child.kill('SIGHUP');
  const refused = await eventually(async () => jsonLines(hub.output()).find((l) => l.message === 'TLS certificate reload refused; the running certificate is kept'));
  expect(refused.reason).toContain('the private key does not match the certificate');
  expect((await presented()).fingerprint256).toBe(renewed);
  expect(await certificateExpiry()).toBe(notAfterSeconds(certs.renewedCert));
  expect((await api().call('GET', '/readyz')).status).toBe(200);
  // The key's text is never logged.
  const keyBody = readFileSync(certs.otherKey, 'utf8').split('\n')[1]!;
  expect(hub.output()).not.toContain(keyBody);
});

test.each([
  ['a key that is not the certificate’s', () => ({ FLEETPLANE_TLS_CERT: certs.cert, FLEETPLANE_TLS_KEY: certs.otherKey }), /cannot serve TLS: the private key does not match the certificate \(CN=localhost\)/],
  ['an expired certificate', () => ({ FLEETPLANE_TLS_CERT: certs.expiredCert, FLEETPLANE_TLS_KEY: certs.key }), /cannot serve TLS: the certificate expired at 2020-01-02T00:00:00.000Z/],
  // config.test.ts checks the other refusals loadConfig makes.
])('issue 23 item 2: the Hub refuses to start on %s, exits 2, says why and starts nothing', async (_, env, message) => {
  const dataDir = join(dir, `refused-${Math.random().toString(36).slice(2)}`);
  const start = startHubProcess({ ...env(), FLEETPLANE_DATA_DIR: dataDir, FLEETPLANE_PORT: String(await freePort()), FLEETPLANE_PG_PORT: String(await freePort()) });
  await expect(start).rejects.toThrow(/exited with 2 before it was ready/);
  await expect(start).rejects.toThrow(message);
  // Nothing was made: no data directory, no embedded server.
  expect(existsSync(dataDir)).toBe(false);
}, 30_000);
