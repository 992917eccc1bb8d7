-- A node reporting an applied configuration version the log does not know (a Hub restored from a backup):
-- the node's configuration generation when it first did, and when that report was recorded. A configuration
-- intent of that generation or below, or a batch of a rollout created before, is not sent to it
-- (docs/decisions.md, "A node ahead of a restored log"). Set and cleared by the node's reports. Column
-- additions: the Hub's and the reader's grants on the table cover them.
ALTER TABLE nodes
  ADD COLUMN config_ahead_of bigint,
  ADD COLUMN config_ahead_at timestamptz;
