import type { RolloutSummary } from '../../http/views/rollout.ts';
import { oneId, type Command } from '../command.ts';
import { EXIT } from '../exit.ts';
import { unavailable } from '../hub-client.ts';
import { sleep } from '../io.ts';
import { renderProgress, SHOWN } from '../progress.ts';
import { readProgress, rolloutSummary } from '../rollout-progress.ts';

export const watchCommand: Command = {
  path: ['rollouts', 'watch'],
  synopsis: 'ID [--interval MS]',
  summary: 'follow a rollout until it ends, with a progress bar per batch',
  details:
    'Polls the rollout\'s summary (GET /rollouts/{id}/summary: its targets counted by batch) and a page of at\n' +
    `most ${SHOWN} targets for each list the progress shows, and prints the progress whenever it changes (with\n` +
    '--json: the summary alone, without targets, one line per change). Exits 0 once the rollout converged, 1\n' +
    'when it is paused, cancelled or rolled back (or the watch is interrupted), 3 or 4 when the Hub refuses or\n' +
    'cannot be reached. A Hub out of reach once the rollout was shown (a restart, a failover) is polled again\n' +
    'at the interval, said once on stderr.',
  options: { interval: { type: 'string', value: 'MS', help: 'poll period in milliseconds (default 1000)' } },
  positionals: oneId,
  async run(ctx, args) {
    const interval = args.int('interval', 10, 3_600_000) ?? 1000;
    const hub = ctx.hub();
    const id = args.positionals[0]!;
    /** The rollout, and what the watch prints of it: the summary as JSON, or the progress. */
    const readShown = async () => {
      if (ctx.json) {
        const rollout = await rolloutSummary(hub, id);
        return { rollout, text: JSON.stringify(rollout) + '\n' };
      }
      const progress = await readProgress(hub, id);
      return { rollout: progress.rollout, text: renderProgress(progress) };
    };
    let shown = '';
    let away = false;
    for (;;) {
      let read: { rollout: RolloutSummary; text: string } | null = null;
      try {
        read = await readShown();
      } catch (e) {
        // The rollout goes on while its Hub restarts: only a Hub never reached, or a refusal, ends the watch.
        if (shown === '' || !unavailable(e)) throw e;
        if (!away) ctx.io.err(`${(e as Error).message}; polling again every ${interval} ms (Ctrl-C stops)\n`);
        away = true;
      }
      if (read) {
        if (away) ctx.io.err(`reconnected to the Hub at ${hub.url}\n`);
        away = false;
        if (read.text !== shown) ctx.io.out(read.text);
        shown = read.text;
        if (read.rollout.state === 'converged') return EXIT.ok;
        if (read.rollout.state !== 'applying') return EXIT.failed;
      }
      await sleep(interval, ctx.io.signal);
      if (ctx.io.signal.aborted) return EXIT.failed;
    }
  },
};
