-- Request ids of usage records ingested while consumption logs are off (LogConsumeEnabled):
-- with no log row to find, these keep a redelivered batch from charging twice. Rows older
-- than the longest a gateway's spool can hold a record are pruned.
CREATE TABLE usage_receipts (
    request_id TEXT PRIMARY KEY,
    created_at BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX idx_usage_receipts_created_at ON usage_receipts (created_at);
