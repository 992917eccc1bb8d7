-- The archive: segments of the log exported to files (docs/archive-format.md), each recorded by a
-- LogSegmentArchived event on the stream `log:archive` before its partition is dropped.

-- Where every stream's chain stands at the end of the archived history: the head of each stream as of the
-- newest archived segment that holds one of its events. The hot log's events of a stream chain on from here
-- (a stream never archived starts from nothing), so verifying the hot log needs no archived file.
CREATE TABLE archived_heads (
  stream_id      text   PRIMARY KEY,
  stream_version bigint NOT NULL,
  hash           bytea  NOT NULL,
  -- The position of that head event, in the archive.
  position       bigint NOT NULL
);

-- The projections' tables as of every event up to `position` (an archived segment's last), derived from the
-- log: a rebuild or a verification starts from the newest and replays the hot events after it. `content` is
-- the checkpoint file as the archive holds it (docs/archive-format.md), `sha256` its digest.
CREATE TABLE projection_checkpoints (
  position   bigint      PRIMARY KEY,
  taken_at   timestamptz NOT NULL,
  content    bytea       NOT NULL,
  sha256     text        NOT NULL
);

GRANT SELECT ON archived_heads, projection_checkpoints TO fleetplane_reader;
