-- Recovery claims: restores of the recovery points a rollout's applies captured, and what a failed
-- restore left behind on its target (SPEC I).

-- A restore is a configuration intent that puts a recovery point back.
ALTER TABLE intents ADD COLUMN recovery_ref text;

-- The recovery points each node last reported: [{"ref", "config_version"}].
ALTER TABLE nodes ADD COLUMN recovery_points jsonb NOT NULL DEFAULT '[]';

-- Each target's recovery: its phase, and the claim a failed restore left, with its own class and time,
-- apart from the shared failure fields (a later deploy failure is recorded beside a claim, never over it).
ALTER TABLE rollout_targets
  ADD COLUMN recovery_phase text CHECK (recovery_phase IN ('restoring', 'complete', 'failed')),
  ADD COLUMN recovery_intent_id text,
  ADD COLUMN recovery_ref text,
  ADD COLUMN recovery_claim text CHECK (recovery_claim IN ('pre_mutation', 'post_mutation', 'unknown')),
  ADD COLUMN recovery_claim_code text,
  ADD COLUMN recovery_claim_at timestamptz,
  -- The node's configuration generation the claim is about: only evidence from it (a restore later
  -- proven by a report) or from a newer generation can retire the claim.
  ADD COLUMN recovery_claim_generation bigint;

-- Targets that hold their rollout (I5): a restore in flight, or a claim that the restore may have moved
-- the target. Cancelled targets do not count (I6). The rollout's recovery state is derived from these rows.
CREATE VIEW recovery_holds AS
  SELECT t.rollout_id, t.node_id, t.batch, t.recovery_phase, t.recovery_claim, t.recovery_claim_code, t.recovery_claim_at,
         CASE WHEN t.recovery_phase = 'restoring' THEN 'restoring' ELSE 'recovery_required' END AS holds_as
  FROM rollout_targets t
  WHERE t.state <> 'cancelled'
    AND (t.recovery_phase = 'restoring' OR t.recovery_claim IN ('post_mutation', 'unknown'));

GRANT SELECT ON recovery_holds TO fleetplane_reader;
