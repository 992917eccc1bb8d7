import { decideSubmitApproval, fail, ok, type ApprovalState, type HealthGate, type RolloutKind, type Targets } from '@fleetplane/core';
import type { Command } from '../commands/pipeline.ts';
import { newId } from '../ids.ts';
import { resolveTargets, type Resolved } from '../rollouts/resolve.ts';
import { loadApproval } from './load.ts';
import { approvalExpiryJob } from './queues.ts';

export interface ApprovalRequest {
  kind: RolloutKind;
  configVersion: string;
  targets: Targets;
  batchSize: number;
  health?: HealthGate | null;
  republishedFrom: string | null;
}

interface Loaded {
  versionExists: boolean;
  resolved: Resolved;
  republishedFrom: ApprovalState | null;
}

/** POST /config-approvals: validates and pins a rollout proposal; creates no rollout (SPEC H3). */
export function submitApproval(request: ApprovalRequest, ttlMs: number): Command<Loaded, { approvalId: string }> {
  const approvalId = newId('ap');
  return {
    name: 'SubmitApproval',
    async load(trx) {
      const versionExists = !!(await trx.selectFrom('config_versions').select('config_version').where('config_version', '=', request.configVersion).executeTakeFirst());
      return {
        versionExists,
        resolved: await resolveTargets(trx, request.targets),
        // Locked: a republish may expire it (a request past its time whose job has not run yet).
        republishedFrom: request.republishedFrom === null ? null : await loadApproval(trx, request.republishedFrom, true),
      };
    },
    decide({ versionExists, resolved, republishedFrom }, now) {
      if (!versionExists) return fail('config_version_not_found', `configuration version ${request.configVersion} does not exist`, { config_version: request.configVersion });
      if (resolved.unknown.length > 0) return fail('unknown_nodes', `no node ${resolved.unknown.join(', ')} is registered`, { nodes: resolved.unknown });
      if (request.republishedFrom !== null && !republishedFrom) {
        return fail('approval_not_found', `no approval request ${request.republishedFrom}`, { approval_id: request.republishedFrom });
      }
      const decided = decideSubmitApproval(
        {
          approvalId,
          kind: request.kind,
          configVersion: request.configVersion,
          selector: request.targets.selector ?? null,
          nodes: resolved.nodes,
          batchSize: request.batchSize,
          health: request.health ?? null,
          republishedFrom,
        },
        now,
        ttlMs,
      );
      if (!decided.ok) return decided;
      return ok({ events: decided.value, jobs: [approvalExpiryJob(approvalId, new Date(now.getTime() + ttlMs))], result: { approvalId } });
    },
  };
}
