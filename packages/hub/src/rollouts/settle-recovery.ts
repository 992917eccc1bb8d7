import { decideInterrupted, decideRecovery, ok, releasedNodes, type RolloutState } from '@fleetplane/core';
import type { Command } from '../commands/pipeline.ts';
import { barrierPassJob } from '../reconcile/queues.ts';
import { hasRecovery, loadRollout } from './load.ts';

/**
 * Records recovery terminals and retires claims (SPEC I3, I7-I9), in a transaction of its own before
 * progression runs, so a failure in a later step never loses a terminal. At Hub start it first
 * reclassifies restores whose answer can no longer come as interrupted (I10). A node whose claim is
 * retired is reconciled at once: what its hold kept waiting goes (I11, I12). A pass reads holds without a
 * lock, so the node's pass is one that waits for this commit (barrierPassJob).
 */
export function settleRecovery(rolloutId: string, atBoot = false): Command<{ rollout: RolloutState | null }, { settled: number }> {
  return {
    name: 'SettleRecovery',
    async load(trx) {
      // Most passes have nothing to settle: a read without a lock says so, and such a pass then takes no row
      // lock and writes nothing. A recovery recorded after this snapshot asks for a pass of its own.
      if (!(await hasRecovery(trx, rolloutId))) return { rollout: null };
      return { rollout: await loadRollout(trx, rolloutId, true, 'recovering') };
    },
    decide({ rollout }) {
      if (!rollout) return ok({ events: [], result: { settled: 0 } });
      const interrupted = atBoot ? decideInterrupted(rollout) : [];
      const events = interrupted.length > 0 ? interrupted : decideRecovery(rollout);
      return ok({ events, jobs: releasedNodes(events).map((n) => barrierPassJob(n)), result: { settled: events.length } });
    },
  };
}
