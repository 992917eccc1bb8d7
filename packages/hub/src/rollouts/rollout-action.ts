import {
  checkApprovalGate,
  decideRollbackTo,
  decideRolloutAction,
  fail,
  ok,
  type ConfigTarget,
  type LiveIntent,
  type RolloutAction,
  type RolloutState,
} from '@fleetplane/core';
import type { Command } from '../commands/pipeline.ts';
import { newId } from '../reconcile/ids.ts';
import { reconcileJob } from '../reconcile/queues.ts';
import { busyNodes, liveConfigIntents, loadConfigTargets, loadRollout, nodesThatApplied } from './load.ts';
import { rolloutJob } from './queues.ts';

/** POST /rollouts/{id}/actions: pause, resume, cancel, or roll back to an earlier version. */
export type RolloutActionRequest = RolloutAction | { action: 'rollback'; config_version: string };

interface Loaded {
  rollout: RolloutState | null;
  live: LiveIntent[];
  configTargets: Map<string, ConfigTarget>;
  versionExists: boolean;
  busy: Map<string, string>;
  appliedBefore: Set<string>;
}

export function rolloutAction(
  rolloutId: string,
  request: RolloutActionRequest,
  approvalRequired: boolean,
): Command<Loaded, { rolloutId: string }> {
  const rollbackId = newId('ro');
  return {
    name: 'RolloutAction',
    async load(trx) {
      const rollout = await loadRollout(trx, rolloutId, true);
      const empty: Loaded = { rollout, live: [], configTargets: new Map(), versionExists: false, busy: new Map(), appliedBefore: new Set() };
      if (!rollout) return empty;
      const nodes = rollout.targets.map((t) => t.nodeId);
      // Nodes are locked before intents, as every command does.
      const live = () => liveConfigIntents(trx, (q) => q.where('rollout_id', '=', rolloutId));
      switch (request.action) {
        case 'pause':
          return empty;
        case 'cancel':
          return { ...empty, live: await live() };
        case 'resume': {
          const failed = rollout.targets.filter((t) => t.batch === rollout.currentBatch && t.state === 'failed').map((t) => t.nodeId);
          return { ...empty, configTargets: await loadConfigTargets(trx, failed) };
        }
        case 'rollback': {
          const version = await trx.selectFrom('config_versions').select('config_version').where('config_version', '=', request.config_version).executeTakeFirst();
          const configTargets = await loadConfigTargets(trx, nodes.slice(0, rollout.batchSize));
          return {
            ...empty,
            live: await live(),
            versionExists: !!version,
            configTargets,
            busy: await busyNodes(trx, nodes),
            appliedBefore: approvalRequired ? await nodesThatApplied(trx, request.config_version, nodes) : new Set(),
          };
        }
      }
    },
    decide({ rollout, live, configTargets, versionExists, busy, appliedBefore }) {
      if (!rollout) return fail('rollout_not_found', `no rollout ${rolloutId}`, { rollout_id: rolloutId });
      if (request.action !== 'rollback') {
        const decided = decideRolloutAction(rollout, request, live, configTargets, newId);
        if (!decided.ok) return decided;
        const jobs = [...decided.value.nodes.map((n) => reconcileJob(n)), ...(request.action === 'resume' ? [rolloutJob(rolloutId)] : [])];
        return ok({ events: decided.value.events, jobs, result: { rolloutId } });
      }
      if (!versionExists) return fail('config_version_not_found', `configuration version ${request.config_version} does not exist`, { config_version: request.config_version });
      const nodes = rollout.targets.map((t) => t.nodeId);
      const gate = checkApprovalGate(approvalRequired, 'rollback', nodes, appliedBefore);
      if (!gate.ok) return gate;
      const decided = decideRollbackTo(
        rollout,
        { rolloutId: rollbackId, kind: 'rollback', configVersion: request.config_version, batchSize: rollout.batchSize, selector: null, nodes, approvalId: null, rollbackOf: rolloutId },
        live,
        busy,
        configTargets,
        newId,
      );
      if (!decided.ok) return decided;
      return ok({ events: decided.value.events, jobs: decided.value.nodes.map((n) => reconcileJob(n)), result: { rolloutId: rollbackId } });
    },
  };
}
