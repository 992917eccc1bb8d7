-- The result of the command that claimed an Idempotency-Key, stored in the same transaction as the claim.
-- The reply is stored only after the commit; when that never happens (the Hub stopped in between, or the
-- route failed after the commit), a retry with the key rebuilds the reply from this result instead of
-- waiting for an answer that will not come. NULL on claims made before this column existed.
ALTER TABLE idempotency_keys ADD COLUMN result jsonb;

-- Keys are forgotten control_api.idempotency_ttl_ms after their claim (default 24 h): the Hub deletes them by age.
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
