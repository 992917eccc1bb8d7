-- A desired write made with `override_hold` opens intents that go to a node a recovery claim holds (SPEC I13);
-- every other intent there waits for the claim to be retired (I12).
ALTER TABLE intents ADD COLUMN override_hold boolean NOT NULL DEFAULT false;

-- A split placement's job_start carries the node's index and count in the placement and its peers' data
-- addresses, as they were when the attempt was queued (SPEC E3).
ALTER TABLE attempts ADD COLUMN placement jsonb;
