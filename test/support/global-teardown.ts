import { rm } from 'node:fs/promises';
import pg from 'pg';

export default async function globalTeardown(): Promise<void> {
  const embedded = (globalThis as { __fleetplaneEmbedded?: { stop(): Promise<void>; dataDir: string } }).__fleetplaneEmbedded;
  if (embedded) {
    // The server removes its cluster; the directory made for it (and its password file) goes too.
    await embedded.stop();
    await rm(embedded.dataDir, { recursive: true, force: true });
    return;
  }
  // On a shared server, the template goes; databases of failed test files stay for inspection.
  const admin = new pg.Client({ connectionString: process.env.FLEETPLANE_TEST_ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${process.env.FLEETPLANE_TEST_TEMPLATE} WITH (FORCE)`);
  await admin.end();
}
