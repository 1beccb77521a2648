-- One-time codes sent by email (registration, email binding, password reset). Only a hash of
-- each code is stored; a new code for the same purpose and address replaces the old one.
CREATE TABLE verification_codes (
    purpose    TEXT    NOT NULL,
    email      TEXT    NOT NULL,
    code_hash  TEXT    NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    attempts   BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (purpose, email)
);

CREATE INDEX idx_users_email_live ON users (email) WHERE deleted_at IS NULL;
