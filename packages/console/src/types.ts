// The shapes of the Hub's answers that the console reads (API.md); the Hub's zod views are the source.

export type Labels = Record<string, string>;

/** GET /settings/reconciliation: the global mode, and whether the Hub's file or an operator set it. */
export interface ModeSetting {
  mode: 'observe' | 'lifecycle' | 'configuration';
  source: 'file' | 'operator';
}

export interface FleetNode {
  node_id: string;
  labels: Labels;
  maintenance: 'active' | 'draining';
  liveness: 'online' | 'stale' | 'offline';
  mode: 'observe' | 'lifecycle' | 'configuration';
  mode_override: string | null;
  applied_config_version: string | null;
  desired_config_version: string | null;
  last_seen_at: string;
}

/** What an intent or a rollout target waits on (issue 22): the blocking thing's ids and the Hub's sentence. */
export interface WaitingOn {
  kind: string;
  message: string;
  node_id: string | null;
  stream_id: string | null;
  intent_id: string | null;
  attempt_id: string | null;
  at: string | null;
}

export interface RolloutTarget {
  node_id: string;
  batch: number;
  state: 'waiting' | 'applying' | 'converged' | 'failed' | 'cancelled';
  waiting_on: WaitingOn | null;
  failure_class: string | null;
  failure_code: string | null;
  failure_message: string | null;
  recovery_phase: 'restoring' | 'complete' | 'failed' | null;
  recovery_claim: { class: 'pre_mutation' | 'post_mutation' | 'unknown'; code: string | null; at: string } | null;
}

export interface Rollout {
  rollout_id: string;
  kind: 'rollout' | 'apply' | 'rollback';
  config_version: string;
  state: 'applying' | 'paused' | 'converged' | 'cancelled' | 'rolled_back';
  paused_reason: string | null;
  batch_size: number;
  batches: number;
  current_batch: number;
  recovery: 'none' | 'restoring' | 'recovery_required';
  selector: Labels | null;
  created_by: string;
  approval_id: string | null;
  created_at: string;
  /** Its health gate as created, or null (SPEC L3). */
  health: HealthGate | null;
  gate: GateStatus | null;
  targets: RolloutTarget[];
}

export interface HealthGate {
  soak_ms: number;
  max_unhealthy_targets: number;
  on_unhealthy: 'pause' | 'rollback';
}

/** The gate of the batch it last watched: soaking until `until`, passed, or failed with its evidence (SPEC L5). */
export interface GateStatus {
  batch: number;
  state: 'soaking' | 'passed' | 'failed';
  since: string;
  until: string | null;
  evidence: Array<{ node_id: string; stream_id: string | null; reason: string; detail: string; since: string | null }>;
  action: 'opened' | 'skipped' | 'approval_required' | 'failed' | null;
}

export interface Approval {
  approval_id: string;
  kind: 'rollout' | 'apply' | 'rollback';
  config_version: string;
  nodes: string[];
  selector: Labels | null;
  batch_size: number;
  status: 'pending' | 'approved' | 'rejected' | 'expired';
  submitted_by: string;
  decided_by: string | null;
  reason: string | null;
  rollout_id: string | null;
  expires_at: string;
  republished_from: string | null;
  created_at: string;
}

export interface ConfigVersion {
  config_version: string;
  format: string;
  created_at: string;
}

export interface Intent {
  intent_id: string;
  node_id: string;
  generation: number;
  state: 'pending' | 'converging' | 'retrying' | 'converged' | 'blocked' | 'superseded' | 'ambiguous';
  retry_count: number;
  next_retry_at: string | null;
  failure_class: string | null;
  failure_code: string | null;
  failure_message: string | null;
  waiting_on: WaitingOn | null;
}

export interface Stream {
  stream_id: string;
  generation: number;
  desired_state: 'running' | 'stopped';
  placement: { nodes: string[]; split: boolean };
  observed: Record<string, { generation: number; state: string; reported_at: string }>;
  intents: Intent[];
}

/** What a new rollout or approval request targets: explicit nodes or a label selector, never both. */
export type Targets = { nodes: string[] } | { selector: Labels };

export interface RolloutRequest {
  config_version: string;
  targets: Targets;
  batch_size: number;
}

export interface LogEvent {
  position: number;
  stream_id: string;
  type: string;
  data: Record<string, unknown>;
  metadata: { actor: string; role: string; correlation_id: string; causation_id: string | null; source: string };
  recorded_at: string;
  cursor: string;
}

/** One event of an attempt's causation chain, and what it is to the attempt. */
export interface WhyLink {
  relation: string;
  position: number;
  stream_id: string;
  type: string;
  actor: string;
  role: string;
  correlation_id: string;
  recorded_at: string;
}

/** Reports a node sent over a window, and how many of them changed its state. */
export interface ReportCount {
  reports: number;
  changed: number;
}

/** A node's recent reports (GET /report-rates): how often it reports, instead of its every heartbeat. */
export interface ReportRate {
  node_id: string;
  last_report_seq: number | null;
  last_report_at: string | null;
  last_minute: ReportCount;
  last_hour: ReportCount;
}

/** GET /api/v1/settings/approvals: whether configuration changes need a second person's approval. */
export interface ApprovalSettings {
  approval_required: boolean;
  approval_ttl_ms: number;
}
