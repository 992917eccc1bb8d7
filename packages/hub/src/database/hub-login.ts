import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { SESSION_OPTIONS } from './connect.ts';
import { prepareDatabase } from './prepare.ts';

/** The login the Hub runs as on its embedded server: a member of fleetplane_hub, nothing more. */
export const EMBEDDED_HUB_LOGIN = 'fleetplane_app';

/**
 * On the embedded server, whose superuser the Hub holds: migrates as that owner, then makes sure of the login
 * the Hub itself runs as (EMBEDDED_HUB_LOGIN, a member of fleetplane_hub, its password generated once into
 * DATA_DIR/hub.password, mode 0600), and answers its URL. Migrations run as the owner, the Hub does not.
 */
export async function embeddedHubUrl(ownerUrl: string, dataDir: string): Promise<{ url: string; applied: number[] }> {
  const applied = await prepareDatabase(ownerUrl);
  const password = await hubPassword(dataDir);
  const client = new pg.Client({ connectionString: ownerUrl, options: SESSION_OPTIONS });
  await client.connect();
  try {
    const exists = (await client.query(`SELECT FROM pg_roles WHERE rolname = $1`, [EMBEDDED_HUB_LOGIN])).rowCount! > 0;
    const secret = client.escapeLiteral(password);
    await client.query(
      exists
        ? `ALTER ROLE ${EMBEDDED_HUB_LOGIN} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD ${secret}`
        : `CREATE ROLE ${EMBEDDED_HUB_LOGIN} WITH LOGIN PASSWORD ${secret} IN ROLE fleetplane_hub`,
    );
  } finally {
    await client.end();
  }
  const url = new URL(ownerUrl);
  url.username = EMBEDDED_HUB_LOGIN;
  url.password = password;
  return { url: url.toString(), applied };
}

async function hubPassword(dataDir: string): Promise<string> {
  const file = join(dataDir, 'hub.password');
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    const password = randomBytes(18).toString('base64url');
    await writeFile(file, password + '\n', { mode: 0o600 });
    return password;
  }
}
