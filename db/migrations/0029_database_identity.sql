-- The identity of the database the log lives in, as a Hub last found it: the server's system identifier, its
-- timeline and the database's oid (DatabaseIdentified on `database:identity`). A Hub compares it with the live
-- one at start and at every lease sweep; a change (a restore, a point-in-time recovery, a failover, a move) is
-- recorded with `restored_at`, from which a node is sent nothing until it reports (docs/decisions.md, "A
-- restored Hub does not act on a node before it hears from it"). One row; none before a Hub first starts.
CREATE TABLE database_identity (
  singleton         boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
  system_identifier text        NOT NULL,
  timeline          bigint      NOT NULL,
  database_oid      bigint      NOT NULL,
  identified_at     timestamptz NOT NULL,
  restored_at       timestamptz
);

GRANT SELECT, INSERT, UPDATE, DELETE ON database_identity TO fleetplane_hub;
GRANT SELECT ON database_identity TO fleetplane_reader;
