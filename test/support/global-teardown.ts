import pg from 'pg';

export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as { __fleetplaneEmbedded?: { stop(): Promise<void> } }).__fleetplaneEmbedded;
  if (server) {
    await server.stop();
    return;
  }
  // On a shared server, the template goes; databases of failed test files stay for inspection.
  const admin = new pg.Client({ connectionString: process.env.FLEETPLANE_TEST_ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${process.env.FLEETPLANE_TEST_TEMPLATE} WITH (FORCE)`);
  await admin.end();
}
