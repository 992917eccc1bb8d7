-- The log, partitioned and lean: `events` becomes PARTITION BY RANGE (position), one partition per segment,
-- so old history can leave whole (a partition is detached and dropped once archived, never a row DELETE).
-- A row holds what cannot be derived: no prev_hash (the previous event's hash in the stream), the hash as
-- 32 bytes, metadata without the keys equal to their default, a canonical UUID correlation id in a column of
-- its own. The logical event (what the API, the projections and the hash see) is unchanged, and every
-- existing event moves into the new table in this migration, in one transaction (its time grows with the log).

-- Metadata as stored. Agents are the fleet's high-volume actors, so their values are the defaults.
CREATE FUNCTION metadata_defaults() RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT '{"role": "agent", "source": "agent", "causation_id": null}'::jsonb
$$;

-- A correlation id stored as uuid: only a canonical (lower-case) UUID, whose text the uuid gives back exactly.
CREATE FUNCTION correlation_uuid(correlation_id text) RETURNS uuid LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN correlation_id ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN correlation_id::uuid END
$$;

-- The stored form of an event's metadata (write side): keys equal to their default are left out, and the
-- correlation id when the correlation_id column holds it. A default key, or the correlation id, that the
-- metadata does not have at all is listed under "~absent" (as a text[] literal), so that reading adds nothing
-- the event never had.
CREATE FUNCTION stored_metadata(metadata jsonb) RETURNS jsonb LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT metadata - array_remove(ARRAY[
        CASE WHEN metadata -> 'role' = metadata_defaults() -> 'role' THEN 'role' END,
        CASE WHEN metadata -> 'source' = metadata_defaults() -> 'source' THEN 'source' END,
        CASE WHEN metadata -> 'causation_id' = metadata_defaults() -> 'causation_id' THEN 'causation_id' END,
        CASE WHEN correlation_uuid(metadata ->> 'correlation_id') IS NOT NULL THEN 'correlation_id' END], NULL)
    || CASE WHEN metadata ?& '{role,source,causation_id,correlation_id}'::text[] THEN '{}'::jsonb
       ELSE jsonb_build_object('~absent', array_remove(ARRAY[
        CASE WHEN NOT metadata ? 'role' THEN 'role' END,
        CASE WHEN NOT metadata ? 'source' THEN 'source' END,
        CASE WHEN NOT metadata ? 'causation_id' THEN 'causation_id' END,
        CASE WHEN NOT metadata ? 'correlation_id' THEN 'correlation_id' END], NULL)::text) END
$$;

-- The logical metadata of a stored event (read side): the defaults (those of metadata_defaults()) and the
-- correlation id, then what is stored over them: one object built and one concatenation a row, what every
-- read of the log pays. jsonb keeps one canonical text per value, so the round trip is exact and hashes of
-- older events stay valid.
CREATE FUNCTION event_metadata(stored jsonb, correlation_id uuid) RETURNS jsonb LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN stored ? '~absent'
      THEN (jsonb_build_object('role', 'agent', 'source', 'agent', 'causation_id', NULL, 'correlation_id', correlation_id)
            - (stored ->> '~absent')::text[]) || (stored - '~absent')
      ELSE jsonb_build_object('role', 'agent', 'source', 'agent', 'causation_id', NULL, 'correlation_id', correlation_id) || stored END
$$;
-- Both are STABLE (jsonb_build_object is) and hold no subquery: PostgreSQL then inlines them into the
-- statements that call them instead of calling a function per row.

-- The chain link: sha256 over the previous event's hash (as hex) and every logical field of the event, the
-- same formula as before (a hash is the bytes of the old hex text). Times enter as epoch microseconds and jsonb
-- as its canonical text, so no session setting changes a hash. STABLE (what its body is) rather than
-- IMMUTABLE so that PostgreSQL inlines it into the calling statement instead of planning its body at every call.
DROP FUNCTION event_hash(text, text, bigint, uuid, text, integer, jsonb, jsonb, timestamptz);
CREATE FUNCTION event_hash(
  prev_hash bytea, stream_id text, stream_version bigint, event_id uuid, type text,
  schema_version integer, data jsonb, metadata jsonb, recorded_at timestamptz
) RETURNS bytea LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT sha256(convert_to(concat_ws(E'\x1f',
    coalesce(encode(prev_hash, 'hex'), ''), stream_id, stream_version::text, event_id::text, type,
    schema_version::text, data::text, metadata::text,
    (extract(epoch FROM recorded_at) * 1000000)::bigint::text), 'UTF8'))
$$;

-- The log as it was, renamed out of the way; its rows move below and it is dropped. The sequence stays.
ALTER SEQUENCE events_position_seq OWNED BY NONE;
ALTER TABLE events RENAME TO events_0009;
ALTER TABLE events_0009 RENAME CONSTRAINT events_pkey TO events_0009_pkey;
ALTER TABLE events_0009 RENAME CONSTRAINT events_stream_version_unique TO events_0009_stream_version_unique;
ALTER TABLE events_0009 RENAME CONSTRAINT events_event_id_unique TO events_0009_event_id_unique;
DROP INDEX events_tx_position, events_type_position, events_correlation, events_recorded_at, events_actor;

-- Fixed-width columns first, so that no row pays alignment padding.
CREATE TABLE events (
  position        bigint      NOT NULL DEFAULT nextval('events_position_seq'),
  -- Readers page by (tx_id, position) below the oldest running transaction, so a slow transaction
  -- that took a smaller position but commits later is never skipped.
  tx_id           xid8        NOT NULL DEFAULT pg_current_xact_id(),
  stream_version  bigint      NOT NULL CONSTRAINT events_stream_version_check CHECK (stream_version >= 1),
  recorded_at     timestamptz NOT NULL,
  event_id        uuid        NOT NULL,
  correlation_id  uuid,
  schema_version  smallint    NOT NULL DEFAULT 1,
  stream_id       text        NOT NULL CONSTRAINT events_stream_id_check CHECK (length(stream_id) BETWEEN 1 AND 200),
  type            text        NOT NULL,
  data            jsonb       NOT NULL,
  metadata        jsonb       NOT NULL CONSTRAINT events_metadata_check CHECK (jsonb_typeof(metadata) = 'object'),
  hash            bytea       NOT NULL,
  -- Positions only grow: index pages are filled whole, never split in the middle.
  PRIMARY KEY (position) WITH (fillfactor = 100)
) PARTITION BY RANGE (position);
ALTER SEQUENCE events_position_seq OWNED BY events.position;

-- History is never edited: the trigger refuses it for every role, the grants for everyone but the owner. A
-- statement trigger, so that even an edit matching no row is refused. A statement on events fires the triggers
-- of events, one on a partition those of the partition: add_events_partition gives each partition the same.
-- Dropping a whole partition is how archived history leaves.
CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON events
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_event_change();
REVOKE UPDATE, DELETE, TRUNCATE ON events FROM PUBLIC;
GRANT SELECT ON events TO fleetplane_reader;

-- A segment of the log: the partition for positions [p_from, p_to), named by its first position, with the
-- append-only trigger and the reader's grant. Created apart and then attached, which takes only a SHARE UPDATE
-- EXCLUSIVE lock on events: appends and reads go on.
CREATE FUNCTION add_events_partition(p_from bigint, p_to bigint) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  v_name text := format('events_%s', lpad(p_from::text, 19, '0'));
BEGIN
  EXECUTE format('CREATE TABLE %I (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)', v_name);
  EXECUTE format('CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION refuse_event_change()', v_name);
  EXECUTE format('REVOKE UPDATE, DELETE, TRUNCATE ON %I FROM PUBLIC', v_name);
  EXECUTE format('GRANT SELECT ON %I TO fleetplane_reader', v_name);
  EXECUTE format('ALTER TABLE events ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)', v_name, p_from, p_to);
  RETURN v_name;
END $$;

-- The existing log in segments of at most 50 million events, then two empty segments of 100,000 ahead of
-- the sequence (the Hub sizes the next ones from the rate it observes).
DO $$
DECLARE
  v_last bigint := (SELECT coalesce(max(position), 0) FROM events_0009);
  v_from bigint := 1;
BEGIN
  WHILE v_from <= v_last LOOP
    PERFORM add_events_partition(v_from, least(v_from + 50000000, v_last + 1));
    v_from := least(v_from + 50000000, v_last + 1);
  END LOOP;
  PERFORM add_events_partition(v_from, v_from + 100000);
  PERFORM add_events_partition(v_from + 100000, v_from + 200000);
END $$;

-- A hash that is not 64 hex digits (only a hand-written row can have one) keeps its bytes: verify reports it.
INSERT INTO events (position, tx_id, stream_version, recorded_at, event_id, correlation_id, schema_version,
                    stream_id, type, data, metadata, hash)
SELECT position, tx_id, stream_version, recorded_at, event_id, correlation_uuid(metadata ->> 'correlation_id'), schema_version,
       stream_id, type, data, stored_metadata(metadata),
       CASE WHEN hash ~ '^[0-9a-f]{64}$' THEN decode(hash, 'hex') ELSE convert_to(hash, 'UTF8') END
FROM events_0009 ORDER BY position;

-- Each stream's head: its last version and hash. Appenders lock and move it (unique (stream_id,
-- stream_version) and unique event_id cannot be enforced across partitions: a unique index must hold the
-- partition key). A head at version 0 is a stream being created. Kept through archiving: it is how a stream's
-- chain continues when its first events have left the hot log.
CREATE TABLE stream_heads (
  stream_id      text   PRIMARY KEY,
  stream_version bigint NOT NULL CHECK (stream_version >= 0),
  hash           bytea
) WITH (fillfactor = 70);  -- room for the head's next version on its page (a HOT update)
INSERT INTO stream_heads (stream_id, stream_version, hash)
SELECT DISTINCT ON (stream_id) stream_id, stream_version, hash FROM events ORDER BY stream_id, stream_version DESC;
GRANT SELECT ON stream_heads TO fleetplane_reader;

