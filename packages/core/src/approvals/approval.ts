import { fleetEvent, type EventDataByType, type FleetEvent, type FleetEventType } from '../events/fleet-event.ts';
import { fail, ok, type Result } from '../result.ts';
import type { RolloutKind } from '../rollouts/events.ts';
import type { HealthGate } from '../rollouts/health-gate.ts';
import type { Selector } from '../rollouts/targets.ts';
import {
  approvalStream,
  type ApprovalApprovedData,
  type ApprovalExpiredData,
  type ApprovalRejectedData,
  type ApprovalStatus,
  type ApprovalSubmittedData,
} from './events.ts';

export interface ApprovalState {
  approvalId: string;
  kind: RolloutKind;
  configVersion: string;
  /** The selector the nodes were resolved from, for the record (null: explicit nodes). */
  selector: Selector | null;
  nodes: string[];
  batchSize: number;
  health: HealthGate | null;
  status: ApprovalStatus;
  submittedBy: string;
  expiresAt: Date;
  rolloutId: string | null;
}

export interface NewApproval {
  approvalId: string;
  kind: RolloutKind;
  configVersion: string;
  selector: Selector | null;
  /** The resolved nodes, pinned. */
  nodes: string[];
  batchSize: number;
  health?: HealthGate | null;
  republishedFrom: ApprovalState | null;
}

const event = <T extends FleetEventType>(approvalId: string, type: T, data: EventDataByType[T]) => fleetEvent(approvalStream(approvalId), type, data);

/**
 * SPEC H3, H7: a request is validated like a rollout (an empty resolution is refused, F6) and pinned; it
 * creates no rollout. Republishing is a new request that names the rejected or expired one it replaces.
 */
export function decideSubmitApproval(input: NewApproval, now: Date, ttlMs: number): Result<FleetEvent[]> {
  if (input.nodes.length === 0) return fail('no_matching_nodes', 'the selector matches no node: nothing was submitted', { selector: input.selector });
  const from = input.republishedFrom;
  // A request past its time is expired, whether or not its expiry job has run yet.
  const lapsed = from ? decideExpiry(from, now) : [];
  if (from && lapsed.length === 0 && from.status !== 'rejected' && from.status !== 'expired') {
    return fail('approval_not_republishable', `approval request ${from.approvalId} is ${from.status}: only a rejected or expired request is republished`, {
      approval_id: from.approvalId,
      status: from.status,
    });
  }
  const data: ApprovalSubmittedData = {
    approval_id: input.approvalId,
    kind: input.kind,
    config_version: input.configVersion,
    nodes: input.nodes,
    selector: input.selector,
    batch_size: input.batchSize,
    expires_at: new Date(now.getTime() + ttlMs).toISOString(),
    republished_from: from?.approvalId ?? null,
    ...(input.health ? { health: input.health } : {}),
  };
  return ok([...lapsed, event(input.approvalId, 'ApprovalSubmitted', data)]);
}

export type ApprovalDecision = { decision: 'approve'; rolloutId: string } | { decision: 'reject'; reason: string | null };

export interface ApprovalOutcome {
  events: FleetEvent[];
  /** True when the approval's rollout must be created by this decision. */
  createRollout: boolean;
  /** Set when the request expired on the way: the expiry is recorded and the decision refused. */
  refused: { code: string; message: string } | null;
}

/**
 * SPEC H5, H7, H8: the submitter never decides its own request; only a pending, unexpired request is
 * decided; repeating an approval changes nothing and answers with the one rollout. A rollout already
 * carrying this approval (adopted) is recorded instead of creating another.
 */
export function decideApproval(approval: ApprovalState, decision: ApprovalDecision, principal: string, existingRollout: string | null, now: Date): Result<ApprovalOutcome> {
  const id = approval.approvalId;
  if (approval.submittedBy === principal) {
    return fail('self_approval_forbidden', `approval request ${id} was submitted by ${principal}: another admin must decide it`, { approval_id: id });
  }
  if (approval.status === 'approved' && decision.decision === 'approve') return ok({ events: [], createRollout: false, refused: null });
  if (approval.status !== 'pending') {
    return fail('approval_not_pending', `approval request ${id} is ${approval.status}`, { approval_id: id, status: approval.status });
  }
  const expired = decideExpiry(approval, now);
  if (expired.length > 0) {
    return ok({ events: expired, createRollout: false, refused: { code: 'approval_not_pending', message: `approval request ${id} expired at ${approval.expiresAt.toISOString()}` } });
  }
  if (decision.decision === 'reject') {
    const data: ApprovalRejectedData = { approval_id: id, reason: decision.reason };
    return ok({ events: [event(id, 'ApprovalRejected', data)], createRollout: false, refused: null });
  }
  const data: ApprovalApprovedData = { approval_id: id, rollout_id: existingRollout ?? decision.rolloutId };
  return ok({ events: [event(id, 'ApprovalApproved', data)], createRollout: existingRollout === null, refused: null });
}

/** The expiry job: a request still pending at its expiry time becomes expired (terminal). */
export function decideExpiry(approval: ApprovalState, now: Date): FleetEvent[] {
  if (approval.status !== 'pending' || now.getTime() < approval.expiresAt.getTime()) return [];
  const data: ApprovalExpiredData = { approval_id: approval.approvalId };
  return [event(approval.approvalId, 'ApprovalExpired', data)];
}
