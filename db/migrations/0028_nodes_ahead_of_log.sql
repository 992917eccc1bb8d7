-- A node reporting an applied configuration version the log does not know (a Hub restored from a backup):
-- the node's configuration generation when it first did. A configuration intent of that generation or
-- below was opened before, and is not sent to it (docs/decisions.md, "A node ahead of a restored log").
-- Set and cleared by the node's reports; a column addition: the Hub's and the reader's grants cover it.
ALTER TABLE nodes ADD COLUMN config_ahead_of bigint;
