-- Every usage batch updates the balances of the users and tokens it charges. None of the
-- columns it changes is indexed, so PostgreSQL can keep the new row version on the same page
-- without touching the indexes (a HOT update) when the page has room: leave a fifth of each
-- page free for that. Pages written before this keep their fill until they are rewritten.
ALTER TABLE users SET (fillfactor = 80);
ALTER TABLE tokens SET (fillfactor = 80);
ALTER TABLE channels SET (fillfactor = 80);
