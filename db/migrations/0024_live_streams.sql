-- A removed stream keeps its row for good (a PUT after the removal goes on at its next generation), so a fleet
-- that deletes streams as it goes (a job per release) keeps more removed ones than live ones as years pass.
-- GET /streams pages through the live ones and the drift view reads them: by this index, not through every
-- stream the fleet ever removed.
CREATE INDEX streams_live ON streams (stream_id) WHERE removed_at IS NULL;
