import { readFile } from 'node:fs/promises';
import { ArchiveError } from '../../archive/archive-error.ts';
import type { Destination } from '../../archive/destination.ts';
import { openDestination, parseDestination } from '../../archive/destination-url.ts';
import { SegmentError } from '../../archive/segment-error.ts';
import { hashToken, newToken } from '../../config.ts';
import { prepareDatabase } from '../../database/prepare.ts';
import type { LockHolder } from '../../database/advisory-locks.ts';
import { describeHolder } from '../../database/prepare-lock.ts';
import { decodePosition } from '../../event-store/read-all.ts';
import { allProjections } from '../../projections/all.ts';
import type { Until } from '../../projections/rebuild.ts';
import { replayAsOf } from '../../projections/replay-as-of.ts';
import { nodeCredentialSha256 } from '../../transport/node-credential.ts';
import { historyProblems, verifyHistory } from '../../verify-history.ts';
import type { Io } from '../io.ts';
import { none, oneId, type Command } from '../command.ts';
import { CliError, EXIT, usageError } from '../exit.ts';
import { withDatabase } from '../database.ts';
import { requireSameRelease } from '../same-release.ts';
import { printJson } from '../output.ts';

const RELEASE = 'A database migrated by another release, ahead or behind, is refused (exit 1) naming the migrations that differ.\n';

const DATABASE =
  "Uses DATABASE_URL, or the embedded PostgreSQL under FLEETPLANE_DATA_DIR: the one running there (a Hub's, left running), else one started for the command.\n" +
  'Never makes a database: with no DATABASE_URL and none in the data directory, exits 2. Writes nothing to the data directory.';

function until(text: string | undefined): Until | undefined {
  if (text === undefined) return undefined;
  if (/^\d+$/.test(text)) {
    const position = decodePosition(text);
    // Positions start at 1: 0 names no event.
    if (position === null || position < 1) throw usageError(`--until: an event position is from 1 to ${Number.MAX_SAFE_INTEGER}, got ${text}`);
    return { position };
  }
  const time = new Date(text);
  if (Number.isNaN(time.getTime())) throw usageError(`--until is an event position or an ISO time, got ${text}`);
  return { time };
}

/**
 * The schema --into names, refused before the database is opened when PostgreSQL would refuse it (pg_), make
 * another (it cuts a name to 63 bytes), or when the help's SQL could not name it unquoted.
 */
function intoSchema(name: string): string {
  if (name.startsWith('pg_')) throw usageError(`--into: PostgreSQL reserves schema names beginning with pg_, got ${name}`);
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw usageError(`--into: a schema name is 1 to 63 lower-case letters, digits and _, not beginning with a digit, got ${name}`);
  return name;
}

const ARCHIVE_AT = {
  type: 'string',
  value: 'URL',
  help: "read the archive's files here (a copy: a directory or s3://bucket/prefix) instead of where their records say",
} as const;

/** The archive's destination for a recorded URL: it, or the one --archive-at names (AWS credentials and endpoint from the environment). */
function archiveOpener(io: Io, archiveAt: string | undefined): (url: string) => Destination {
  let at: ReturnType<typeof parseDestination> | undefined;
  try {
    at = archiveAt === undefined ? undefined : parseDestination(archiveAt);
  } catch (e) {
    throw usageError(`--archive-at: ${(e as Error).message}`);
  }
  return (url) => openDestination(at ?? parseDestination(url), io.env);
}

/** An archive that cannot give what a replay needs ends it with exit 1, or 4 when it cannot be reached. */
function archiveFailure(e: unknown): never {
  if (e instanceof ArchiveError || e instanceof SegmentError) {
    throw new CliError(e.code === 'archive_destination_failed' ? EXIT.unreachable : EXIT.failed, `${e.code}: ${e.message}`);
  }
  throw e;
}

