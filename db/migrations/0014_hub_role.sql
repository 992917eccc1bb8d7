-- Least privilege (issue 23): the Hub runs as a member of `fleetplane_hub`, not as the owner. It reads and
-- writes the projections and its own bookkeeping, appends to the log and reads it, and can neither edit nor
-- delete an event, nor alter a table, nor create a role. What it must do to the log's segments (add one, lock
-- one for export, detach and drop one once archived) it does through the SECURITY DEFINER functions below,
-- owned by the owner, each of which does that one thing and checks its argument.
DO $$ BEGIN
  CREATE ROLE fleetplane_hub NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END $$;

GRANT SELECT ON schema_migrations TO fleetplane_hub;
GRANT SELECT, INSERT ON events TO fleetplane_hub;
GRANT SELECT, INSERT, UPDATE, DELETE ON
  stream_heads, archived_heads, projection_checkpoints, idempotency_keys,
  nodes, streams, intents, attempts, observed_streams, settings,
  config_versions, rollouts, rollout_targets, config_approvals, retired_nodes
TO fleetplane_hub;
GRANT SELECT ON drift, recovery_holds, event_history, event_chain TO fleetplane_hub;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO fleetplane_hub;

-- Each segment is read directly by the archiver (its export, a detached one's last position).
DO $$
DECLARE v_name text;
BEGIN
  FOR v_name IN SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass LOOP
    EXECUTE format('GRANT SELECT ON %I TO fleetplane_hub', v_name);
  END LOOP;
END $$;

-- A segment of the log, as before, now also readable by the Hub's role; called by the Hub (SECURITY DEFINER:
-- the partition is the owner's). The range must start where the last segment ends: no one can slip a
-- partition of their own making under the log, or one that overlaps (ATTACH refuses an overlap anyway).
CREATE OR REPLACE FUNCTION add_events_partition(p_from bigint, p_to bigint) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
  v_name text := format('events_%s', lpad(p_from::text, 19, '0'));
BEGIN
  IF p_from < 1 OR p_to <= p_from THEN
    RAISE EXCEPTION 'a segment spans positions [%, %): it must start at 1 or more and end after it starts', p_from, p_to;
  END IF;
  EXECUTE format('CREATE TABLE %I (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)', v_name);
  EXECUTE format('CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION refuse_event_change()', v_name);
  EXECUTE format('REVOKE UPDATE, DELETE, TRUNCATE ON %I FROM PUBLIC', v_name);
  EXECUTE format('GRANT SELECT ON %I TO fleetplane_reader, fleetplane_hub', v_name);
  EXECUTE format('ALTER TABLE events ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)', v_name, p_from, p_to);
  RETURN v_name;
END $$;

-- The last position the archive holds, as the newest LogSegmentArchived on `log:archive` records it (null: none).
CREATE FUNCTION archived_through() RETURNS bigint LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
  SELECT (e.data ->> 'last_position')::bigint FROM stream_heads h
  JOIN events e ON e.stream_id = h.stream_id AND e.stream_version = h.stream_version AND e.type = 'LogSegmentArchived'
  WHERE h.stream_id = 'log:archive'
$$;

-- A segment table: a name events_<19 digits> of a table in this schema, attached to `events` or left detached.
CREATE FUNCTION events_segment(p_name text) RETURNS regclass LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
DECLARE v_table regclass;
BEGIN
  IF p_name !~ '^events_[0-9]{19}$' THEN RAISE EXCEPTION '% is not a segment of the log', p_name USING ERRCODE = 'invalid_parameter_value'; END IF;
  v_table := to_regclass(quote_ident(p_name));
  IF v_table IS NULL OR (SELECT relnamespace FROM pg_class WHERE oid = v_table) <> (SELECT relnamespace FROM pg_class WHERE oid = 'events'::regclass) THEN
    RAISE EXCEPTION 'no segment % in the schema of events', p_name USING ERRCODE = 'undefined_table';
  END IF;
  RETURN v_table;
END $$;

-- The export's lock: SHARE on one segment until the caller's transaction ends (it waits for an insert that
-- took a position there, and keeps anything from being added). LOCK in SHARE mode needs more than SELECT.
CREATE FUNCTION lock_events_segment(p_name text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
  EXECUTE format('LOCK TABLE %s IN SHARE MODE', events_segment(p_name));
END $$;

-- Detaches an archived segment from `events` (FINALIZE for one a concurrent detach left pending). Refused
-- unless the archive holds every position the segment starts with and every event it has: history leaves
-- the database only once the log records it archived. A plain DETACH (a function cannot run one
-- CONCURRENTLY): ACCESS EXCLUSIVE on `events` for a catalog change, waited for at most 1 s (appends queue
-- behind it that long at most); a long reader makes it fail, and the next run tries again.
CREATE FUNCTION detach_archived_segment(p_name text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT SET lock_timeout = '1s' AS $$
DECLARE
  v_table regclass := events_segment(p_name);
  v_pending boolean;
  v_through bigint := archived_through();
BEGIN
  SELECT inhdetachpending INTO v_pending FROM pg_inherits WHERE inhrelid = v_table AND inhparent = 'events'::regclass;
  IF v_pending IS NULL THEN RETURN; END IF;
  PERFORM refuse_unarchived(v_table, v_through);
  IF v_pending THEN
    EXECUTE format('ALTER TABLE events DETACH PARTITION %s FINALIZE', v_table);
  ELSE
    EXECUTE format('ALTER TABLE events DETACH PARTITION %s', v_table);
  END IF;
END $$;

-- Drops a segment detached from `events`, under the same condition.
CREATE FUNCTION drop_detached_segment(p_name text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT SET lock_timeout = '5s' AS $$
DECLARE v_table regclass := to_regclass(quote_ident(p_name));
BEGIN
  IF v_table IS NULL THEN RETURN; END IF;
  v_table := events_segment(p_name);
  IF EXISTS (SELECT FROM pg_inherits WHERE inhrelid = v_table) THEN
    RAISE EXCEPTION 'segment % is still part of the log: detach it first', p_name USING ERRCODE = 'object_in_use';
  END IF;
  PERFORM refuse_unarchived(v_table, archived_through());
  EXECUTE format('DROP TABLE %s', v_table);
END $$;

CREATE FUNCTION refuse_unarchived(p_table regclass, p_through bigint) RETURNS void LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE v_last bigint;
BEGIN
  EXECUTE format('SELECT max(position) FROM %s', p_table) INTO v_last;
  IF p_through IS NULL OR substr(p_table::text, 8)::bigint > p_through OR coalesce(v_last, 0) > p_through THEN
    RAISE EXCEPTION 'segment % is not archived: the archive holds positions up to %', p_table, coalesce(p_through::text, 'none')
      USING ERRCODE = 'insufficient_privilege';
  END IF;
END $$;

REVOKE ALL ON FUNCTION add_events_partition(bigint, bigint), lock_events_segment(text), detach_archived_segment(text), drop_detached_segment(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION add_events_partition(bigint, bigint), lock_events_segment(text), detach_archived_segment(text), drop_detached_segment(text) TO fleetplane_hub;
