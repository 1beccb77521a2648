-- Periodic control-plane jobs (channel tests, balance refreshes) run once per fleet: a
-- replica runs a job only after claiming its row, which it can do only once the previous
-- claim's interval is over.
CREATE TABLE job_leases (
    name       TEXT   PRIMARY KEY,
    holder     TEXT   NOT NULL DEFAULT '',
    -- Epoch milliseconds until which the job is not run again.
    next_run   INTEGER NOT NULL DEFAULT 0,
    -- Epoch milliseconds of the last claim.
    claimed_at INTEGER NOT NULL DEFAULT 0
);
