import type { RolloutKind } from '../rollouts/events.ts';
import type { HealthGate } from '../rollouts/health-gate.ts';
import type { Selector } from '../rollouts/targets.ts';

export const approvalStream = (approvalId: string): string => `approval:${approvalId}`;

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'expired'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** A pinned rollout proposal: version, resolved nodes and batch size are fixed here (SPEC H3, F4). */
export interface ApprovalSubmittedData {
  approval_id: string;
  kind: RolloutKind;
  config_version: string;
  nodes: string[];
  selector: Selector | null;
  batch_size: number;
  expires_at: string;
  republished_from: string | null;
  /** The rollout's health gate, pinned with the proposal (SPEC L3); absent when it has none. */
  health?: HealthGate | null;
}

/** The approver is the event's actor; the rollout it created is recorded beside it, in the same transaction. */
export interface ApprovalApprovedData {
  approval_id: string;
  rollout_id: string;
}

export interface ApprovalRejectedData {
  approval_id: string;
  reason: string | null;
}

export interface ApprovalExpiredData {
  approval_id: string;
}
