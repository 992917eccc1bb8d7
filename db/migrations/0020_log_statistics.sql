-- ANALYZE of a segment leaves out the log's payload columns: no plan reads their statistics (filters on the
-- payload are on expressions, which the expression indexes' own statistics cover, or on nothing the planner
-- estimates from a column), and computing them is most of what autovacuum's visit of the newest segment
-- costs while it fills: jsonb values detoasted and compared for 30,000 sampled rows. ALTER TABLE on the log
-- reaches every attached segment; a new segment gets the same from add_events_partition, as a partition
-- does not take a column's statistics target from its parent.
ALTER TABLE events
  ALTER COLUMN data SET STATISTICS 0,
  ALTER COLUMN metadata SET STATISTICS 0,
  ALTER COLUMN hash SET STATISTICS 0;

CREATE OR REPLACE FUNCTION add_events_partition(p_from bigint, p_to bigint) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
  v_name text := format('events_%s', lpad(p_from::text, 19, '0'));
BEGIN
  IF p_from < 1 OR p_to <= p_from THEN
    RAISE EXCEPTION 'a segment spans positions [%, %): it must start at 1 or more and end after it starts', p_from, p_to;
  END IF;
  EXECUTE format('CREATE TABLE %I (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)', v_name);
  EXECUTE format('ALTER TABLE %I ALTER COLUMN data SET STATISTICS 0, ALTER COLUMN metadata SET STATISTICS 0, ALTER COLUMN hash SET STATISTICS 0', v_name);
  EXECUTE format('CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION refuse_event_change()', v_name);
  EXECUTE format('REVOKE UPDATE, DELETE, TRUNCATE ON %I FROM PUBLIC', v_name);
  EXECUTE format('GRANT SELECT ON %I TO fleetplane_reader, fleetplane_hub', v_name);
  EXECUTE format('ALTER TABLE events ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)', v_name, p_from, p_to);
  RETURN v_name;
END $$;