DROP TABLE events_0009;

-- Indexes, built once the rows are in. Declared on events, so every partition has them.
-- Readers page by (tx_id, position): a transaction's rows are few, ordered after the index.
CREATE INDEX events_tx ON events (tx_id) WITH (fillfactor = 100);
-- A stream's events (sorted by version after the index): many rows share a key, which b-tree deduplication
-- stores once with a list of row pointers.
CREATE INDEX events_stream ON events (stream_id);
-- Who did what, reports included (few actors: deduplicated too).
CREATE INDEX events_actor ON events ((metadata ->> 'actor'));
-- Time ranges and correlation ids over all rows: correlation ids the Hub makes are time-ordered (UUID
-- version 7) like the log itself, and a few others are kept apart by the multi-value summaries.
CREATE INDEX events_recorded_at ON events USING brin (recorded_at);
CREATE INDEX events_correlation ON events USING brin (correlation_id uuid_minmax_multi_ops);
-- Correlation ids that are not a canonical UUID stay in metadata: only those rows are indexed.
CREATE INDEX events_correlation_text ON events ((metadata ->> 'correlation_id')) WHERE (metadata ->> 'correlation_id') IS NOT NULL;
-- Operator queries, and ids a caller can give (a replay of a known event): reports are found by their
-- node's stream or by position, and their ids are always made by the store.
CREATE INDEX events_event_id ON events (event_id) WHERE type <> 'NodeReported';
CREATE INDEX events_type ON events (type, position) WHERE type <> 'NodeReported';

