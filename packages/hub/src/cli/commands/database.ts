import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hashToken } from '../../config.ts';
import { migrate } from '../../database/migrate.ts';
import { verifyChain } from '../../event-store/verify-chain.ts';
import { allProjections } from '../../projections/all.ts';
import { rebuild, type Until } from '../../projections/rebuild.ts';
import { verifyProjections } from '../../projections/verify.ts';
import { nodeCredentialSha256 } from '../../transport/node-credential.ts';
import { none, oneId, type Command } from '../command.ts';
import { CliError, EXIT, usageError } from '../exit.ts';
import { withDatabase } from '../database.ts';
import { printJson } from '../output.ts';

const DATABASE = "Uses DATABASE_URL, or the embedded PostgreSQL under FLEETPLANE_DATA_DIR: the one running there (a Hub's, left running), else one started for the command.";

function until(text: string | undefined): Until | undefined {
  if (text === undefined) return undefined;
  if (/^\d+$/.test(text)) return { position: Number(text) };
  const time = new Date(text);
  if (Number.isNaN(time.getTime())) throw usageError(`--until is an event position or an ISO time, got ${text}`);
  return { time };
}

export const databaseCommands: Command[] = [
  {
    path: ['verify'],
    synopsis: '',
    summary: "prove the history: every stream's hash chain, and a full rebuild of every projection diffed with the live tables",
    details: `Exits 1 when a chain breaks or any projection row differs from what the log derives. ${DATABASE}`,
    options: {},
    positionals: none,
    local: true,
    run: (ctx) =>
      withDatabase(ctx.io, async ({ db }) => {
        const chain = await verifyChain(db);
        const projections = await verifyProjections(db, allProjections);
        if (ctx.json) printJson(ctx.io, { chain, projections });
        else {
          ctx.io.out(`hash chain: ${chain.length ? `${chain.length} problem(s)` : 'ok'}\n`);
          for (const p of chain) ctx.io.out(`  ${p.stream_id} version ${p.stream_version} (position ${p.position}): ${p.problem}\n`);
          ctx.io.out(`projections: ${projections.length ? `${projections.length} difference(s)` : 'ok'}\n`);
          for (const d of projections) {
            const what = d.live === null ? 'missing from the live table' : d.rebuilt === null ? 'not derived from the log' : 'differs from the log';
            ctx.io.out(`  ${d.table} ${JSON.stringify(d.key)}: ${what}\n`);
          }
        }
        return chain.length || projections.length ? EXIT.failed : EXIT.ok;
      }),
  },
  {
    path: ['replay'],
    synopsis: '--into SCHEMA [--until POSITION|TIME]',
    summary: 'rebuild every projection from the log into a new schema beside the live tables',
    details:
      'With --until, as of that point (as-of reconstruction): only events up to that position, or, for a time,\n' +
      'every event before the first one recorded after it. Then query SCHEMA.nodes, SCHEMA.intents, … in SQL,\n' +
      `and DROP SCHEMA SCHEMA CASCADE when done. ${DATABASE}`,
    options: {
      into: { type: 'string', value: 'SCHEMA', help: 'the schema to create and fill (must not exist)' },
      until: { type: 'string', value: 'POSITION|TIME', help: 'an event position (included), or an ISO 8601 time' },
    },
    positionals: none,
    local: true,
    async run(ctx, args) {
      const schema = args.required('into');
      const asOf = until(args.string('until'));
      return withDatabase(ctx.io, async ({ db }) => {
        const started = performance.now();
        const rebuilt = await rebuild(db, allProjections, { schema, ...(asOf ? { until: asOf } : {}) }).catch((e: unknown) => {
          if ((e as { code?: string }).code === '42P06') throw new CliError(EXIT.failed, `schema ${schema} exists: drop it or replay into another`);
          throw e;
        });
        const seconds = (performance.now() - started) / 1000;
        const perSecond = Math.round(rebuilt.events / Math.max(seconds, 0.001));
        if (ctx.json) printJson(ctx.io, { ...rebuilt, seconds: Number(seconds.toFixed(3)), events_per_second: perSecond });
        else
          ctx.io.out(
            `replayed ${rebuilt.events} events into ${rebuilt.schema}${rebuilt.through !== null ? ` through position ${rebuilt.through}` : ''} ` +
              `in ${seconds.toFixed(2)} s (${perSecond} events/s)\n`,
          );
        return EXIT.ok;
      });
    },
  },
  {
    path: ['migrate'],
    synopsis: '',
    summary: 'apply pending migrations (the Hub also does at every start)',
    details: DATABASE,
    options: {},
    positionals: none,
    local: true,
    run: (ctx) =>
      withDatabase(ctx.io, async ({ pool }) => {
        const applied = await migrate(pool);
        if (ctx.json) printJson(ctx.io, { applied });
        else ctx.io.out(applied.length ? `applied ${applied.join(', ')}\n` : 'up to date\n');
        return EXIT.ok;
      }),
  },
  {
    path: ['token'],
    synopsis: '',
    summary: "make a new random token; prints it with its token_sha256 for the Hub's config file",
    options: {},
    positionals: none,
    local: true,
    async run(ctx) {
      const token = randomBytes(24).toString('base64url');
      ctx.io.out(ctx.json ? JSON.stringify({ token, token_sha256: hashToken(token) }) + '\n' : `token:        ${token}\ntoken_sha256: ${hashToken(token)}\n`);
      return EXIT.ok;
    },
  },
  {
    path: ['node-credential'],
    synopsis: 'NODE --token-file F',
    summary: "print the --hub-credential-sha256 of NODE's agent: the SHA-256 of that node's credential under the hub-to-node token",
    details:
      'The Hub pushes to each node with a credential of its own (an HMAC of the node id under the token in its ' +
      'node_proxy_token_file), so a node captures nothing another node would accept. Run it where that file is.',
    options: { 'token-file': { type: 'string', value: 'F', help: "the Hub's node_proxy_token_file" } },
    positionals: oneId,
    local: true,
    async run(ctx, args) {
      const file = args.required('token-file');
      let token: string;
      try {
        token = (await readFile(file, 'utf8')).split('\n')[0]!.trim();
      } catch (e) {
        throw new CliError(EXIT.failed, `cannot read ${file}: ${(e as Error).message}`);
      }
      const digest = nodeCredentialSha256(token, args.positionals[0]!);
      ctx.io.out(ctx.json ? JSON.stringify({ hub_credential_sha256: digest }) + '\n' : digest + '\n');
      return EXIT.ok;
    },
  },
  {
    path: ['hash-token'],
    synopsis: 'TOKEN',
    summary: 'print the token_sha256 of an existing token',
    options: {},
    positionals: { min: 1, max: 1 },
    local: true,
    async run(ctx, args) {
      const digest = hashToken(args.positionals[0]!);
      ctx.io.out(ctx.json ? JSON.stringify({ token_sha256: digest }) + '\n' : digest + '\n');
      return EXIT.ok;
    },
  },
];
