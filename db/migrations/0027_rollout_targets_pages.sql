-- GET /rollouts/{id}/targets pages a rollout's targets in batch then node order, of one state if asked: from
-- these indexes, limit + 1 rows a page, not by reading and sorting every target of a rollout of 10,000. The
-- state's index lets a page of a rollout's few failed targets skip the rest.
-- Partial on `batch >= 0`, which every target meets and the page's query says: a statement that does not say
-- it cannot take them. Led by the rollout, they would otherwise serve an update of one target by its key as
-- well as the primary key does whenever the rollout is newer than the table's statistics, and the planner
-- took them for it, reading every target of the rollout to change one (as 0018 found).
CREATE INDEX rollout_targets_in_order ON rollout_targets (rollout_id, batch, node_id) WHERE batch >= 0;
CREATE INDEX rollout_targets_in_order_by_state ON rollout_targets (rollout_id, state, batch, node_id) WHERE batch >= 0;