-- The events already stored under a batch's ids. Any event but a report is found by its id (events_event_id);
-- a report, whose id only a caller replaying a stored one can give (the store makes the others), on its own stream.
CREATE FUNCTION known_events(p_stream_id text, p_events jsonb)
RETURNS TABLE (event_id uuid, stream_id text, stream_version bigint, "position" bigint)
LANGUAGE sql STABLE AS $$
  SELECT k.event_id, k.stream_id, k.stream_version, k.position
  FROM jsonb_array_elements(p_events) x
  CROSS JOIN LATERAL (
    SELECT e.event_id, e.stream_id, e.stream_version, e.position FROM events e
      WHERE e.event_id = (x->>'event_id')::uuid AND e.type <> 'NodeReported'
    UNION ALL
    SELECT e.event_id, e.stream_id, e.stream_version, e.position FROM events e
      WHERE x->>'type' = 'NodeReported' AND e.stream_id = p_stream_id AND e.type = 'NodeReported' AND e.event_id = (x->>'event_id')::uuid
  ) k
$$;

-- Why a batch could not be appended as asked: its ids are all known on this stream (a replay: the
-- original places are returned), some are known and some not or known elsewhere (a conflict), or none is
-- known (the stream is simply not at the expected version).
CREATE OR REPLACE FUNCTION append_refusal(p_stream_id text, p_events jsonb, p_version bigint)
RETURNS TABLE (outcome text, stream_version bigint, "position" bigint, event_id uuid)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
  v_total integer := jsonb_array_length(p_events);
  v_known integer;
  v_known_here integer;
