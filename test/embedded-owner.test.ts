import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashToken } from '../packages/hub/src/config.ts';
import { clusterHolder } from '../packages/hub/src/database/postmaster.ts';
import { freePort } from './support/ports.ts';
import { fleetplaneProcess, startHubProcess, type HubProcess } from './support/process.ts';

// The embedded server belongs to the process that started it. Commands on the database use a running one as
// it is; a Hub stops only its own, or one whose owner was killed.
const dataDirs: string[] = [];
const hubs: HubProcess[] = [];
afterAll(async () => {
  for (const hub of hubs) await hub.stop('SIGTERM');
  // A server whose Hub a failed test killed goes too.
  for (const dir of dataDirs) {
    const holder = await clusterHolder(join(dir, 'postgres'));
    if (holder.state !== 'orphaned') continue;
    process.kill(holder.pid, 'SIGINT');
    while (alive(holder.pid)) await new Promise((r) => setTimeout(r, 100));
  }
  await Promise.all(dataDirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function newHubEnv(): Promise<Record<string, string>> {
  const dataDir = await mkdtemp(join(tmpdir(), 'fleetplane-owner-'));
  dataDirs.push(dataDir);
  const configFile = join(dataDir, 'config.json');
  await writeFile(configFile, JSON.stringify({ control_api: { credentials: [{ id: 'alice', role: 'admin', token_sha256: hashToken('admin-secret') }] } }));
  return { FLEETPLANE_DATA_DIR: dataDir, FLEETPLANE_CONFIG: configFile, FLEETPLANE_PG_PORT: String(await freePort()), FLEETPLANE_LOG_LEVEL: 'warn' };
}

async function startHub(env: Record<string, string>): Promise<HubProcess> {
  const hub = await startHubProcess({ ...env, FLEETPLANE_PORT: String(await freePort()) });
  hubs.push(hub);
  return hub;
}

const call = async (hub: HubProcess, method: string, path: string, body?: unknown) => {
  const res = await fetch(hub.url + path, {
    method,
    headers: { authorization: 'Bearer admin-secret', 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as any };
};

const postmasterPid = async (env: Record<string, string>) => Number((await readFile(join(env.FLEETPLANE_DATA_DIR!, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test("reliability 6: verify, replay and migrate on a live Hub's embedded server use it and leave it running; the Hub stays ready", async () => {
  const env = await newHubEnv();
  const hub = await startHub(env);
  expect((await call(hub, 'PUT', '/api/v1/streams/web', { desired_state: 'running', placement: { nodes: ['edge-1'] } })).status).toBe(200);
  const server = await postmasterPid(env);

  const verify = await fleetplaneProcess(['verify'], env);
  expect(verify).toMatchObject({ code: 0, out: 'hash chain: ok\nprojections: ok\n' });
  const replay = await fleetplaneProcess(['replay', '--into', 'audit_live'], env);
  expect(replay.code).toBe(0);
  expect(replay.out).toMatch(/^replayed \d+ events into audit_live/);
  expect(await fleetplaneProcess(['migrate'], env)).toMatchObject({ code: 0, out: 'up to date\n' });

  // The Hub's server is the one that ran all along, and the Hub still serves reads and writes.
  expect(await postmasterPid(env)).toBe(server);
  expect(alive(server)).toBe(true);
  expect(await call(hub, 'GET', '/readyz')).toMatchObject({ status: 200, body: { ready: true } });
  expect((await call(hub, 'PUT', '/api/v1/streams/web', { desired_state: 'stopped', placement: { nodes: ['edge-1'] } })).status).toBe(200);
  expect(await hub.stop('SIGTERM')).toBe(0);
}, 120_000);

test("reliability 6: a second Hub on a live Hub's data directory refuses to start, naming the directory, the server's pid and what to do", async () => {
  const env = await newHubEnv();
  const hub = await startHub(env);
  const server = await postmasterPid(env);
  const second = await startHub(env).then(
    () => 'started',
    (e: Error) => e.message,
  );
  expect(second).toContain(`${join(env.FLEETPLANE_DATA_DIR!, 'postgres')} is in use: PostgreSQL (pid ${server}`);
  expect(second).toContain('Stop that process first');
  expect(alive(server)).toBe(true);
  expect(await call(hub, 'GET', '/readyz')).toMatchObject({ status: 200, body: { ready: true } });
  expect(await hub.stop('SIGTERM')).toBe(0);
}, 120_000);

test('a Hub killed with SIGKILL leaves its server running: a command uses it as it is, the next Hub stops it and starts its own', async () => {
  const env = await newHubEnv();
  const first = await startHub(env);
  expect((await call(first, 'PUT', '/api/v1/streams/web', { desired_state: 'running', placement: { nodes: ['edge-1'] } })).status).toBe(200);
  const orphan = await postmasterPid(env);
  expect(await first.stop('SIGKILL')).toBeNull();
  expect(alive(orphan)).toBe(true);

  expect(await fleetplaneProcess(['verify'], env)).toMatchObject({ code: 0, out: 'hash chain: ok\nprojections: ok\n' });
  expect(alive(orphan)).toBe(true);

  const second = await startHub(env);
  expect(alive(orphan)).toBe(false);
  const own = await postmasterPid(env);
  expect(own).not.toBe(orphan);
  expect((await call(second, 'GET', '/api/v1/streams/web')).body.desired_state).toBe('running');
  expect(await second.stop('SIGTERM')).toBe(0);
  expect(alive(own)).toBe(false);
  expect(existsSync(join(env.FLEETPLANE_DATA_DIR!, 'postgres', 'postmaster.pid'))).toBe(false);
}, 120_000);

test('a lock file naming a live process that is no server Fleetplane started is never signalled: the Hub refuses to start, naming it', async () => {
  const env = await newHubEnv();
  expect(await (await startHub(env)).stop('SIGTERM')).toBe(0);
  // As after a crash and a reboot: postmaster.pid left behind, its pid now another process's.
  const other = spawn('sleep', ['600'], { stdio: 'ignore' });
  try {
    await writeFile(join(env.FLEETPLANE_DATA_DIR!, 'postgres', 'postmaster.pid'), `${other.pid}\n${join(env.FLEETPLANE_DATA_DIR!, 'postgres')}\n0\n${env.FLEETPLANE_PG_PORT}\n`);
    const refused = await startHub(env).then(
      () => 'started',
      (e: Error) => e.message,
    );
    expect(refused).toContain(`its postmaster.pid names process ${other.pid}, which runs and is no server Fleetplane started there`);
    expect(other.exitCode === null && other.signalCode === null).toBe(true);
  } finally {
    other.kill('SIGKILL');
  }
}, 120_000);
