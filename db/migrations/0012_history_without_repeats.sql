-- History without heartbeats: the log in reading order, every event but a report that repeated its node's last
-- state. GET /events and its stream leave those out by default (`reports=changed`), and a reader walks this
-- index in (tx_id) order as it walks events_tx for the whole log, so it finds the next events it wants at once
-- however many repeated reports lie between them. A repeated report is `{"seq": n}` in NodeReported version 2
-- (no `streams`) and `"streams": null` in version 1: `data->'streams' <> 'null'` is false or null for both.
-- Repeated reports, most of the log, cost this index nothing. The read spells the predicate exactly so
-- (UNREPEATED in event-store/filter.ts), which is how PostgreSQL knows it may use the index.
CREATE INDEX events_tx_unrepeated ON events (tx_id) WITH (fillfactor = 100)
  WHERE type <> 'NodeReported' OR data->'streams' <> 'null'::jsonb;
