-- Projections of reconciliation: streams (desired state), intents, attempts, what nodes report, settings.

CREATE TABLE streams (
  stream_id     text        PRIMARY KEY,
  generation    bigint      NOT NULL,
  desired_state text        NOT NULL CHECK (desired_state IN ('running', 'stopped')),
  spec          jsonb       NOT NULL,
  placement     jsonb       NOT NULL,
  action_id     text,
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL
);

-- The Hub's goal for one target (a stream on a node) at one generation.
CREATE TABLE intents (
  intent_id        text        PRIMARY KEY,
  kind             text        NOT NULL CHECK (kind IN ('lifecycle', 'configuration')),
  stream_id        text        NOT NULL,
  node_id          text        NOT NULL,
  generation       bigint      NOT NULL,
  desired_state    text        NOT NULL,
  action_id        text,
  state            text        NOT NULL CHECK (state IN
                     ('pending', 'converging', 'retrying', 'converged', 'blocked', 'superseded', 'ambiguous')),
  retry_count      integer     NOT NULL DEFAULT 0,
  next_retry_at    timestamptz,
  failure_class    text,
  failure_code     text,
  failure_message  text,
  superseded_by    text,
  -- An ambiguous intent waits for a report newer than this one (the last the node had sent at dispatch).
  awaiting_boot_id text,
  awaiting_seq     bigint,
  correlation_id   text        NOT NULL,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  converged_at     timestamptz,
  CONSTRAINT intents_one_per_generation UNIQUE (kind, stream_id, node_id, generation)
);
CREATE INDEX intents_live_by_node ON intents (node_id)
  WHERE state IN ('pending', 'converging', 'retrying', 'ambiguous', 'blocked');
CREATE INDEX intents_by_stream ON intents (stream_id, node_id, generation DESC);
CREATE INDEX intents_by_state ON intents (state, created_at);

-- One delivery of a command for an intent.
CREATE TABLE attempts (
  attempt_id        text        PRIMARY KEY,
  intent_id         text        NOT NULL REFERENCES intents (intent_id),
  node_id           text        NOT NULL,
  stream_id         text        NOT NULL,
  generation        bigint      NOT NULL,
  operation         text        NOT NULL,
  action_id         text,
  spec              jsonb       NOT NULL,
  state             text        NOT NULL CHECK (state IN
                      ('queued', 'dispatched', 'succeeded', 'failed', 'ambiguous', 'superseded')),
  lease_expires_at  timestamptz,
  dispatched_at     timestamptz,
  completed_at      timestamptz,
  failure_class     text,
  code              text,
  message           text,
  mutation          text,
  correlation_id    text        NOT NULL,
  created_at        timestamptz NOT NULL
);
-- SPEC A11: at most one active attempt per target and generation, whatever the Hubs do.
CREATE UNIQUE INDEX attempts_one_active ON attempts (node_id, stream_id, generation)
  WHERE state IN ('queued', 'dispatched');
CREATE INDEX attempts_by_intent ON attempts (intent_id, created_at);
CREATE INDEX attempts_queued_by_node ON attempts (node_id, created_at) WHERE state = 'queued';
CREATE INDEX attempts_leases ON attempts (lease_expires_at) WHERE state = 'dispatched';

-- What each node last reported for each stream.
CREATE TABLE observed_streams (
  node_id        text        NOT NULL,
  stream_id      text        NOT NULL,
  generation     bigint      NOT NULL,
  state          text        NOT NULL,
  last_action_id text,
  error          text,
  reported_at    timestamptz NOT NULL,
  PRIMARY KEY (node_id, stream_id)
);
-- A stream's view and the drift view read observed state by stream.
CREATE INDEX observed_streams_by_stream ON observed_streams (stream_id, node_id);

-- The last accepted report: its boot (reports count from 1 again in a new boot) and its content digest.
ALTER TABLE nodes ADD COLUMN report_boot_id text, ADD COLUMN report_digest text;

-- Operator settings held as events (the global reconciliation mode).
CREATE TABLE settings (
  key        text        PRIMARY KEY,
  value      jsonb       NOT NULL,
  updated_at timestamptz NOT NULL
);

-- Answers replayed for a repeated Idempotency-Key: a cache of responses, not a projection.
CREATE TABLE idempotency_keys (
  principal   text        NOT NULL,
  route       text        NOT NULL,
  key         text        NOT NULL,
  body_sha256 text        NOT NULL,
  status      integer     NOT NULL,
  response    jsonb       NOT NULL,
  headers     jsonb       NOT NULL,
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (principal, route, key)
);

GRANT SELECT ON streams, intents, attempts, observed_streams, settings TO fleetplane_reader;

-- Drift, for SQL users and GET /drift: placement nodes whose reported generation or state differs from the
-- desired one, and nodes not heard from within the stale threshold. The threshold and the time are session
-- settings with defaults (`SET fleetplane.stale_after_ms = 60000;`), so the Hub applies its configuration.
CREATE VIEW drift AS
  SELECT p.node_id, s.stream_id, 'generation_mismatch'::text AS kind,
         s.generation AS desired_generation, s.desired_state,
         o.generation AS observed_generation, o.state AS observed_state, n.last_seen_at
  FROM streams s
  CROSS JOIN LATERAL jsonb_array_elements_text(s.placement->'nodes') AS p(node_id)
  LEFT JOIN observed_streams o ON o.node_id = p.node_id AND o.stream_id = s.stream_id
  LEFT JOIN nodes n ON n.node_id = p.node_id
  WHERE o.node_id IS NULL OR o.generation <> s.generation OR o.state <> s.desired_state
UNION ALL
  SELECT n.node_id, NULL, 'stale_node', NULL, NULL, NULL, NULL, n.last_seen_at
  FROM nodes n
  WHERE n.last_seen_at < coalesce(nullif(current_setting('fleetplane.now', true), '')::timestamptz, now())
    - make_interval(secs => coalesce(nullif(current_setting('fleetplane.stale_after_ms', true), ''), '30000')::numeric / 1000);

GRANT SELECT ON drift TO fleetplane_reader;
