-- GET /rollouts shows how many of each rollout's targets are in each state. Counted from rollout_targets on
-- every read, a page of rollouts to 10,000 nodes each read a million rows; the rollouts projection keeps the
-- counts on the rollout's row instead, moved in the statement that moves its targets. Column additions: the
-- Hub's and the reader's grants on the table cover them.
ALTER TABLE rollouts
  ADD COLUMN targets_waiting   integer NOT NULL DEFAULT 0,
  ADD COLUMN targets_applying  integer NOT NULL DEFAULT 0,
  ADD COLUMN targets_converged integer NOT NULL DEFAULT 0,
  ADD COLUMN targets_failed    integer NOT NULL DEFAULT 0,
  ADD COLUMN targets_cancelled integer NOT NULL DEFAULT 0;

UPDATE rollouts r SET
  targets_waiting = c.waiting,
  targets_applying = c.applying,
  targets_converged = c.converged,
  targets_failed = c.failed,
  targets_cancelled = c.cancelled
FROM (
  SELECT rollout_id,
    count(*) FILTER (WHERE state = 'waiting') AS waiting,
    count(*) FILTER (WHERE state = 'applying') AS applying,
    count(*) FILTER (WHERE state = 'converged') AS converged,
    count(*) FILTER (WHERE state = 'failed') AS failed,
    count(*) FILTER (WHERE state = 'cancelled') AS cancelled
  FROM rollout_targets GROUP BY rollout_id
) c
WHERE r.rollout_id = c.rollout_id;
