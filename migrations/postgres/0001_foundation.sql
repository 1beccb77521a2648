-- Foundation: users, sessions, options, setup marker, logs and abilities.
-- Quotas are BIGINT; times are epoch seconds; flags are 0/1 BIGINT so the
-- same queries decode on PostgreSQL and SQLite.

CREATE TABLE users (
    id                BIGSERIAL PRIMARY KEY,
    username          TEXT   NOT NULL UNIQUE,
    password          TEXT   NOT NULL,
    display_name      TEXT   NOT NULL DEFAULT '',
    role              BIGINT NOT NULL DEFAULT 1,
    status            BIGINT NOT NULL DEFAULT 1,
    email             TEXT   NOT NULL DEFAULT '',
    github_id         TEXT   NOT NULL DEFAULT '',
    oidc_id           TEXT   NOT NULL DEFAULT '',
    wechat_id         TEXT   NOT NULL DEFAULT '',
    telegram_id       TEXT   NOT NULL DEFAULT '',
    linux_do_id       TEXT   NOT NULL DEFAULT '',
    access_token_hash TEXT   UNIQUE,
    quota             BIGINT NOT NULL DEFAULT 0,
    used_quota        BIGINT NOT NULL DEFAULT 0,
    request_count     BIGINT NOT NULL DEFAULT 0,
    "group"           TEXT   NOT NULL DEFAULT 'default',
    aff_code          TEXT   UNIQUE,
    aff_count         BIGINT NOT NULL DEFAULT 0,
    aff_quota         BIGINT NOT NULL DEFAULT 0,
    aff_history_quota BIGINT NOT NULL DEFAULT 0,
    inviter_id        BIGINT NOT NULL DEFAULT 0,
    setting           TEXT   NOT NULL DEFAULT '',
    remark            TEXT   NOT NULL DEFAULT '',
    created_at        BIGINT NOT NULL DEFAULT 0,
    last_login_at     BIGINT NOT NULL DEFAULT 0,
    deleted_at        BIGINT
);
CREATE INDEX idx_users_email ON users (email);
CREATE INDEX idx_users_group ON users ("group");
CREATE INDEX idx_users_inviter ON users (inviter_id);

CREATE TABLE sessions (
    id_hash      TEXT   PRIMARY KEY,
    user_id      BIGINT NOT NULL,
    created_at   BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL
);
CREATE INDEX idx_sessions_user ON sessions (user_id);
CREATE INDEX idx_sessions_expires ON sessions (expires_at);

CREATE TABLE options (
    key        TEXT   PRIMARY KEY,
    value      TEXT   NOT NULL,
    updated_at BIGINT NOT NULL DEFAULT 0
);

-- At most one row (id = 1): a second concurrent setup fails on the key.
CREATE TABLE setups (
    id             BIGINT PRIMARY KEY,
    version        TEXT   NOT NULL,
    initialized_at BIGINT NOT NULL
);

CREATE TABLE logs (
    id                BIGSERIAL PRIMARY KEY,
    user_id           BIGINT NOT NULL DEFAULT 0,
    created_at        BIGINT NOT NULL,
    type              BIGINT NOT NULL DEFAULT 0,
    content           TEXT   NOT NULL DEFAULT '',
    username          TEXT   NOT NULL DEFAULT '',
    token_name        TEXT   NOT NULL DEFAULT '',
    model_name        TEXT   NOT NULL DEFAULT '',
    quota             BIGINT NOT NULL DEFAULT 0,
    prompt_tokens     BIGINT NOT NULL DEFAULT 0,
    completion_tokens BIGINT NOT NULL DEFAULT 0,
    use_time          BIGINT NOT NULL DEFAULT 0,
    is_stream         BIGINT NOT NULL DEFAULT 0,
    channel_id        BIGINT NOT NULL DEFAULT 0,
    token_id          BIGINT NOT NULL DEFAULT 0,
    "group"           TEXT   NOT NULL DEFAULT '',
    ip                TEXT   NOT NULL DEFAULT '',
    request_id        TEXT,
    other             TEXT   NOT NULL DEFAULT ''
);
CREATE INDEX idx_logs_created_type ON logs (created_at, type);
CREATE INDEX idx_logs_user_id ON logs (user_id, id);
CREATE INDEX idx_logs_username ON logs (username);
CREATE INDEX idx_logs_model ON logs (model_name);
CREATE INDEX idx_logs_token_name ON logs (token_name);
CREATE INDEX idx_logs_channel ON logs (channel_id);
CREATE UNIQUE INDEX idx_logs_request_id ON logs (request_id) WHERE request_id IS NOT NULL;

-- Which channel serves which model for which group (rebuilt from channels).
CREATE TABLE abilities (
    "group"    TEXT   NOT NULL,
    model      TEXT   NOT NULL,
    channel_id BIGINT NOT NULL,
    enabled    BIGINT NOT NULL DEFAULT 1,
    priority   BIGINT NOT NULL DEFAULT 0,
    weight     BIGINT NOT NULL DEFAULT 0,
    tag        TEXT,
    PRIMARY KEY ("group", model, channel_id)
);
CREATE INDEX idx_abilities_channel ON abilities (channel_id);
