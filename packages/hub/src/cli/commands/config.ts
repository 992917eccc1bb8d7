import { readFile } from 'node:fs/promises';
import type { ConfigVersionSummary, ConfigVersionView } from '../../http/views/config-version.ts';
import { none, oneId, type Command, type Context } from '../command.ts';
import { CliError, EXIT, usageError } from '../exit.ts';
import { HubError } from '../hub-client.ts';
import { fields, printJson, shown, table } from '../output.ts';

const FORMATS = ['yaml', 'json', 'toml', 'text'];

/** `config list` shows a digest by its first 12 hex digits: a digest, or such a prefix of one, names a version too. */
const DIGEST = /^sha256:[0-9a-f]{1,64}$/;

/** The version an argument names: its id, or its digest or a prefix of the digest that only one version has. */
async function findVersion(ctx: Context, named: string): Promise<ConfigVersionView> {
  if (!DIGEST.test(named)) return await versionById(ctx, named);
  const matches = (await ctx.hub().list<ConfigVersionSummary>('/config-versions')).filter((v) => v.digest.startsWith(named));
  // The same miss as an unknown id (the Hub's 404), with the same code and exit 3: a script tells them apart by nothing.
  if (matches.length === 0) throw new HubError(404, { code: 'config_version_not_found', message: `no configuration version has a digest starting ${named}` });
  if (matches.length > 1) throw usageError(`${named} starts the digest of ${matches.length} versions (${matches.map((v) => v.config_version).join(', ')}): give more of it, or a version id`);
  return await versionById(ctx, matches[0]!.config_version);
}

const versionById = async (ctx: Context, id: string): Promise<ConfigVersionView> =>
  (await ctx.hub().request<ConfigVersionView>('GET', `/config-versions/${encodeURIComponent(id)}`)).body;

export const configCommands: Command[] = [
  {
    path: ['config', 'create'],
    synopsis: '--file F --format yaml|json|toml|text [--parent CV]',
    summary: 'store a file as an immutable configuration version; prints its id and digest',
    options: {
      file: { type: 'string', value: 'F', help: 'the file holding the content' },
      format: { type: 'string', value: 'yaml|json|toml|text', help: 'what the content is' },
      parent: { type: 'string', value: 'CV', help: 'the version this one derives from' },
    },
    positionals: none,
    async run(ctx, args) {
      const file = args.required('file');
      const format = args.required('format');
      if (!FORMATS.includes(format)) throw usageError(`--format is one of ${FORMATS.join(', ')}`);
      let content: string;
      try {
        content = await readFile(file, 'utf8');
      } catch (e) {
        throw new CliError(EXIT.failed, `cannot read ${file}: ${(e as Error).message}`);
      }
      const created = await ctx.hub().request<ConfigVersionView>('POST', '/config-versions', {
        body: { content, format, parent: args.string('parent') ?? null },
      });
      const v = created.body;
      if (ctx.json) printJson(ctx.io, v);
      else ctx.io.out(fields([['config version', v.config_version], ['digest', v.digest], ['parent', v.parent]]));
      return 0;
    },
  },
  {
    path: ['config', 'list'],
    synopsis: '',
    summary: 'list configuration versions, newest first',
    options: {},
    positionals: none,
    async run(ctx) {
      const versions = await ctx.hub().list<ConfigVersionSummary>('/config-versions');
      if (ctx.json) printJson(ctx.io, versions);
      else
        ctx.io.out(
          table(
            ['version', 'format', 'size', 'parent', 'digest', 'created by', 'created at'],
            versions.map((v) => [v.config_version, v.format, v.size_bytes, v.parent, v.digest.slice(0, 19), v.created_by, v.created_at]),
          ),
        );
      return 0;
    },
  },
  {
    path: ['config', 'get'],
    synopsis: 'CV|sha256:DIGEST [--content]',
    summary: 'one configuration version: who stored it when, its digest and its content',
    details:
      'Names a version by its id or by its digest (the whole digest, or the start of it that `config list`\n' +
      'shows, if no other version shares it). With --content only the content is printed, byte for byte as\n' +
      'stored, to save or diff: `fleetplane config get cv_… --content > app.yaml`.',
    options: { content: { type: 'boolean', help: 'print the content alone, as stored' } },
    positionals: oneId,
    async run(ctx, args) {
      const v = await findVersion(ctx, args.positionals[0]!);
      if (args.flag('content')) ctx.io.out(v.content);
      else if (ctx.json) printJson(ctx.io, v);
      else
        ctx.io.out(
          fields([
            ['config version', v.config_version],
            ['format', v.format],
            ['digest', v.digest],
            ['parent', v.parent],
            ['created by', v.created_by],
            ['created at', v.created_at],
            ['correlation id', v.correlation_id],
          ]) +
            '\n' +
            // Line by line: --content prints it exact.
            v.content.split('\n').map(shown).join('\n') +
            (v.content.endsWith('\n') || v.content === '' ? '' : '\n'),
        );
      return 0;
    },
  },
];
