-- Every pass of a rollout reads its current and next batches, and settling recovery reads the targets
-- with one: by these indexes, not by all of a large rollout's targets through its primary key.
CREATE INDEX rollout_targets_by_batch ON rollout_targets (rollout_id, batch);
CREATE INDEX rollout_targets_recovering ON rollout_targets (rollout_id) WHERE recovery_phase IS NOT NULL;
