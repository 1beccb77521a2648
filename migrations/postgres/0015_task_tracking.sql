-- Tasks submitted through gateways (reported once, with their usage record): the token that
-- paid, the request that created them, when the poller looks at them next, how often it has,
-- whether a failure was refunded, and (drawings) the buttons and properties the provider
-- last showed.
ALTER TABLE midjourneys ADD COLUMN token_id BIGINT NOT NULL DEFAULT 0;
ALTER TABLE midjourneys ADD COLUMN request_id TEXT;
ALTER TABLE midjourneys ADD COLUMN buttons TEXT NOT NULL DEFAULT '';
ALTER TABLE midjourneys ADD COLUMN properties TEXT NOT NULL DEFAULT '';
ALTER TABLE midjourneys ADD COLUMN refunded BIGINT NOT NULL DEFAULT 0;
ALTER TABLE midjourneys ADD COLUMN next_poll BIGINT NOT NULL DEFAULT 0;
ALTER TABLE midjourneys ADD COLUMN polls BIGINT NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX idx_midjourneys_request ON midjourneys (request_id) WHERE request_id IS NOT NULL;
CREATE INDEX idx_midjourneys_due ON midjourneys (next_poll) WHERE finish_time = 0;

ALTER TABLE tasks ADD COLUMN token_id BIGINT NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN request_id TEXT;
ALTER TABLE tasks ADD COLUMN prompt TEXT NOT NULL DEFAULT '';
ALTER TABLE tasks ADD COLUMN refunded BIGINT NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN next_poll BIGINT NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN polls BIGINT NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX idx_tasks_request ON tasks (request_id) WHERE request_id IS NOT NULL;
CREATE INDEX idx_tasks_due ON tasks (next_poll) WHERE finish_time = 0;
