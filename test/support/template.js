import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { connect } from "../../packages/hub/src/database/connect.js";
import { migrate } from "../../packages/hub/src/database/migrate.js";
/** Creates a migrated database that test files clone with CREATE DATABASE … TEMPLATE. */
export async function prepareTemplate(adminUrl) {
    const name = `fp_template_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const database = connect(withDatabase(adminUrl, name), { max: 2 });
    await migrate(database.pool);
    await database.close();
    return name;
}
export function withDatabase(url, database) {
    const u = new URL(url);
    u.pathname = '/' + database;
    return u.toString();
}
