-- A usage batch updates the balance of every user it charges, and usually of every token on a
-- page too: with 1 000 users charged per batch, each page of `users` has every one of its rows
-- updated by one statement. A HOT update (the new row version on the same page, no index
-- touched; 0018) needs room on that page for the new version, and the versions one statement
-- writes cannot be pruned before it ends, so a page needs room for a second version of each of
-- its rows: half the page. With a fifth left free (0018), the ingest bench measured 70 % of the
-- token updates HOT and 94 % of the user updates; every other one wrote an entry into each of
-- the table's indexes (13 on `users`). At half, all of them were HOT, and the database server
-- read 17–25 % more records per CPU-second where every record charges another token.
-- The tables are about twice as large on disk (for 100 000 tokens, a few MiB more). Pages
-- written before this keep their fill until rows move or the table is rewritten
-- (`VACUUM FULL users, tokens`).
ALTER TABLE users SET (fillfactor = 50);
ALTER TABLE tokens SET (fillfactor = 50);
