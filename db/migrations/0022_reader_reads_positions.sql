-- `fleetplane verify --archive` checks that the hot log begins where the archive ends, from the log's segments
-- and the last position handed out: fleetplane_reader (an auditor's login) reads the position sequence too.
GRANT SELECT ON SEQUENCE events_position_seq TO fleetplane_reader;
