import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { trusting } from '../packages/hub/src/tls.ts';
import { makeCertificates } from './support/certificates.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { eventually } from './support/fleet.ts';
import { agentToken, caller, testConfig, TOKENS } from './support/hub.ts';
import { startConfiguredHub, type HubProcess } from './support/process.ts';

// Issue 23 item 5: the agent installs on a node without the repository. The package `npm run build:agent`
// makes is installed as its README says, with no registry, into an empty directory, and run by the
// machine's own Node (not the project's Node 24) against a Hub over HTTPS, trusting the Hub's CA.
const run = promisify(execFile);
const root = join(__dirname, '..');
/** PATH without node_modules/.bin, where `npx jest` put the project's Node: what `#!/usr/bin/env node` finds on a node. */
const machinePath = process.env.PATH!.split(delimiter).filter((dir) => !dir.includes('node_modules')).join(delimiter);
const machineNode = execFileSync('sh', ['-c', 'command -v node'], { env: { PATH: machinePath }, encoding: 'utf8' }).trim();
const machineNodeVersion = execFileSync(machineNode, ['--version'], { encoding: 'utf8' }).trim();
const systemdAnalyze = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((p) => existsSync(p));

const certs = makeCertificates();
let t: TestDatabase;
let hub: HubProcess;
let dir: string;
let installed: string;
const api = () => caller(hub.url, trusting(certs.ca, 'the test CA'));

beforeAll(async () => {
  t = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-artifact-'));
  hub = await startConfiguredHub({
    databaseUrl: t.url,
    dir,
    config: testConfig(1).file,
    env: { FLEETPLANE_TLS_CERT: certs.cert, FLEETPLANE_TLS_KEY: certs.key, FLEETPLANE_BIND: '127.0.0.1' },
  });
  const { stdout } = await run(process.execPath, [join(root, 'scripts/build-agent.ts')], { cwd: root });
  const tgz = stdout.trim();
  expect(tgz).toMatch(/\/dist\/fleetplane-agent-\d+\.\d+\.\d+\.tgz$/);
  // The README's install line, into an empty prefix; --offline: the package needs nothing from a registry.
  installed = join(dir, 'prefix');
  await run('npm', ['install', '--global', '--offline', '--prefix', installed, '--no-audit', '--no-fund', tgz], { env: { ...process.env, PATH: machinePath } });
}, 120_000);

afterAll(async () => {
  await hub?.stop('SIGTERM');
  await t?.drop();
  await rm(dir, { recursive: true, force: true });
  await rm(certs.dir, { recursive: true, force: true });
});

test(`issue 23 item 5: the installed agent runs on the machine's Node (${machineNodeVersion}): over HTTPS it registers, reports, runs a stream, and exits 3 once its node is retired`, async () => {
  const manifest = JSON.parse(await readFile(join(installed, 'lib/node_modules/fleetplane-agent/package.json'), 'utf8'));
  expect(manifest).toMatchObject({ bin: { 'fleetplane-agent': 'fleetplane-agent.mjs' }, engines: { node: expect.stringMatching(/^>=\d+/) } });
  expect(manifest.dependencies).toBeUndefined();

  // As the systemd unit runs it: the token and the Hub's CA from the environment (agent.env).
  const agent = spawn(join(installed, 'bin/fleetplane-agent'), ['--hub', hub.url, '--node-id', 'edge-1', '--state-dir', join(dir, 'state'), '--report-every-ms', '500', '--poll-seconds', '1'], {
    env: { PATH: machinePath, FLEETPLANE_AGENT_TOKEN: agentToken('edge-1'), FLEETPLANE_HUB_CA: certs.ca },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  agent.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  agent.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => agent.once('exit', (code) => resolve(code)));
  try {
    await eventually(async () => (/"agent started"/.test(output) ? true : undefined));
    const node = await eventually(async () => {
      const nodes = (await api().call('GET', '/api/v1/nodes')).body.items as Array<{ node_id: string; liveness: string }>;
      return nodes.find((n) => n.node_id === 'edge-1' && n.liveness === 'online');
    });
    expect(node).toBeDefined();

    // The process executor runs a real child, here on the machine's Node too.
    const put = (desired_state: string) =>
      api().call('PUT', '/api/v1/streams/ticker', {
        token: TOKENS.operator,
        body: { desired_state, spec: { command: machineNode, args: ['-e', 'setInterval(() => {}, 1000)'] }, placement: { nodes: ['edge-1'] } },
      });
    const observed = (state: string) =>
      eventually(async () => {
        const s = (await api().call('GET', '/api/v1/streams/ticker')).body;
        return s.observed?.['edge-1']?.state === state ? s.observed['edge-1'] : undefined;
      }, 20_000);
    expect((await put('running')).status).toBe(200);
    expect(await observed('running')).toMatchObject({ generation: 1 });
    expect((await put('stopped')).status).toBe(200);
    expect(await observed('stopped')).toMatchObject({ generation: 2 });

    expect((await api().call('DELETE', '/api/v1/nodes/edge-1?force=true', { token: TOKENS.operator })).status).toBe(200);
    expect(await exited).toBe(3);
    expect(output).toMatch(/"the Hub retired this node/);
  } finally {
    agent.kill('SIGKILL');
  }
}, 60_000);

(systemdAnalyze ? test : test.skip)('issue 23 item 5: the package carries a systemd unit that systemd-analyze verifies without a warning', async () => {
  const unit = await readFile(join(installed, 'lib/node_modules/fleetplane-agent/fleetplane-agent.service'), 'utf8');
  expect(unit).toMatch(/^ExecStart=\/usr\/local\/bin\/fleetplane-agent /m);
  expect(unit).toMatch(/^EnvironmentFile=\/etc\/fleetplane\/agent\.env$/m);
  expect(unit).not.toMatch(/--token/);
  // ExecStart must name a file that exists where it is verified: the installed bin stands in for /usr/local/bin's.
  const verified = join(dir, 'fleetplane-agent.service');
  await writeFile(verified, unit.replace('/usr/local/bin/fleetplane-agent', join(installed, 'bin/fleetplane-agent')));
  const { stdout, stderr } = await run(systemdAnalyze!, ['verify', verified]);
  expect(stdout + stderr).toBe('');
});

test("issue 23 item 5: the package's README installs it with the repository README's lines", async () => {
  const lines = (readme: string) => /```sh\n([^]*?)```/.exec(readme.slice(readme.indexOf('Install')))?.[1];
  const packaged = lines(await readFile(join(installed, 'lib/node_modules/fleetplane-agent/README.md'), 'utf8'));
  expect(packaged).toMatch(/^npm install --global --offline --prefix \/usr\/local /);
  expect(await readFile(join(root, 'README.md'), 'utf8')).toContain(packaged);
});
