-- Projection: one row per registered node. Derived from the node's event stream only.
CREATE TABLE nodes (
  node_id                text        PRIMARY KEY,
  labels                 jsonb       NOT NULL DEFAULT '{}',
  capabilities           jsonb       NOT NULL DEFAULT '[]',
  data_address           text,
  control_address        text,
  agent_version          text,
  boot_id                text        NOT NULL,
  maintenance            text        NOT NULL DEFAULT 'active' CHECK (maintenance IN ('active', 'draining')),
  mode_override          text        CHECK (mode_override IN ('observe', 'lifecycle', 'configuration')),
  last_report_seq        bigint,
  last_report_at         timestamptz,
  last_seen_at           timestamptz NOT NULL,
  applied_config_version text,
  registered_at          timestamptz NOT NULL,
  updated_at             timestamptz NOT NULL
);
CREATE INDEX nodes_labels ON nodes USING gin (labels jsonb_path_ops);

GRANT SELECT ON nodes TO fleetplane_reader;
