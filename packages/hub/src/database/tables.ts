import type { ColumnType, Generated, JSONColumnType } from 'kysely';
import type { GateEvidence, GateState, HealthGate, PlacementShare, RolloutHealthExecutedData, StreamHealth } from '@fleetplane/core';

/** Row types of the tables the Hub reads and writes with Kysely. db/README.md documents them for SQL users. */
export interface Tables {
  events: EventsTable;
  nodes: NodesTable;
  retired_nodes: RetiredNodesTable;
  streams: StreamsTable;
  intents: IntentsTable;
  attempts: AttemptsTable;
  observed_streams: ObservedStreamsTable;
  settings: SettingsTable;
  idempotency_keys: IdempotencyKeysTable;
  config_versions: ConfigVersionsTable;
  rollouts: RolloutsTable;
  rollout_targets: RolloutTargetsTable;
  config_approvals: ConfigApprovalsTable;
  archived_heads: ArchivedHeadsTable;
  projection_checkpoints: ProjectionCheckpointsTable;
  database_identity: DatabaseIdentityTable;
}

type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** The log as stored (migration 0010): readers select the logical metadata with LOGICAL_METADATA (event-store/recorded.ts). */
export interface EventsTable {
  position: Generated<number>;
  tx_id: Generated<string>;
  stream_version: number;
  recorded_at: Timestamp;
  event_id: string;
  /** The metadata's correlation id when it is a canonical UUID (then not in `metadata`). */
  correlation_id: string | null;
  schema_version: number;
  stream_id: string;
  type: string;
  data: JSONColumnType<Record<string, unknown>>;
  /** Stored form: keys equal to their default left out (stored_metadata()). */
  metadata: JSONColumnType<Record<string, unknown>>;
  hash: Buffer;
}

export interface NodesTable {
  node_id: string;
  labels: JSONColumnType<Record<string, string>, string | undefined, string>;
  capabilities: JSONColumnType<string[], string | undefined, string>;
  data_address: string | null;
  control_address: string | null;
  agent_version: string | null;
  boot_id: string;
  maintenance: Generated<'active' | 'draining'>;
  mode_override: 'observe' | 'lifecycle' | 'configuration' | null;
  last_report_seq: number | null;
  last_report_at: Timestamp | null;
  last_seen_at: Timestamp;
  applied_config_version: string | null;
  registered_at: Timestamp;
  updated_at: Timestamp;
  report_boot_id: string | null;
  report_digest: string | null;
  desired_config_version: string | null;
  config_generation: Generated<number>;
  /** Set while the node reports a configuration version the log does not know: config_generation when it first did, and when. */
  config_ahead_of: number | null;
  config_ahead_at: Timestamp | null;
  recovery_points: JSONColumnType<Array<{ ref: string; config_version: string }>, string | undefined, string>;
}

/** The database's identity as last recorded (migration 0029), one row; `restored_at` once it was found changed. */
export interface DatabaseIdentityTable {
  singleton: Generated<boolean>;
  system_identifier: string;
  timeline: number;
  database_oid: number;
  identified_at: Timestamp;
  restored_at: Timestamp | null;
}

type Json<T extends object | null> = JSONColumnType<T, string, string>;

export interface StreamsTable {
  stream_id: string;
  generation: number;
  desired_state: 'running' | 'stopped';
  spec: Json<Record<string, unknown>>;
  placement: Json<{ nodes: string[]; split: boolean }>;
  action_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  deletion_requested_at: Timestamp | null;
  removed_at: Timestamp | null;
}

export interface RetiredNodesTable {
  node_id: string;
  forced: boolean;
  retired_by: string;
  correlation_id: string;
  retired_at: Timestamp;
}

export type IntentStateColumn = 'pending' | 'converging' | 'retrying' | 'converged' | 'blocked' | 'superseded' | 'ambiguous';

export interface IntentsTable {
  intent_id: string;
  kind: 'lifecycle' | 'configuration';
  stream_id: string | null;
  node_id: string;
  generation: number;
  desired_state: 'running' | 'stopped' | null;
  action_id: string | null;
  config_version: string | null;
  rollout_id: string | null;
  recovery_ref: string | null;
  override_hold: Generated<boolean>;
  state: IntentStateColumn;
  retry_count: Generated<number>;
  next_retry_at: Timestamp | null;
  failure_class: string | null;
  failure_code: string | null;
  failure_message: string | null;
  superseded_by: string | null;
  awaiting_boot_id: string | null;
  awaiting_seq: number | null;
  correlation_id: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  converged_at: Timestamp | null;
}