BEGIN
  SELECT count(*), count(*) FILTER (WHERE k.stream_id = p_stream_id) INTO v_known, v_known_here FROM known_events(p_stream_id, p_events) k;
  IF v_known_here = v_total THEN
    RETURN QUERY SELECT 'duplicate'::text, k.stream_version, k.position, k.event_id FROM known_events(p_stream_id, p_events) k ORDER BY k.position;
  ELSIF v_known > 0 THEN
    RETURN QUERY SELECT 'event_id_conflict'::text, NULL::bigint, NULL::bigint, NULL::uuid;
  ELSE
    RETURN QUERY SELECT 'wrong_expected_version'::text, p_version, NULL::bigint, NULL::uuid;
  END IF;
END $$;

-- Appends a batch to one stream. Outcomes, one row per event:
--   appended                 the event is new and stored at (stream_version, position)
--   duplicate                every event id was already stored: nothing written, original positions returned
--   wrong_expected_version   the stream is not at p_expected_version (stream_version = actual): nothing written
--   event_id_conflict        some ids are known and some are not, or known on another stream, or given twice:
--                            nothing written
-- p_expected_version NULL appends at whatever version the stream has; 0 means "the stream must not exist".
-- The stream's head is locked first, so appenders of one stream take turns and each sees the last one's
-- events. Ids are looked for only when the caller gave them ("given": true): an id the store made is new.
CREATE OR REPLACE FUNCTION append_events(p_stream_id text, p_expected_version bigint, p_events jsonb)
RETURNS TABLE (outcome text, stream_version bigint, "position" bigint, event_id uuid)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_version bigint;
  v_hash bytea;
  v_hashes bytea[] := '{}';
  v_created boolean := false;
  v_known boolean := false;
  e jsonb;
BEGIN
  SELECT h.stream_version, h.hash INTO v_version, v_hash FROM stream_heads h WHERE h.stream_id = p_stream_id FOR UPDATE;
  IF NOT FOUND THEN
    IF coalesce(p_expected_version, 0) <> 0 THEN
      RETURN QUERY SELECT * FROM append_refusal(p_stream_id, p_events, 0);
      RETURN;
    END IF;
    -- A first append of another transaction may be creating it: ON CONFLICT waits for that one to end, and
    -- then this one locks what that one made.
    INSERT INTO stream_heads AS h (stream_id, stream_version) VALUES (p_stream_id, 0) ON CONFLICT (stream_id) DO NOTHING
      RETURNING h.stream_version, true INTO v_version, v_created;
    IF v_created IS NULL THEN
      SELECT h.stream_version, h.hash INTO v_version, v_hash FROM stream_heads h WHERE h.stream_id = p_stream_id FOR UPDATE;
    END IF;
  END IF;

  IF p_events @> '[{"given": true}]' THEN
    -- The same id appended to two streams at once: one waits for the other, then finds its event.
    PERFORM pg_advisory_xact_lock(7261010, hashtext(x->>'event_id'))
      FROM jsonb_array_elements(p_events) x WHERE (x->>'given')::boolean ORDER BY x->>'event_id';
    IF (SELECT count(DISTINCT x->>'event_id') <> count(*) FROM jsonb_array_elements(p_events) x) THEN
      IF v_created THEN DELETE FROM stream_heads h WHERE h.stream_id = p_stream_id; END IF;
      RETURN QUERY SELECT 'event_id_conflict'::text, NULL::bigint, NULL::bigint, NULL::uuid;
      RETURN;
    END IF;
    v_known := EXISTS (SELECT FROM known_events(p_stream_id, p_events));
  END IF;
  IF v_known OR (p_expected_version IS NOT NULL AND p_expected_version <> v_version) THEN
    IF v_created THEN DELETE FROM stream_heads h WHERE h.stream_id = p_stream_id; END IF;
    RETURN QUERY SELECT * FROM append_refusal(p_stream_id, p_events, v_version);
    RETURN;
  END IF;

  -- Each event chains on the one before it; then all of them are one INSERT (one routing to the partition).
  FOR e IN SELECT x FROM jsonb_array_elements(p_events) x LOOP
    v_hash := event_hash(v_hash, p_stream_id, v_version + cardinality(v_hashes) + 1, (e->>'event_id')::uuid, e->>'type',
      (e->>'schema_version')::integer, e->'data', e->'metadata', (e->>'recorded_at')::timestamptz);
    v_hashes := v_hashes || v_hash;
  END LOOP;
  UPDATE stream_heads h SET stream_version = v_version + cardinality(v_hashes), hash = v_hash WHERE h.stream_id = p_stream_id;
  RETURN QUERY
    WITH appended AS (
      INSERT INTO events AS ev
          (stream_id, stream_version, event_id, type, schema_version, data, metadata, correlation_id, recorded_at, hash)
        SELECT p_stream_id, v_version + x.n, (x.e->>'event_id')::uuid, x.e->>'type', (x.e->>'schema_version')::smallint, x.e->'data',
          stored_metadata(x.e->'metadata'), correlation_uuid(x.e->'metadata'->>'correlation_id'), (x.e->>'recorded_at')::timestamptz, v_hashes[x.n]
        FROM jsonb_array_elements(p_events) WITH ORDINALITY AS x(e, n) ORDER BY x.n
        RETURNING ev.stream_version, ev.position, ev.event_id)
    SELECT 'appended'::text, a.stream_version, a.position, a.event_id FROM appended a ORDER BY a.stream_version;
