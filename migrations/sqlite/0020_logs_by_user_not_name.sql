-- The console's username filter now names a user and reads the rows by user id
-- (idx_logs_user_created). The index by name went: over many users, its scattered inserts were
-- the largest single cost of a usage batch (the ingest bench with 1 000 users: 59 000-65 000
-- records per CPU-second with it, 82 000-88 000 without).
DROP INDEX idx_logs_username_created;
