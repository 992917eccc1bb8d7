-- The derived tables keep every generation and every rollout: reads that run per stream, node, rollout or
-- page get indexes of what they ask for, so that a year of history does not slow them.

-- A desired write loads its stream's live intents and queued attempts, and the stream's view shows its
-- current generation's intents: by these indexes, not by every generation the stream ever had (superseded
-- intents stay in the table) nor by every live intent of the fleet. The stream's index leads with the
-- generation after the stream: nothing looks intents up by stream and node through it (a node's lifecycle
-- intents have intents_lifecycle_by_node, one generation's the unique key).
DROP INDEX intents_by_stream;
CREATE INDEX intents_by_stream ON intents (stream_id, generation DESC);
CREATE INDEX intents_live_by_stream ON intents (stream_id)
  WHERE state IN ('pending', 'converging', 'retrying', 'ambiguous', 'blocked');
CREATE INDEX attempts_queued_by_stream ON attempts (stream_id) WHERE state = 'queued';

-- Every pass and lease of a node reads the recovery claims that hold it: by this index, not through every
-- rollout the node was ever a target of. Few targets hold a claim; only those are in it.
CREATE INDEX rollout_targets_holding ON rollout_targets (node_id)
  WHERE recovery_claim IN ('post_mutation', 'unknown') AND state <> 'cancelled';

-- Settling a rollout's recovery reads each recovering node's newest configuration intent, and an approval
-- gate the nodes that applied a version before: by these, not by every intent of the table.
CREATE INDEX intents_configuration_by_node ON intents (node_id, generation DESC) WHERE kind = 'configuration';
CREATE INDEX intents_applied ON intents (config_version, node_id) WHERE kind = 'configuration' AND state = 'converged';

-- GET /intents pages newest first: from the head of this index, not by sorting every intent ever kept.
CREATE INDEX intents_newest ON intents (created_at, intent_id);
