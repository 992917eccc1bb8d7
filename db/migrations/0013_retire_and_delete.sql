-- Issue 22: retiring nodes and deleting streams.

-- A retired node's row leaves `nodes` (so it is selected, listed and reconciled nowhere); its id stays here,
-- and its agent credential is refused for good.
CREATE TABLE retired_nodes (
  node_id        text        PRIMARY KEY,
  forced         boolean     NOT NULL,
  retired_by     text        NOT NULL,
  correlation_id text        NOT NULL,
  retired_at     timestamptz NOT NULL
);
GRANT SELECT ON retired_nodes TO fleetplane_reader;

-- A stream being deleted (stopping everywhere), then removed once every registered node reported it stopped.
-- A removed stream's row stays, out of the listings, so a later PUT goes on from its generation.
ALTER TABLE streams ADD COLUMN deletion_requested_at timestamptz, ADD COLUMN removed_at timestamptz;

-- The drift view leaves removed streams out.
CREATE OR REPLACE VIEW drift AS
  SELECT p.node_id, s.stream_id, 'generation_mismatch'::text AS kind,
         s.generation AS desired_generation, s.desired_state,
         o.generation AS observed_generation, o.state AS observed_state, n.last_seen_at,
         NULL::text AS desired_config_version, NULL::text AS applied_config_version
  FROM streams s
  CROSS JOIN LATERAL jsonb_array_elements_text(s.placement->'nodes') AS p(node_id)
  LEFT JOIN observed_streams o ON o.node_id = p.node_id AND o.stream_id = s.stream_id
  LEFT JOIN nodes n ON n.node_id = p.node_id
  WHERE s.removed_at IS NULL AND (o.node_id IS NULL OR o.generation <> s.generation OR o.state <> s.desired_state)
UNION ALL
  SELECT o.node_id, s.stream_id, 'generation_mismatch', s.generation, 'stopped', o.generation, o.state, n.last_seen_at, NULL, NULL
  FROM observed_streams o
  JOIN streams s ON s.stream_id = o.stream_id
  LEFT JOIN nodes n ON n.node_id = o.node_id
  WHERE s.removed_at IS NULL AND NOT (s.placement->'nodes') ? o.node_id AND o.state <> 'stopped'
UNION ALL
  SELECT n.node_id, NULL, 'stale_node', NULL, NULL, NULL, NULL, n.last_seen_at, NULL, NULL
  FROM nodes n
  WHERE n.last_seen_at < coalesce(nullif(current_setting('fleetplane.now', true), '')::timestamptz, now())
    - make_interval(secs => coalesce(nullif(current_setting('fleetplane.stale_after_ms', true), ''), '30000')::numeric / 1000)
UNION ALL
  SELECT n.node_id, NULL, 'config_drift', NULL, NULL, NULL, NULL, n.last_seen_at,
         n.desired_config_version, n.applied_config_version
  FROM nodes n
  WHERE n.desired_config_version IS NOT NULL
    AND n.applied_config_version IS DISTINCT FROM n.desired_config_version;
