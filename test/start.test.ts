import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashToken } from '../packages/hub/src/config.ts';
import { freePort } from './support/ports.ts';
import { startHubProcess as start } from './support/process.ts';

const dataDirs: string[] = [];
const newDataDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fleetplane-start-'));
  dataDirs.push(dir);
  return dir;
};
afterAll(() => Promise.all(dataDirs.map((d) => rm(d, { recursive: true, force: true }))));

const call = async (url: string, method: string, path: string, token: string, body?: unknown) => {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as any };
};

test('F2 npm start runs the Hub on embedded PostgreSQL, stops cleanly on SIGTERM and keeps labels across restarts', async () => {
  const dataDir = await newDataDir();
  const configFile = join(dataDir, 'config.json');
  await writeFile(
    configFile,
    JSON.stringify({
      control_api: {
        credentials: [
          { id: 'alice', role: 'admin', token_sha256: hashToken('admin-secret') },
          { id: 'edge-1-agent', role: 'agent', node_id: 'edge-1', token_sha256: hashToken('agent-secret') },
        ],
      },
    }),
  );
  const env = {
    FLEETPLANE_DATA_DIR: dataDir,
    FLEETPLANE_CONFIG: configFile,
    FLEETPLANE_PORT: String(await freePort()),
    FLEETPLANE_PG_PORT: String(await freePort()),
  };

  const first = await start(env);
  expect((await call(first.url, 'GET', '/readyz', '')).body.ready).toBe(true);
  expect((await call(first.url, 'POST', '/api/v1/agent/register', 'agent-secret', { node_id: 'edge-1', boot_id: 'b1' })).status).toBe(200);
  expect((await call(first.url, 'PUT', '/api/v1/nodes/edge-1/labels', 'admin-secret', { labels: { env: 'prod' } })).status).toBe(200);
  expect(await first.stop('SIGTERM')).toBe(0);
  expect(first.output()).not.toContain('admin-secret');
  // The embedded server is started breaking deadlocks after 100 ms, so the Hub has nothing to warn about.
  expect(first.output()).not.toContain('deadlock_timeout is');
  // The embedded server went down with the Hub: its lock file is gone.
  expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);

  const second = await start(env);
  expect((await call(second.url, 'GET', '/api/v1/nodes/edge-1', 'admin-secret')).body.labels).toEqual({ env: 'prod' });
  expect((await call(second.url, 'POST', '/api/v1/agent/register', 'agent-secret', { node_id: 'edge-1', boot_id: 'b2' })).body.labels).toEqual({
    env: 'prod',
  });
  expect(await second.stop('SIGINT')).toBe(0);
}, 90_000);

test('with no config file the Hub generates an admin token once, prints it once, and never runs unauthenticated', async () => {
  const dataDir = await newDataDir();
  const env = { FLEETPLANE_DATA_DIR: dataDir, FLEETPLANE_PORT: String(await freePort()), FLEETPLANE_PG_PORT: String(await freePort()) };
  const first = await start(env);
  const tokenFile = join(dataDir, 'admin.token');
  const token = (await readFile(tokenFile, 'utf8')).trim();
  expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
  expect(first.output()).toContain(token);
  expect((await call(first.url, 'GET', '/api/v1/nodes', token)).status).toBe(200);
  expect((await call(first.url, 'GET', '/api/v1/nodes', 'guess')).status).toBe(401);
  expect(await first.stop('SIGTERM')).toBe(0);

  const second = await start(env);
  expect(second.output()).not.toContain(token);
  expect((await call(second.url, 'GET', '/api/v1/nodes', token)).status).toBe(200);
  expect(await second.stop('SIGTERM')).toBe(0);
}, 90_000);
