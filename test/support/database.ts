import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { connect, type Database } from '../../packages/hub/src/database/connect.ts';
import { withDatabase } from './template.ts';

export interface TestDatabase extends Database {
  name: string;
  /** Drops the database unless a test in this file failed: then it is kept, and named, for inspection. */
  drop(): Promise<void>;
}

/** A fresh database for one test file: migrated (a clone of the run's template) or, with `empty`, bare. */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = process.env.FLEETPLANE_TEST_ADMIN_URL!;
  const name = `fp_test_${randomBytes(5).toString('hex')}`;
  const template = options.empty ? 'template0' : process.env.FLEETPLANE_TEST_TEMPLATE!;
  await admin(adminUrl, `CREATE DATABASE ${name} TEMPLATE ${template}`);
  const database = connect(withDatabase(adminUrl, name), { max: 10, applicationName: 'fleetplane-test' });
  return {
    ...database,
    name,
    async drop() {
      await database.close();
      if ((globalThis as { __fleetplaneTestFailed?: boolean }).__fleetplaneTestFailed) {
        process.stderr.write(`kept database ${name} of a failed test for inspection\n`);
        return;
      }
      await admin(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

async function admin(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
