-- Counters of credential attempts (sign-in, registration, codes, resets, redemptions) per
-- client address and per account, in fixed windows. Keys are hashes (no address or email is
-- stored in clear); every replica counts in the same rows, so the limits hold cluster-wide.
CREATE TABLE auth_attempts (
    key          TEXT   PRIMARY KEY,
    window_start BIGINT NOT NULL,
    hits         BIGINT NOT NULL
);
CREATE INDEX idx_auth_attempts_window ON auth_attempts (window_start);
