import type { RolloutView } from '../../http/views/rollout.ts';
import { oneId, type Command } from '../command.ts';
import { EXIT } from '../exit.ts';
import { sleep } from '../io.ts';
import { renderProgress } from '../progress.ts';
import { rolloutPath } from './rollouts.ts';

export const watchCommand: Command = {
  path: ['rollouts', 'watch'],
  synopsis: 'ID [--interval MS]',
  summary: 'follow a rollout until it ends, with a progress bar per batch',
  details:
    'Polls GET /rollouts/{id} and prints the progress whenever it changes (with --json: the rollout, one\n' +
    'line per change). Exits 0 once the rollout converged, 1 when it is paused, cancelled or rolled back\n' +
    '(or the watch is interrupted), 3 or 4 when the Hub refuses or cannot be reached.',
  options: { interval: { type: 'string', value: 'MS', help: 'poll period in milliseconds (default 1000)' } },
  positionals: oneId,
  async run(ctx, args) {
    const interval = args.int('interval', 10, 3_600_000) ?? 1000;
    let shown = '';
    for (;;) {
      const rollout = (await ctx.hub().request<RolloutView>('GET', rolloutPath(args.positionals[0]!))).body;
      const text = ctx.json ? JSON.stringify(rollout) + '\n' : renderProgress(rollout);
      if (text !== shown) ctx.io.out(text);
      shown = text;
      if (rollout.state === 'converged') return EXIT.ok;
      if (rollout.state !== 'applying') return EXIT.failed;
      await sleep(interval, ctx.io.signal);
      if (ctx.io.signal.aborted) return EXIT.failed;
    }
  },
};