END $$;

-- Appends new events, one per stream, each at whatever version its stream has (a batch of reports), in one
-- statement: each moves its stream's head one version on and chains on its hash. The head's row lock
-- serializes appenders of a stream: one that waited re-reads the head (READ COMMITTED) and chains on the event
-- before it. A stream without a head gets one at version 1; if another transaction created it meanwhile, the
-- INSERT fails on stream_heads_pkey and the caller runs again. A function, so that the statement is planned
-- once per session and not at every call. p_events: [{i, event_id, stream_id, type, schema_version, data,
-- metadata, recorded_at}], distinct streams; answers one row per event, by i.
CREATE FUNCTION append_new_events(p_events jsonb)
RETURNS TABLE (request integer, outcome text, stream_version bigint, "position" bigint, event_id uuid)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH x AS MATERIALIZED (
      SELECT * FROM jsonb_to_recordset(p_events)
        AS r(i int, event_id uuid, stream_id text, type text, schema_version integer, data jsonb, metadata jsonb, recorded_at timestamptz)),
    moved AS (
      UPDATE stream_heads h SET stream_version = h.stream_version + 1,
        hash = event_hash(h.hash, x.stream_id, h.stream_version + 1, x.event_id, x.type, x.schema_version, x.data, x.metadata, x.recorded_at)
      -- The heads are probed by key, whatever the planner guesses of the payload's size.
      FROM x WHERE h.stream_id = x.stream_id AND h.stream_id = any(array(SELECT x.stream_id FROM x))
      RETURNING x.i, h.stream_version, h.hash),
    created AS (
      INSERT INTO stream_heads AS h (stream_id, stream_version, hash)
      SELECT x.stream_id, 1, event_hash(NULL, x.stream_id, 1, x.event_id, x.type, x.schema_version, x.data, x.metadata, x.recorded_at)
      FROM x WHERE NOT EXISTS (SELECT FROM moved m WHERE m.i = x.i)
      RETURNING h.stream_id, h.stream_version, h.hash),
    placed AS (
      SELECT m.i, m.stream_version, m.hash FROM moved m
      UNION ALL SELECT x.i, c.stream_version, c.hash FROM created c JOIN x ON x.stream_id = c.stream_id),
    appended AS (
      INSERT INTO events AS ev (stream_id, stream_version, event_id, type, schema_version, data, metadata, correlation_id, recorded_at, hash)
      SELECT x.stream_id, p.stream_version, x.event_id, x.type, x.schema_version, x.data,
        stored_metadata(x.metadata), correlation_uuid(x.metadata->>'correlation_id'), x.recorded_at, p.hash
      FROM placed p JOIN x ON x.i = p.i ORDER BY x.i
      RETURNING ev.stream_version, ev.position, ev.event_id)
    SELECT x.i, 'appended'::text, a.stream_version, a.position, a.event_id
    FROM appended a JOIN x ON x.event_id = a.event_id ORDER BY x.i;
END $$;

-- The log as the API shows it, for SQL users and auditors: logical metadata, the hash as hex. A view over
-- events alone, so every filter reaches the indexes.
CREATE VIEW event_history AS
  SELECT position, tx_id, stream_id, stream_version, event_id, type, schema_version::integer AS schema_version, data,
         event_metadata(metadata, correlation_id) AS metadata, recorded_at, encode(hash, 'hex') AS hash
  FROM events;
-- One stream's chain: each event with its predecessor's hash. A window over the stream: filter by stream_id
-- (PostgreSQL applies that before the window; any other filter would compute every stream's chain first).
CREATE VIEW event_chain AS
  SELECT h.*, lag(h.hash) OVER (PARTITION BY h.stream_id ORDER BY h.stream_version) AS prev_hash
  FROM event_history h;
GRANT SELECT ON event_history, event_chain TO fleetplane_reader;
