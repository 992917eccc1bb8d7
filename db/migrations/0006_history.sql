-- History reads (GET /events, SSE): filters walk the log in (tx_id, position) order.
-- Who did what: an actor's events in log order, so `?actor=` pages by index instead of scanning the log.
-- (stream_id is served by events_stream_version_unique, type by events_type_position, correlation id by
-- events_correlation, time by events_recorded_at.)
CREATE INDEX events_actor ON events ((metadata->>'actor'), tx_id, position);
