import { checkApprovalGate, decideCreateRollout, fail, ok, type ConfigTarget, type HealthGate, type RolloutKind, type Selector, type Targets } from '@fleetplane/core';
import type { Command } from '../commands/pipeline.ts';
import { reconcileJob } from '../reconcile/queues.ts';
import { newId } from '../ids.ts';
import { loadConfigTargets, lockTargetNodes, nodesThatApplied, supersededRollouts } from './load.ts';
import { resolveTargets, type Resolved } from './resolve.ts';

export interface RolloutRequest {
  kind: RolloutKind;
  configVersion: string;
  targets: Targets;
  /** The selector explicit targets were resolved from earlier (an approval request's pinned nodes), for the record. */
  resolvedFrom?: Selector | null;
  batchSize: number;
  /** The approval request this rollout carries out; such a rollout has passed the gate already. */
  approvalId: string | null;
  /** Its health gate (SPEC L3), if any. */
  health?: HealthGate | null;
}

interface Loaded {
  versionExists: boolean;
  resolved: Resolved;
  busy: Map<string, string>;
  configTargets: Map<string, ConfigTarget>;
  appliedBefore: Set<string>;
}

/**
 * POST /rollouts and the node-level apply and rollback (single-node rollouts, SPEC G4): resolves and pins
 * the targets, checks the approval gate, and creates the rollout with its first batch in one transaction.
 */
export function createRollout(request: RolloutRequest, approvalRequired: boolean, rolloutId: string = newId('ro')): Command<Loaded, { rolloutId: string }> {
  return {
    name: 'CreateRollout',
    async load(trx) {
      const versionExists = !!(await trx.selectFrom('config_versions').select('config_version').where('config_version', '=', request.configVersion).executeTakeFirst());
      const resolved = await resolveTargets(trx, request.targets);
      const gated = approvalRequired && request.approvalId === null;
      const { busy, retired } = await lockTargetNodes(trx, resolved.nodes);
      return {
        versionExists,
        // One retired since the resolution read it is as unknown as one never registered.
        resolved: { nodes: resolved.nodes, unknown: [...resolved.unknown, ...retired] },
        busy,
        configTargets: await loadConfigTargets(trx, resolved.nodes.slice(0, request.batchSize)),
        appliedBefore: gated && request.kind === 'rollback' ? await nodesThatApplied(trx, request.configVersion, resolved.nodes) : new Set(),
      };
    },
    decide({ versionExists, resolved, busy, configTargets, appliedBefore }) {
      if (!versionExists) return fail('config_version_not_found', `configuration version ${request.configVersion} does not exist`, { config_version: request.configVersion });
      if (resolved.unknown.length > 0) return fail('unknown_nodes', `no node ${resolved.unknown.join(', ')} is registered`, { nodes: resolved.unknown });
      const gate = checkApprovalGate(approvalRequired && request.approvalId === null, request.kind, resolved.nodes, appliedBefore);
      if (!gate.ok) return gate;
      const decided = decideCreateRollout(
        {
          rolloutId,
          kind: request.kind,
          configVersion: request.configVersion,
          batchSize: request.batchSize,
          selector: request.targets.selector ?? request.resolvedFrom ?? null,
          nodes: resolved.nodes,
          approvalId: request.approvalId,
          rollbackOf: null,
          health: request.health ?? null,
        },
        busy,
        configTargets,
      );
      if (!decided.ok) return decided;
      const jobs = [...decided.value.nodes.map((n) => reconcileJob(n)), ...supersededRollouts(configTargets, rolloutId)];
      return ok({ events: decided.value.events, jobs, result: { rolloutId } });
    },
  };
}
