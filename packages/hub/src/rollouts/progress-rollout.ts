import { decideProgress, holdingTargets, ok, type ConfigTarget, type RolloutState } from '@fleetplane/core';
import type { Command } from '../commands/pipeline.ts';
import { newId } from '../reconcile/ids.ts';
import { reconcileJob } from '../reconcile/queues.ts';
import { loadConfigTargets, loadRollout } from './load.ts';

interface Loaded {
  rollout: RolloutState | null;
  configTargets: Map<string, ConfigTarget>;
}

/** The rollout job: settles the current batch and, when its gate passes, starts the next (level-triggered). */
export function progressRollout(rolloutId: string): Command<Loaded, { started: string[]; heldBy: string[] }> {
  return {
    name: 'ProgressRollout',
    async load(trx) {
      const rollout = await loadRollout(trx, rolloutId, true, true);
      if (!rollout || rollout.state !== 'applying') return { rollout, configTargets: new Map() };
      const next = rollout.targets.filter((t) => t.batch === rollout.currentBatch + 1).map((t) => t.nodeId);
      return { rollout, configTargets: await loadConfigTargets(trx, next) };
    },
    decide({ rollout, configTargets }) {
      if (!rollout) return ok({ events: [], result: { started: [], heldBy: [] } });
      const { events, nodes } = decideProgress(rollout, configTargets, newId);
      const heldBy = rollout.state === 'applying' ? holdingTargets(rollout.targets) : [];
      return ok({ events, jobs: nodes.map((n) => reconcileJob(n)), result: { started: nodes, heldBy } });
    },
  };
}
