-- SQLite keeps logs in one table (PostgreSQL partitions them by month in its 0016). Both get
-- indexes that match the console's filters, which always come with a time range.
DROP INDEX idx_logs_user_id;
DROP INDEX idx_logs_username;
DROP INDEX idx_logs_token_name;
DROP INDEX idx_logs_channel;
CREATE INDEX idx_logs_user_created ON logs (user_id, created_at);
CREATE INDEX idx_logs_username_created ON logs (username, created_at);
CREATE INDEX idx_logs_token_created ON logs (token_name, created_at);
CREATE INDEX idx_logs_channel_created ON logs (channel_id, created_at);
