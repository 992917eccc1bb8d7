import { decideApproval, fail, ok, type ApprovalDecision, type ApprovalState } from '@fleetplane/core';
import { loadState, type Command } from '../commands/pipeline.ts';
import { newId } from '../ids.ts';
import { createRollout } from '../rollouts/create-rollout.ts';
import { loadApproval } from './load.ts';

type RolloutCommand = ReturnType<typeof createRollout>;

interface Loaded {
  approval: ApprovalState | null;
  /** A rollout that already carries this approval: adopted, never duplicated (SPEC H8). */
  existingRollout: string | null;
  /** The rollout an approval creates, loaded under the approval's lock. */
  rollout: { command: RolloutCommand; state: Awaited<ReturnType<NonNullable<RolloutCommand['load']>>> } | null;
}

export interface DecidedApproval {
  approvalId: string;
  refused: { code: string; message: string } | null;
}

/**
 * POST /config-approvals/{id}/approve|reject. Approval and the rollout it creates commit together, under
 * the request's row lock, with the approver as the actor of both (H6): concurrent approvals serialize and
 * the later one finds the request approved (H8). The unique rollouts.approval_id makes a second rollout
 * for one request impossible whatever the code does.
 */
export function decideApprovalRequest(approvalId: string, decision: ApprovalDecision['decision'], reason: string | null, principal: string): Command<Loaded, DecidedApproval> {
  const choice: ApprovalDecision = decision === 'approve' ? { decision, rolloutId: newId('ro') } : { decision, reason };
  return {
    name: decision === 'approve' ? 'ApproveRequest' : 'RejectRequest',
    async load(trx, now) {
      const approval = await loadApproval(trx, approvalId, true);
      if (!approval) return { approval, existingRollout: null, rollout: null };
      const existing = await trx.selectFrom('rollouts').select('rollout_id').where('approval_id', '=', approvalId).executeTakeFirst();
      if (choice.decision !== 'approve' || approval.status !== 'pending' || existing) return { approval, existingRollout: existing?.rollout_id ?? null, rollout: null };
      const command = createRollout(
        { kind: approval.kind, configVersion: approval.configVersion, targets: { nodes: approval.nodes }, resolvedFrom: approval.selector, batchSize: approval.batchSize, approvalId, health: approval.health },
        true,
        choice.rolloutId,
      );
      return { approval, existingRollout: null, rollout: { command, state: await loadState(command, trx, now) } };
    },
    decide({ approval, existingRollout, rollout }, now) {
      if (!approval) return { ok: false, error: { code: 'approval_not_found', message: `no approval request ${approvalId}` } };
      const decided = decideApproval(approval, choice, principal, existingRollout, now);
      if (!decided.ok) return decided;
      const { events, createRollout: create, refused } = decided.value;
      if (!create || !rollout) return ok({ events, result: { approvalId, refused } });
      const created = rollout.command.decide(rollout.state, now);
      // The request pinned its nodes (F4): one retired since cannot be left out without changing what was approved.
      if (!created.ok && created.error.code === 'unknown_nodes') {
        const nodes = (created.error.details as { nodes: string[] }).nodes;
        return fail('unknown_nodes', `node ${nodes.join(', ')} of request ${approvalId} was retired since it was submitted: reject it and submit the request again`, { nodes });
      }
      if (!created.ok) return created;
      return ok({ events: [...events, ...created.value.events], jobs: created.value.jobs ?? [], result: { approvalId, refused } });
    },
  };
}
