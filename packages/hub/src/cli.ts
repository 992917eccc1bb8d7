import { randomBytes } from 'node:crypto';
import { hashToken, loadConfig } from './config.ts';
import { connect } from './database/connect.ts';
import { migrate } from './database/migrate.ts';
import { openServer } from './database/open.ts';
import { verifyChain } from './event-store/verify-chain.ts';
import { createLogger } from './logger.ts';
import { allProjections } from './projections/all.ts';
import { rebuild } from './projections/rebuild.ts';
import { verifyProjections } from './projections/verify.ts';

const USAGE = `usage: npm run hub -- <command>
  migrate                  apply pending migrations (also done at every start)
  verify                   rebuild every projection from the log and diff it against the live tables
  rebuild [schema]         rebuild every projection into a new schema beside the live tables, and keep it
  verify-chain [stream]    recompute the hash chain of every stream (or one) and report breaks
  token                    make a new random token and print it with its token_sha256 for the config file
  hash-token <token>       print the token_sha256 of an existing token
Uses DATABASE_URL, or the embedded PostgreSQL under FLEETPLANE_DATA_DIR.`;

const logger = createLogger(process.env.FLEETPLANE_LOG_LEVEL ?? 'warn');

/** Runs one database command and returns the process exit code: 0 clean, 1 problems found. */
async function withDatabase(work: (database: ReturnType<typeof connect>) => Promise<number>): Promise<number> {
  const server = await openServer(await loadConfig(), logger);
  const database = connect(server.url, { max: 2, applicationName: 'fleetplane-cli' });
  try {
    return await work(database);
  } finally {
    await database.close();
    await server.close();
  }
}

const print = (value: unknown) => process.stdout.write(JSON.stringify(value, null, 2) + '\n');

async function run(args: string[]): Promise<number> {
  const [command, arg] = args;
  switch (command) {
    case 'migrate':
      return withDatabase(async ({ pool }) => {
        print({ applied: await migrate(pool) });
        return 0;
      });
    case 'verify':
      return withDatabase(async ({ db }) => {
        const differences = await verifyProjections(db, allProjections);
        print({ differences });
        return differences.length === 0 ? 0 : 1;
      });
    case 'rebuild':
      return withDatabase(async ({ db }) => {
        print(await rebuild(db, allProjections, arg ? { schema: arg } : {}));
        return 0;
      });
    case 'verify-chain':
      return withDatabase(async ({ db }) => {
        const problems = await verifyChain(db, arg);
        print({ problems });
        return problems.length === 0 ? 0 : 1;
      });
    case 'token': {
      const token = randomBytes(24).toString('base64url');
      print({ token, token_sha256: hashToken(token) });
      return 0;
    }
    case 'hash-token':
      if (!arg) break;
      print({ token_sha256: hashToken(arg) });
      return 0;
  }
  process.stderr.write(USAGE + '\n');
  return 2;
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
