-- Rollouts' health gates (SPEC L3-L6).

-- A rollout's health gate as created (null: none), and the gate of its current batch: soaking until a time,
-- passed, or failed with its evidence (which target, which stream, why, since when).
ALTER TABLE rollouts
  ADD COLUMN health_gate    jsonb,
  ADD COLUMN gate_batch     integer,
  ADD COLUMN gate_state     text CHECK (gate_state IN ('soaking', 'passed', 'failed')),
  ADD COLUMN gate_since     timestamptz,
  ADD COLUMN gate_until     timestamptz,
  ADD COLUMN gate_evidence  jsonb;
