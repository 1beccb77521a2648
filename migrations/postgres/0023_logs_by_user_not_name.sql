-- The console's username filter now names a user and reads the rows by user id
-- (idx_logs_user_created). The index by name went from every monthly partition: where users
-- are many its inserts are scattered, and it was about a fifth of a usage batch's COPY.
DROP INDEX idx_logs_username_created;
