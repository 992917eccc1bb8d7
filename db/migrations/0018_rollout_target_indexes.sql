-- Every pass of a rollout reads its current and next batches, and settling recovery reads the targets
-- with one: by these indexes, not by all of a large rollout's targets through its primary key.
-- The batch leads its index: led by the rollout, it would also serve an update of one target by its key, and
-- the planner took it for one whenever the rollout was newer than the table's statistics, reading every
-- target of the rollout to change one.
CREATE INDEX rollout_targets_by_batch ON rollout_targets (batch, rollout_id);
CREATE INDEX rollout_targets_recovering ON rollout_targets (rollout_id) WHERE recovery_phase IS NOT NULL;
