import type { RolloutView } from '../../http/views/rollout.ts';
import { oneId, type Command } from '../command.ts';
import { EXIT } from '../exit.ts';
import { unavailable } from '../hub-client.ts';
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
    '(or the watch is interrupted), 3 or 4 when the Hub refuses or cannot be reached. A Hub out of reach\n' +
    'once the rollout was shown (a restart, a failover) is polled again at the interval, said once on stderr.',
  options: { interval: { type: 'string', value: 'MS', help: 'poll period in milliseconds (default 1000)' } },
  positionals: oneId,
  async run(ctx, args) {
    const interval = args.int('interval', 10, 3_600_000) ?? 1000;
    const hub = ctx.hub();
    let shown = '';
    let away = false;
    for (;;) {
      let rollout: RolloutView | null = null;
      try {
        rollout = (await hub.request<RolloutView>('GET', rolloutPath(args.positionals[0]!))).body;
      } catch (e) {
        // The rollout goes on while its Hub restarts: only a Hub never reached, or a refusal, ends the watch.
        if (shown === '' || !unavailable(e)) throw e;
        if (!away) ctx.io.err(`${(e as Error).message}; polling again every ${interval} ms (Ctrl-C stops)\n`);
        away = true;
      }
      if (rollout) {
        if (away) ctx.io.err(`reconnected to the Hub at ${hub.url}\n`);
        away = false;
        const text = ctx.json ? JSON.stringify(rollout) + '\n' : renderProgress(rollout);
        if (text !== shown) ctx.io.out(text);
        shown = text;
        if (rollout.state === 'converged') return EXIT.ok;
        if (rollout.state !== 'applying') return EXIT.failed;
      }
      await sleep(interval, ctx.io.signal);
      if (ctx.io.signal.aborted) return EXIT.failed;
    }
  },
};
