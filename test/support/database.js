import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { connect } from "../../packages/hub/src/database/connect.js";
import { withDatabase } from "./template.js";
/** A fresh database for one test file: migrated (a clone of the run's template) or, with `empty`, bare. */
export async function createTestDatabase(options = {}) {
    const adminUrl = process.env.FLEETPLANE_TEST_ADMIN_URL;
    const name = `fp_test_${randomBytes(5).toString('hex')}`;
    const template = options.empty ? 'template0' : process.env.FLEETPLANE_TEST_TEMPLATE;
    await admin(adminUrl, `CREATE DATABASE ${name} TEMPLATE ${template}`);
    const database = connect(withDatabase(adminUrl, name), { max: 10, applicationName: 'fleetplane-test' });
    return {
        ...database,
        name,
        async drop() {
            await database.close();
            if (globalThis.__fleetplaneTestFailed) {
                process.stderr.write(`kept database ${name} of a failed test for inspection\n`);
                return;
            }
            await admin(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        },
    };
}
async function admin(url, sql) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
        await client.query(sql);
    }
    finally {
        await client.end();
    }
}
