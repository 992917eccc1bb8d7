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
