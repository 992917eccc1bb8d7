-- Configuration: immutable versions, configuration intents (a node's configuration is a target of its own,
-- with its own generation), rollouts with their pinned targets, and approval requests.

CREATE TABLE config_versions (
  config_version text        PRIMARY KEY,
  digest         text        NOT NULL,
  format         text        NOT NULL CHECK (format IN ('yaml', 'json', 'toml', 'text')),
  content        text        NOT NULL,
  parent         text,
  created_by     text        NOT NULL,
  correlation_id text        NOT NULL,
  created_at     timestamptz NOT NULL
);

-- A configuration intent has no stream: its target is the node's configuration. NULLS NOT DISTINCT keeps
-- one intent per (node, configuration generation) and one active attempt per target and generation (A11).
ALTER TABLE intents
  ALTER COLUMN stream_id DROP NOT NULL,
  ALTER COLUMN desired_state DROP NOT NULL,
  ADD COLUMN config_version text,
  ADD COLUMN rollout_id text,
  DROP CONSTRAINT intents_one_per_generation,
  ADD CONSTRAINT intents_one_per_generation UNIQUE NULLS NOT DISTINCT (kind, stream_id, node_id, generation),
  ADD CONSTRAINT intents_target CHECK (CASE kind
    WHEN 'lifecycle' THEN stream_id IS NOT NULL AND desired_state IS NOT NULL AND config_version IS NULL
    ELSE stream_id IS NULL AND desired_state IS NULL AND config_version IS NOT NULL END);
CREATE INDEX intents_by_rollout ON intents (rollout_id) WHERE rollout_id IS NOT NULL;
-- A10 reads the newest lifecycle intent of every stream on a node.
CREATE INDEX intents_lifecycle_by_node ON intents (node_id, stream_id, generation DESC) WHERE kind = 'lifecycle';

ALTER TABLE attempts
  ALTER COLUMN stream_id DROP NOT NULL,
  ADD COLUMN config_version text;
DROP INDEX attempts_one_active;
CREATE UNIQUE INDEX attempts_one_active ON attempts (node_id, stream_id, generation) NULLS NOT DISTINCT
  WHERE state IN ('queued', 'dispatched');

-- What the Hub wants the node's configuration to be, and that target's generation.
ALTER TABLE nodes
  ADD COLUMN desired_config_version text,
  ADD COLUMN config_generation bigint NOT NULL DEFAULT 0;

CREATE TABLE rollouts (
  rollout_id     text        PRIMARY KEY,
  kind           text        NOT NULL CHECK (kind IN ('rollout', 'apply', 'rollback')),
  config_version text        NOT NULL,
  state          text        NOT NULL CHECK (state IN ('applying', 'paused', 'converged', 'cancelled', 'rolled_back')),
  paused_reason  text,
  batch_size     integer     NOT NULL,
  batches        integer     NOT NULL,
  current_batch  integer     NOT NULL,
  selector       jsonb,
  created_by     text        NOT NULL,
  -- H8: one rollout per approval request, whatever happens around the approval.
  approval_id    text        UNIQUE,
  rollback_of    text,
  rolled_back_by text,
  correlation_id text        NOT NULL,
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL
);
CREATE INDEX rollouts_live ON rollouts (created_at) WHERE state IN ('applying', 'paused');

CREATE TABLE rollout_targets (
  rollout_id      text        NOT NULL,
  node_id         text        NOT NULL,
  batch           integer     NOT NULL,
  state           text        NOT NULL CHECK (state IN ('waiting', 'applying', 'converged', 'failed', 'cancelled')),
  intent_id       text,
  failure_class   text,
  failure_code    text,
  failure_message text,
  correlation_id  text,
  updated_at      timestamptz NOT NULL,
  PRIMARY KEY (rollout_id, node_id)
);
CREATE INDEX rollout_targets_by_node ON rollout_targets (node_id, state);

CREATE TABLE config_approvals (
  approval_id      text        PRIMARY KEY,
  kind             text        NOT NULL CHECK (kind IN ('rollout', 'apply', 'rollback')),
  config_version   text        NOT NULL,
  nodes            jsonb       NOT NULL,
  selector         jsonb,
  batch_size       integer     NOT NULL,
  status           text        NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'expired')),
  submitted_by     text        NOT NULL,
  decided_by       text,
  decided_at       timestamptz,
  reason           text,
  rollout_id       text,
  expires_at       timestamptz NOT NULL,
  republished_from text,
  correlation_id   text        NOT NULL,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL
);
CREATE INDEX config_approvals_by_status ON config_approvals (status, created_at);

GRANT SELECT ON config_versions, rollouts, rollout_targets, config_approvals TO fleetplane_reader;

-- Configuration drift: a node whose reported configuration is not the one the Hub wants.
CREATE OR REPLACE VIEW drift AS
  SELECT p.node_id, s.stream_id, 'generation_mismatch'::text AS kind,
         s.generation AS desired_generation, s.desired_state,
         o.generation AS observed_generation, o.state AS observed_state, n.last_seen_at,
         NULL::text AS desired_config_version, NULL::text AS applied_config_version
  FROM streams s
  CROSS JOIN LATERAL jsonb_array_elements_text(s.placement->'nodes') AS p(node_id)
  LEFT JOIN observed_streams o ON o.node_id = p.node_id AND o.stream_id = s.stream_id
  LEFT JOIN nodes n ON n.node_id = p.node_id
  WHERE o.node_id IS NULL OR o.generation <> s.generation OR o.state <> s.desired_state
UNION ALL
  SELECT n.node_id, NULL, 'stale_node', NULL, NULL, NULL, NULL, n.last_seen_at, NULL, NULL
  FROM nodes n
  WHERE n.last_seen_at < coalesce(nullif(current_setting('fleetplane.now', true), '')::timestamptz, now())
    - make_interval(secs => coalesce(nullif(current_setting('fleetplane.stale_after_ms', true), ''), '30000')::numeric / 1000)
UNION ALL
  SELECT n.node_id, NULL, 'config_drift', NULL, NULL, NULL, NULL, n.last_seen_at,
         n.desired_config_version, n.applied_config_version
  FROM nodes n
  WHERE n.desired_config_version IS NOT NULL
    AND n.applied_config_version IS DISTINCT FROM n.desired_config_version;