export const databaseCommands: Command[] = [
  {
    path: ['verify'],
    synopsis: '[--archive] [--archive-at URL]',
    summary: "prove the history: every stream's hash chain, and a rebuild of every projection diffed with the live tables",
    details:
      'The chains start from where the archived history ends (archived_heads), the rebuild from the newest checkpoint,\n' +
      'which must be the one the log recorded: neither reads the archive, so the time grows with the hot log only.\n' +
      'With --archive, the archive too: every archived file against its record (size, SHA-256), every stream\'s chain\n' +
      'through every segment into the hot log, the position ranges end to end; each problem with its positions.\n' +
      '--archive-at URL implies --archive, and reads the archived files from the copy there.\n' +
      'Exits 1 when a chain breaks, any projection row differs from what the log derives, or the archive has a problem.\n' +
      RELEASE +
      DATABASE,
    options: {
      archive: { type: 'boolean', help: 'verify the archive too: reads every archived file' },
      'archive-at': { ...ARCHIVE_AT, help: `${ARCHIVE_AT.help}; implies --archive` },
    },
    positionals: none,
    local: true,
    run: (ctx, args) => {
      const open = archiveOpener(ctx.io, args.string('archive-at'));
      return withDatabase(ctx.io, async ({ db, pool }) => {
        await requireSameRelease(pool);
        // Naming a copy asks for it to be proved: ignored, verify would exit 0 without reading it.
        const withArchive = args.flag('archive') || args.string('archive-at') !== undefined;
        const report = await verifyHistory(db, allProjections, withArchive ? { archive: { open } } : {});
        const { chain, checkpoint, projections, archive } = report;
        if (ctx.json) printJson(ctx.io, report);
        else {
          ctx.io.out(`hash chain: ${chain.length ? `${chain.length} problem(s)` : 'ok'}\n`);
          for (const p of chain) ctx.io.out(`  ${p.stream_id} version ${p.stream_version} (position ${p.position}): ${p.problem}\n`);
          if (checkpoint.position !== null || checkpoint.problem !== null) {
            ctx.io.out(`checkpoint: ${checkpoint.problem ?? `ok (position ${checkpoint.position})`}\n`);
          }
          ctx.io.out(`projections: ${projections.length ? `${projections.length} difference(s)` : 'ok'}\n`);
          for (const d of projections) {
            const what = d.live === null ? 'missing from the live table' : d.rebuilt === null ? 'not derived from the log' : 'differs from the log';
            ctx.io.out(`  ${d.table} ${JSON.stringify(d.key)}: ${what}\n`);
          }
          if (archive) {
            const extent = archive.positions ? `${archive.segments} segment(s), positions ${archive.positions.first}-${archive.positions.last}` : 'nothing archived';
            ctx.io.out(`archive: ${archive.problems.length ? `${archive.problems.length} problem(s)` : 'ok'} (${extent})\n`);
            for (const p of archive.problems) ctx.io.out(`  positions ${p.first_position}-${p.last_position}: ${p.kind}: ${p.message}\n`);
          }
        }
        return historyProblems(report).length > 0 ? EXIT.failed : EXIT.ok;
      });
    },
  },
  {
    path: ['replay'],
    synopsis: '--into SCHEMA [--until POSITION|TIME] [--archive-at URL]',
    summary: 'rebuild every projection from the log into a new schema beside the live tables',
    details:
      'With --until, as of that point (as-of reconstruction): only events up to that position, or, for a time,\n' +
      'every event before the first one recorded after it. Starts from the newest checkpoint at or before it; a point\n' +
      "inside the archive reads that checkpoint's file and the segment files after it up to the point (a time reads\n" +
      'the segment headers first), a point in the hot log the stored checkpoint and the hot log. Then query\n' +
      'SCHEMA.nodes, SCHEMA.intents, … in SQL, and DROP SCHEMA SCHEMA CASCADE when done.\n' +
      RELEASE +
      DATABASE,
    options: {
      into: { type: 'string', value: 'SCHEMA', help: 'the schema to create and fill (must not exist): 1-63 of a-z 0-9 _, not beginning with a digit nor pg_' },
      until: { type: 'string', value: 'POSITION|TIME', help: 'an event position (included), or an ISO 8601 time' },
      'archive-at': ARCHIVE_AT,
    },
    positionals: none,
    local: true,
    async run(ctx, args) {
      const schema = intoSchema(args.required('into'));
      const asOf = until(args.string('until'));
      const archive = archiveOpener(ctx.io, args.string('archive-at'));
      return withDatabase(ctx.io, async ({ db, pool }) => {
        await requireSameRelease(pool);
        const started = performance.now();
        const rebuilt = await replayAsOf(db, allProjections, { schema, archive, ...(asOf ? { until: asOf } : {}) }).catch((e: unknown) => {
          if ((e as { code?: string }).code === '42P06') throw new CliError(EXIT.failed, `schema ${schema} exists: drop it or replay into another`);
          return archiveFailure(e);
        });
        const seconds = (performance.now() - started) / 1000;
        const perSecond = Math.round(rebuilt.events / Math.max(seconds, 0.001));
        if (ctx.json) printJson(ctx.io, { ...rebuilt, seconds: Number(seconds.toFixed(3)), events_per_second: perSecond });
        else
          ctx.io.out(
            `replayed ${rebuilt.events} ${rebuilt.source === 'archive' ? 'archived ' : ''}events into ${rebuilt.schema}` +
              `${rebuilt.start !== null ? ` from the checkpoint at position ${rebuilt.start}` : ''}` +
              `${rebuilt.through !== null ? ` through position ${rebuilt.through}` : ''} in ${seconds.toFixed(2)} s (${perSecond} events/s)\n`,
          );
        return EXIT.ok;
      });
    },
  },
  {
    path: ['migrate'],
    synopsis: '',
    summary: "apply pending migrations and install the job queues' schema, as the database's owner (a Hub running as its owner also does at every start)",
    details: DATABASE,
    options: {},
    positionals: none,
    local: true,
    run: (ctx) =>
      withDatabase(ctx.io, async ({ url }) => {
        const onWait = (holder: LockHolder) => ctx.io.err(`waiting for the database lock under which migrations run, held by ${describeHolder(holder)}\n`);
        const applied = await prepareDatabase(url, { jobQueues: 'always', onWait });
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
      const token = newToken();
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
