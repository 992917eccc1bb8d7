-- A stream a node runs that the Hub holds no live desired state for: a database restored from a backup lost
-- the writes that created it (db/README.md, "Backups"). Drift shows it as a generation mismatch with no desired
-- generation or state, so that the operator sees what runs outside the restored log and decides what it should
-- be (a PUT, at a generation past the node's). A stopped one is not shown, as a stream stopped where it is no
-- longer placed is not.
CREATE OR REPLACE VIEW drift AS
  SELECT p.node_id, s.stream_id, 'generation_mismatch'::text AS kind,
         s.generation AS desired_generation, s.desired_state,
         o.generation AS observed_generation, o.state AS observed_state, n.last_seen_at,
         NULL::text AS desired_config_version, NULL::text AS applied_config_version, o.health
  FROM streams s
  CROSS JOIN LATERAL jsonb_array_elements_text(s.placement->'nodes') AS p(node_id)
  LEFT JOIN observed_streams o ON o.node_id = p.node_id AND o.stream_id = s.stream_id
  LEFT JOIN nodes n ON n.node_id = p.node_id
  WHERE s.removed_at IS NULL AND (o.node_id IS NULL OR o.generation <> s.generation OR o.state <> s.desired_state)
UNION ALL
  SELECT p.node_id, s.stream_id, 'unhealthy', s.generation, s.desired_state, o.generation, o.state, n.last_seen_at, NULL, NULL, o.health
  FROM streams s
  CROSS JOIN LATERAL jsonb_array_elements_text(s.placement->'nodes') AS p(node_id)
  JOIN observed_streams o ON o.node_id = p.node_id AND o.stream_id = s.stream_id
  LEFT JOIN nodes n ON n.node_id = p.node_id
  WHERE s.removed_at IS NULL AND o.generation = s.generation AND o.state = s.desired_state
    AND (o.health->>'status' = 'exited' OR (o.health->>'restarts')::bigint > 0)
UNION ALL
  SELECT o.node_id, s.stream_id, 'generation_mismatch', s.generation, 'stopped', o.generation, o.state, n.last_seen_at, NULL, NULL, o.health
  FROM observed_streams o
  JOIN streams s ON s.stream_id = o.stream_id
  LEFT JOIN nodes n ON n.node_id = o.node_id
  WHERE s.removed_at IS NULL AND NOT (s.placement->'nodes') ? o.node_id AND o.state <> 'stopped'
UNION ALL
  SELECT n.node_id, NULL, 'stale_node', NULL, NULL, NULL, NULL, n.last_seen_at, NULL, NULL, NULL
  FROM nodes n
  WHERE n.last_seen_at < coalesce(nullif(current_setting('fleetplane.now', true), '')::timestamptz, now())
    - make_interval(secs => coalesce(nullif(current_setting('fleetplane.stale_after_ms', true), ''), '30000')::numeric / 1000)
UNION ALL
  SELECT n.node_id, NULL, 'config_drift', NULL, NULL, NULL, NULL, n.last_seen_at,
         n.desired_config_version, n.applied_config_version, NULL
  FROM nodes n
  WHERE n.desired_config_version IS NOT NULL
    AND n.applied_config_version IS DISTINCT FROM n.desired_config_version
UNION ALL
  SELECT o.node_id, o.stream_id, 'generation_mismatch', NULL, NULL, o.generation, o.state, n.last_seen_at, NULL, NULL, o.health
  FROM observed_streams o
  JOIN nodes n ON n.node_id = o.node_id
  WHERE o.state <> 'stopped' AND NOT EXISTS (SELECT FROM streams s WHERE s.stream_id = o.stream_id AND s.removed_at IS NULL);
