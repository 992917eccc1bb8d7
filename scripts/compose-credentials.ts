import { chownSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigFile, hashToken, newToken } from '../packages/hub/src/config.ts';

/**
 * docker-compose.yml's `credentials` service: `node scripts/compose-credentials.ts DIR NODE…` writes, on the
 * first start only, DIR/fleetplane.json (an admin credential and one agent credential per NODE) with the
 * tokens beside it, DIR/admin.token and DIR/NODE.token, each mode 0600 and owned by the images' `node`
 * user. Later starts keep what is there, edits included (SIGHUP reloads the Hub's configuration).
 */
const [dir, ...nodes] = process.argv.slice(2);
if (!dir || nodes.length === 0) {
  process.stderr.write('usage: node scripts/compose-credentials.ts DIR NODE...\n');
  process.exit(2);
}
const configFile = join(dir, 'fleetplane.json');
if (existsSync(configFile)) {
  process.stdout.write(`${configFile} exists: kept\n`);
  process.exit(0);
}

/** uid and gid of `node` in the official Node.js images, the user the Hub and the agents run as. */
const NODE_USER = 1000;
const write = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  chownSync(path, NODE_USER, NODE_USER);
};

const tokens = new Map(['admin', ...nodes].map((name) => [name, newToken()]));
const config = {
  control_api: {
    credentials: [
      { id: 'admin', role: 'admin', token_sha256: hashToken(tokens.get('admin')!) },
      ...nodes.map((node) => ({ id: `${node}-agent`, role: 'agent', node_id: node, token_sha256: hashToken(tokens.get(node)!) })),
    ],
  },
};
ConfigFile.parse(config); // checked as the Hub checks it, before anything is written
for (const [name, token] of tokens) write(`${name}.token`, token + '\n');
// Written last: its presence says the tokens are there too.
write('fleetplane.json', JSON.stringify(config, null, 2) + '\n');
process.stdout.write(`wrote ${configFile}: credentials for admin and ${nodes.join(', ')}\n`);
