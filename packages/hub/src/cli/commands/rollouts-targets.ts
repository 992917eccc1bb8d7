import { TARGET_STATES } from '@fleetplane/core';
import type { RolloutTargetView } from '../../http/views/rollout.ts';
import { oneId, type Command } from '../command.ts';
import { usageError } from '../exit.ts';
import { printJson, shown } from '../output.ts';
import { targetTable } from '../progress.ts';
import { targetsPage } from '../rollout-progress.ts';

/** A cursor as the shell takes it back: in single quotes (it holds `|`), controls escaped as the terminal shows them. */
const quoted = (cursor: string) => shown(`'${cursor.replaceAll("'", `'\\''`)}'`);

export const targetsCommand: Command = {
  path: ['rollouts', 'targets'],
  synopsis: 'ID [--state S] [--batch B] [--recovery holding] [--limit N] [--cursor C] [--all]',
  summary: "a rollout's targets, a page at a time, by batch then node id: of one state, of one batch, or holding the rollout",
  details:
    'Prints one page (GET /rollouts/{id}/targets, --limit of them, 100 at most and by default) and, when more\n' +
    'follow, their cursor on stderr: "more: --cursor C" gives the next page. --all reads every page. With\n' +
    '--json: one target a line, as the Hub gives it (its `batch` counted from 0).',
  options: {
    state: { type: 'string', value: 'S', help: `only targets in this state: ${TARGET_STATES.join(', ')}` },
    batch: { type: 'string', value: 'B', help: 'only this batch, counted from 1 as rollouts get shows it' },
    recovery: { type: 'string', value: 'holding', help: 'only the targets holding the rollout: a restore in flight, or a claim that may have moved them' },
    limit: { type: 'string', value: 'N', help: 'targets a page, 1-100 (default 100)' },
    cursor: { type: 'string', value: 'C', help: 'start after this cursor (printed on stderr by a previous page)' },
    all: { type: 'boolean', help: 'every page, following the cursor to the end' },
  },
  positionals: oneId,
  async run(ctx, args) {
    const state = args.string('state');
    if (state !== undefined && !(TARGET_STATES as readonly string[]).includes(state)) throw usageError(`--state is one of ${TARGET_STATES.join(', ')}`);
    const recovery = args.string('recovery');
    if (recovery !== undefined && recovery !== 'holding') throw usageError('--recovery takes holding');
    const batch = args.int('batch', 1, 1_000_000_000);
    const limit = args.int('limit', 1, 100) ?? 100;
    const hub = ctx.hub();
    const targets: RolloutTargetView[] = [];
    let cursor = args.string('cursor');
    do {
      const page = await targetsPage(hub, args.positionals[0]!, { state, recovery, batch: batch === undefined ? undefined : String(batch - 1), limit, cursor });
      if (ctx.json) for (const t of page.items) printJson(ctx.io, t);
      else targets.push(...page.items);
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined && args.flag('all'));
    if (!ctx.json) ctx.io.out(targetTable(targets));
    if (cursor !== undefined) ctx.io.err(`more: --cursor ${quoted(cursor)}\n`);
    return 0;
  },
};
