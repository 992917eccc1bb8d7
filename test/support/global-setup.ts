import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbedded } from '../../packages/hub/src/database/embedded.ts';
import { buildConsole } from './build-console.ts';
import { freePort } from './ports.ts';
import { prepareTemplate } from './template.ts';

/**
 * One PostgreSQL server for the whole run: TEST_DATABASE_URL when set, else an embedded PostgreSQL 17
 * in a throwaway directory. Each test file then clones a migrated template into a database of its own.
 */
export default async function globalSetup(): Promise<void> {
  let adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const dataDir = await mkdtemp(join(tmpdir(), 'fleetplane-test-'));
    const server = await startEmbedded({ dataDir, port: await freePort(), persistent: false });
    (globalThis as { __fleetplaneEmbedded?: unknown }).__fleetplaneEmbedded = { stop: server.stop, dataDir };
    adminUrl = server.url('postgres');
  }
  process.env.FLEETPLANE_TEST_ADMIN_URL = adminUrl;
  process.env.FLEETPLANE_TEST_TEMPLATE = await prepareTemplate(adminUrl);
  buildConsole();
}
