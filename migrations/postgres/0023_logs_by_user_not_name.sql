-- The console's username filter now names a user and reads the rows by user id
-- (idx_logs_user_created). The index by name went from every monthly partition: where users
-- are many its inserts are scattered (the ingest bench over 1 000 users: the server's records per
-- CPU-second 6-9 % higher without it).
DROP INDEX idx_logs_username_created;