export interface AttemptsTable {
  attempt_id: string;
  intent_id: string;
  node_id: string;
  stream_id: string | null;
  generation: number;
  operation: 'job_start' | 'job_stop' | 'job_restart' | 'config_apply' | 'restore';
  action_id: string | null;
  config_version: string | null;
  spec: Json<Record<string, unknown>>;
  placement: JSONColumnType<PlacementShare | null, string | null, string | null>;
  state: 'queued' | 'dispatched' | 'succeeded' | 'failed' | 'ambiguous' | 'superseded';
  lease_expires_at: Timestamp | null;
  dispatched_at: Timestamp | null;
  completed_at: Timestamp | null;
  failure_class: string | null;
  code: string | null;
  message: string | null;
  mutation: string | null;
  correlation_id: string;
  created_at: Timestamp;
}

export interface ObservedStreamsTable {
  node_id: string;
  stream_id: string;
  generation: number;
  state: string;
  last_action_id: string | null;
  error: string | null;
  reported_at: Timestamp;
  health: JSONColumnType<StreamHealth | null, string | null, string | null>;
}

export interface SettingsTable {
  key: string;
  value: ColumnType<unknown, string, string>;
  updated_at: Timestamp;
}

export interface IdempotencyKeysTable {
  principal: string;
  route: string;
  key: string;
  body_sha256: string;
  status: number;
  response: Json<object>;
  headers: Json<Record<string, string>>;
  /** The claiming command's result (committed with the claim); null on claims older than migration 0008. */
  result: ColumnType<unknown, string | null | undefined, string | null>;
  created_at: Timestamp;
}

export interface ConfigVersionsTable {
  config_version: string;
  digest: string;
  format: 'yaml' | 'json' | 'toml' | 'text';
  content: string;
  parent: string | null;
  created_by: string;
  correlation_id: string;
  created_at: Timestamp;
}

export interface RolloutsTable {
  rollout_id: string;
  kind: 'rollout' | 'apply' | 'rollback';
  config_version: string;
  state: 'applying' | 'paused' | 'converged' | 'cancelled' | 'rolled_back';
  paused_reason: string | null;
  batch_size: number;
  batches: number;
  current_batch: number;
  selector: JSONColumnType<Record<string, string> | null, string | null, string | null>;
  created_by: string;
  approval_id: string | null;
  rollback_of: string | null;
  rolled_back_by: string | null;
  correlation_id: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  health_gate: JSONColumnType<HealthGate | null, string | null, string | null>;
  gate_batch: number | null;
  gate_state: GateState | null;
  gate_since: Timestamp | null;
  gate_until: Timestamp | null;
  gate_evidence: JSONColumnType<GateEvidence[] | null, string | null, string | null>;
  gate_action: RolloutHealthExecutedData['outcome'] | null;
  /** Its targets in each state, kept by the projection as its targets move (migration 0026). */
  targets_waiting: Generated<number>;
  targets_applying: Generated<number>;
  targets_converged: Generated<number>;
  targets_failed: Generated<number>;
  targets_cancelled: Generated<number>;
}

export interface RolloutTargetsTable {
  rollout_id: string;
  node_id: string;
  batch: number;
  state: 'waiting' | 'applying' | 'converged' | 'failed' | 'cancelled';
  intent_id: string | null;
  failure_class: string | null;
  failure_code: string | null;
  failure_message: string | null;
  correlation_id: string | null;
  updated_at: Timestamp;
  recovery_phase: 'restoring' | 'complete' | 'failed' | null;
  recovery_intent_id: string | null;
  recovery_ref: string | null;
  recovery_claim: 'pre_mutation' | 'post_mutation' | 'unknown' | null;
  recovery_claim_code: string | null;
  recovery_claim_at: Timestamp | null;
  recovery_claim_generation: number | null;
}

export interface ConfigApprovalsTable {
  approval_id: string;
  kind: 'rollout' | 'apply' | 'rollback';
  config_version: string;
  nodes: Json<string[]>;
  selector: JSONColumnType<Record<string, string> | null, string | null, string | null>;
  batch_size: number;
  health_gate: JSONColumnType<HealthGate | null, string | null, string | null>;
  status: 'pending' | 'approved' | 'rejected' | 'expired';
  submitted_by: string;
  decided_by: string | null;
  decided_at: Timestamp | null;
  reason: string | null;
  rollout_id: string | null;
  expires_at: Timestamp;
  republished_from: string | null;
  correlation_id: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ArchivedHeadsTable {
  stream_id: string;
  stream_version: number;
  hash: Buffer;
  position: number;
}

export interface ProjectionCheckpointsTable {
  position: number;
  taken_at: Timestamp;
  content: Buffer;
  sha256: string;
}
