-- `fleetplane verify` and `replay` refuse a database another release migrated: fleetplane_reader (an auditor's
-- login) reads which migrations are applied.
GRANT SELECT ON schema_migrations TO fleetplane_reader;
