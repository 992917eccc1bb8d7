import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'rolldown';

/**
 * `npm run build:agent`: the agent as one npm package, dist/fleetplane-agent-<version>.tgz, that installs
 * without the repository and without a registry. Its bin is one JavaScript file holding the agent, core and
 * their dependencies, for plain Node 20.18.1 or later (no type stripping), next to its systemd unit.
 */
const root = resolve(import.meta.dirname, '..');
const agentDir = join(root, 'packages/agent');
const dist = join(root, 'dist');
const staging = join(dist, 'fleetplane-agent');
const { version } = JSON.parse(readFileSync(join(agentDir, 'package.json'), 'utf8')) as { version: string };
/** The oldest Node the bundle runs on: undici's (the Hub connections trusting --hub-ca); the agent's own needs stop at 20.3. */
const AGENT_NODE = '>=20.18.1';

rmSync(staging, { recursive: true, force: true });
mkdirSync(staging, { recursive: true });
await build({
  input: join(agentDir, 'src/cli.ts'),
  platform: 'node',
  transform: { target: 'node20.18' },
  logLevel: 'warn',
  output: { file: join(staging, 'fleetplane-agent.mjs'), format: 'esm' },
});
chmodSync(join(staging, 'fleetplane-agent.mjs'), 0o755);

const manifest = {
  name: 'fleetplane-agent',
  version,
  description: 'The Fleetplane agent: registers a node with a Fleetplane Hub, reports it and runs its attempts',
  license: 'Apache-2.0',
  type: 'module',
  bin: { 'fleetplane-agent': 'fleetplane-agent.mjs' },
  engines: { node: AGENT_NODE },
};
writeFileSync(join(staging, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
for (const file of ['README.md', 'fleetplane-agent.service', 'agent.env']) copyFileSync(join(agentDir, 'artifact', file), join(staging, file));

const packed = execFileSync('npm', ['pack', '--pack-destination', dist, '--json'], { cwd: staging, encoding: 'utf8' });
const [{ filename }] = JSON.parse(packed) as [{ filename: string }];
process.stdout.write(join(dist, filename) + '\n');
