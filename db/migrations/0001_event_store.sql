-- The event log: every change to Fleetplane is an event first. Append-only and hash-chained per stream.

CREATE SEQUENCE events_position_seq;

CREATE TABLE events (
  position        bigint      PRIMARY KEY DEFAULT nextval('events_position_seq'),
  stream_id       text        NOT NULL CHECK (length(stream_id) BETWEEN 1 AND 200),
  stream_version  bigint      NOT NULL CHECK (stream_version >= 1),
  event_id        uuid        NOT NULL,
  type            text        NOT NULL,
  schema_version  integer     NOT NULL DEFAULT 1,
  data            jsonb       NOT NULL,
  metadata        jsonb       NOT NULL,
  recorded_at     timestamptz NOT NULL,
  -- Readers page by (tx_id, position) below the oldest running transaction, so a slow transaction
  -- that took a smaller position but commits later is never skipped.
  tx_id           xid8        NOT NULL DEFAULT pg_current_xact_id(),
  prev_hash       text,
  hash            text        NOT NULL,
  CONSTRAINT events_stream_version_unique UNIQUE (stream_id, stream_version),
  CONSTRAINT events_event_id_unique UNIQUE (event_id)
);
ALTER SEQUENCE events_position_seq OWNED BY events.position;

CREATE INDEX events_tx_position ON events (tx_id, position);
CREATE INDEX events_type_position ON events (type, position);
CREATE INDEX events_correlation ON events ((metadata->>'correlation_id'));
CREATE INDEX events_recorded_at ON events (recorded_at);

-- The chain link: sha256 over the previous hash and every stored field of the event.
-- Times enter as epoch microseconds and jsonb as its canonical text, so no session setting changes a hash.
-- Declared STABLE (what its body is) rather than IMMUTABLE so that PostgreSQL inlines it into the calling
-- statement instead of planning its body again at every call.
CREATE FUNCTION event_hash(
  prev_hash text, stream_id text, stream_version bigint, event_id uuid, type text,
  schema_version integer, data jsonb, metadata jsonb, recorded_at timestamptz
) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT encode(sha256(convert_to(concat_ws(E'\x1f',
    coalesce(prev_hash, ''), stream_id, stream_version::text, event_id::text, type,
    schema_version::text, data::text, metadata::text,
    (extract(epoch FROM recorded_at) * 1000000)::bigint::text), 'UTF8')), 'hex')
$$;

-- Why a batch could not be appended as asked: its ids are all known on this stream (a replay: the
-- original places are returned), some are known and some not or known elsewhere (a conflict), or none is
-- known (the stream is simply not at the expected version).
CREATE FUNCTION append_refusal(p_stream_id text, p_events jsonb, p_version bigint)
RETURNS TABLE (outcome text, stream_version bigint, "position" bigint, event_id uuid)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
  v_total integer;
  v_known integer;
  v_known_here integer;
BEGIN
  SELECT count(*), count(ev.event_id), count(ev.event_id) FILTER (WHERE ev.stream_id = p_stream_id)
    INTO v_total, v_known, v_known_here
    FROM jsonb_array_elements(p_events) x LEFT JOIN events ev ON ev.event_id = (x->>'event_id')::uuid;
  IF v_known_here = v_total THEN
    RETURN QUERY SELECT 'duplicate'::text, ev.stream_version, ev.position, ev.event_id
      FROM events ev WHERE ev.event_id IN (SELECT (x->>'event_id')::uuid FROM jsonb_array_elements(p_events) x)
      ORDER BY ev.position;
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
--   event_id_conflict        some ids are known and some are not, or known on another stream: nothing written
-- p_expected_version NULL appends at whatever version the stream has; 0 means "the stream must not exist".
-- The common case costs one index probe and the inserts; known ids are looked for only when an insert
-- meets one or the version does not match. A batch whose first id is new and a later one known raises
-- unique_violation on events_event_id_unique: the caller's transaction is aborted and nothing is kept.
CREATE FUNCTION append_events(p_stream_id text, p_expected_version bigint, p_events jsonb)
RETURNS TABLE (outcome text, stream_version bigint, "position" bigint, event_id uuid)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_version bigint;
  v_hash text;
  v_new_hash text;
  v_id uuid;
  v_pos bigint;
  v_first boolean := true;
  e jsonb;
BEGIN
  SELECT ev.stream_version, ev.hash INTO v_version, v_hash
    FROM events ev WHERE ev.stream_id = p_stream_id ORDER BY ev.stream_version DESC LIMIT 1;
  v_version := coalesce(v_version, 0);
  IF p_expected_version IS NOT NULL AND p_expected_version <> v_version THEN
    RETURN QUERY SELECT * FROM append_refusal(p_stream_id, p_events, v_version);
    RETURN;
  END IF;

  FOR e IN SELECT x FROM jsonb_array_elements(p_events) x LOOP
    v_version := v_version + 1;
    v_id := (e->>'event_id')::uuid;
    v_new_hash := event_hash(v_hash, p_stream_id, v_version, v_id, e->>'type',
      (e->>'schema_version')::integer, e->'data', e->'metadata', (e->>'recorded_at')::timestamptz);
    INSERT INTO events AS ev
        (stream_id, stream_version, event_id, type, schema_version, data, metadata, recorded_at, prev_hash, hash)
      VALUES (p_stream_id, v_version, v_id, e->>'type', (e->>'schema_version')::integer,
        e->'data', e->'metadata', (e->>'recorded_at')::timestamptz, v_hash, v_new_hash)
      ON CONFLICT (event_id) DO NOTHING
      RETURNING ev.position INTO v_pos;
    IF v_pos IS NULL THEN
      IF v_first THEN
        RETURN QUERY SELECT * FROM append_refusal(p_stream_id, p_events, v_version - 1);
        RETURN;
      END IF;
      RAISE EXCEPTION 'event % is already stored: a batch must be all new or all known', v_id
        USING ERRCODE = 'unique_violation', CONSTRAINT = 'events_event_id_unique';
    END IF;
    outcome := 'appended';
    stream_version := v_version;
    "position" := v_pos;
    event_id := v_id;
    RETURN NEXT;
    v_first := false;
    v_hash := v_new_hash;
  END LOOP;
END $$;

-- History is never edited: the trigger refuses it for every role, the grants below for everyone but the owner.
CREATE FUNCTION refuse_event_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'events are append-only: % refused', TG_OP USING ERRCODE = 'restrict_violation';
END $$;

CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
  FOR EACH ROW EXECUTE FUNCTION refuse_event_change();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_event_change();

REVOKE UPDATE, DELETE, TRUNCATE ON events FROM PUBLIC;

-- A read-only role for SREs and auditors querying events and projections in plain SQL.
DO $$ BEGIN
  CREATE ROLE fleetplane_reader NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END $$;
GRANT SELECT ON events TO fleetplane_reader;
