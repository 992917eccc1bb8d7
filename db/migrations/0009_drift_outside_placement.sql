-- Drift also shows a node the placement left that still runs the stream (SPEC B1, B4): the Hub wants the
-- stream stopped there at the current generation, as the node's stop intent says, and in observe mode this
-- row is how an operator learns of it. A node that reports the stream stopped, at any generation, is not drift.
CREATE OR REPLACE VIEW drift AS
  SELECT p.node_id, s.stream_id, 'generation_mismatch'::text AS kind,
         s.generation AS desired_generation, s.desired_state,
         o.generation AS observed_generation, o.state AS observed_state, n.last_seen_at,
         NULL::text AS desired_config_version, NULL::text AS applied_config_version
  FROM streams s
  CROSS JOIN LATERAL jsonb_array_elements_text(s.placement->'nodes') AS p(node_id)
  LEFT JOIN observed_streams o ON o.node_id = p.node_id AND o.stream_id = s.stream_id
  LEFT JOIN nodes n ON n.node_id = p.node_id
  WHERE o.node_id IS NULL OR o.generation <> s.generation OR o.state <> s.desired_state
UNION ALL
  SELECT o.node_id, s.stream_id, 'generation_mismatch', s.generation, 'stopped', o.generation, o.state, n.last_seen_at, NULL, NULL
  FROM observed_streams o
  JOIN streams s ON s.stream_id = o.stream_id
  LEFT JOIN nodes n ON n.node_id = o.node_id
  WHERE NOT (s.placement->'nodes') ? o.node_id AND o.state <> 'stopped'
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
