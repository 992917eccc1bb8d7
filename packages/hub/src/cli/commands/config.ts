import { readFile } from 'node:fs/promises';
import type { ConfigVersionView } from '../../http/views/config-version.ts';
import { none, type Command } from '../command.ts';
import { CliError, EXIT, usageError } from '../exit.ts';
import { fields, printJson, table } from '../output.ts';

const FORMATS = ['yaml', 'json', 'toml', 'text'];

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
      const versions = await ctx.hub().list<ConfigVersionView>('/config-versions');
      // --json keeps the content; the table leaves it out.
      if (ctx.json) printJson(ctx.io, versions);
      else
        ctx.io.out(
          table(
            ['version', 'format', 'parent', 'digest', 'created by', 'created at'],
            versions.map((v) => [v.config_version, v.format, v.parent, v.digest.slice(0, 19), v.created_by, v.created_at]),
          ),
        );
      return 0;
    },
  },
];
