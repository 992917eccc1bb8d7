-- The node's last accepted report when an attempt was dispatched (SPEC C5: a report newer than it was
-- received after dispatch). (boot id, seq) when the node had reported; (NULL, 0) when it had not yet;
-- (NULL, NULL) for attempts dispatched before this was kept.
ALTER TABLE attempts ADD COLUMN dispatch_report_boot_id text;
ALTER TABLE attempts ADD COLUMN dispatch_report_seq bigint;
