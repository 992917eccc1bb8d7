import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './support/ports.ts';
import { startHubProcess, type HubProcess } from './support/process.ts';

// Running the Hub: the embedded server killed under its Hub ends the Hub (exit 1) for its supervisor to restart,
// instead of a Hub that stays up unready for good; the next start recovers the cluster and serves.
let dataDir: string;
const started: HubProcess[] = [];
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fleetplane-embedded-death-'));
});
afterAll(async () => {
  // The first Hub's server is dead (SIGKILL is enough, should it still run); the second's stops with it.
  await started[0]?.stop('SIGKILL');
  await started[1]?.stop('SIGTERM');
  await rm(dataDir, { recursive: true, force: true });
});

test('Running the Hub: SIGKILL of the embedded PostgreSQL ends its Hub with exit code 1 and a line saying so; the next start serves again', async () => {
  const env = { FLEETPLANE_DATA_DIR: dataDir, FLEETPLANE_PORT: String(await freePort()), FLEETPLANE_PG_PORT: String(await freePort()) };
  const first = await startHubProcess(env);
  started.push(first);
  const postmaster = Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const exited = new Promise<number | null>((resolve) => first.child.once('exit', (code) => resolve(code)));
  process.kill(postmaster, 'SIGKILL');
  expect(await Promise.race([exited, new Promise((r) => setTimeout(() => r('still running after 30 s'), 30_000))])).toBe(1);
  expect(first.output()).toContain('"message":"embedded PostgreSQL ended under the Hub; exiting, for a restart to start it again"');
  expect(first.output()).toContain('"how":"SIGKILL"');

  const second = await startHubProcess(env);
  started.push(second);
  expect((await fetch(`${second.url}/readyz`)).status).toBe(200);
  expect(await second.stop('SIGTERM')).toBe(0);
}, 120_000);
