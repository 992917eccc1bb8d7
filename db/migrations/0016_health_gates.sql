-- Rollouts' health gates and the health executor (SPEC L3-L9).

-- An approval request pins the health gate of the rollout it proposes.
ALTER TABLE config_approvals ADD COLUMN health_gate jsonb;

-- A rollout's health gate as created (null: none), and the gate of its current batch: soaking until a time,
-- passed, or failed with its evidence (which target, which stream, why, since when) and what the health
-- executor did about it (SPEC L7-L9).
ALTER TABLE rollouts
  ADD COLUMN health_gate    jsonb,
  ADD COLUMN gate_batch     integer,
  ADD COLUMN gate_state     text CHECK (gate_state IN ('soaking', 'passed', 'failed')),
  ADD COLUMN gate_since     timestamptz,
  ADD COLUMN gate_until     timestamptz,
  ADD COLUMN gate_evidence  jsonb,
  ADD COLUMN gate_action    text CHECK (gate_action IN ('opened', 'skipped', 'approval_required', 'failed'));
