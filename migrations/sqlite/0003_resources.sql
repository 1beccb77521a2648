-- Channels, API tokens, redemption codes, top-ups, check-ins and the hourly usage roll-up.
-- Secrets (channel keys, token keys) are stored encrypted; tokens are found by a key hash.

CREATE TABLE channels (
    id                   INTEGER PRIMARY KEY AUTOINCREMENT,
    type                 INTEGER NOT NULL DEFAULT 1,
    name                 TEXT   NOT NULL DEFAULT '',
    key_enc              TEXT   NOT NULL DEFAULT '',
    openai_organization  TEXT   NOT NULL DEFAULT '',
    test_model           TEXT   NOT NULL DEFAULT '',
    status               INTEGER NOT NULL DEFAULT 1,
    weight               INTEGER NOT NULL DEFAULT 0,
    priority             INTEGER NOT NULL DEFAULT 0,
    created_time         INTEGER NOT NULL DEFAULT 0,
    test_time            INTEGER NOT NULL DEFAULT 0,
    response_time        INTEGER NOT NULL DEFAULT 0,
    base_url             TEXT   NOT NULL DEFAULT '',
    other                TEXT   NOT NULL DEFAULT '',
    balance              REAL NOT NULL DEFAULT 0,
    balance_updated_time INTEGER NOT NULL DEFAULT 0,
    models               TEXT   NOT NULL DEFAULT '',
    "group"              TEXT   NOT NULL DEFAULT 'default',
    used_quota           INTEGER NOT NULL DEFAULT 0,
    model_mapping        TEXT   NOT NULL DEFAULT '',
    status_code_mapping  TEXT   NOT NULL DEFAULT '',
    auto_ban             INTEGER NOT NULL DEFAULT 1,
    other_info           TEXT   NOT NULL DEFAULT '',
    tag                  TEXT   NOT NULL DEFAULT '',
    setting              TEXT   NOT NULL DEFAULT '',
    param_override       TEXT   NOT NULL DEFAULT '',
    header_override      TEXT   NOT NULL DEFAULT '',
    model_prefix         TEXT   NOT NULL DEFAULT '',
    max_input_tokens     INTEGER NOT NULL DEFAULT 0,
    remark               TEXT   NOT NULL DEFAULT '',
    multi_key_mode       TEXT   NOT NULL DEFAULT ''
);
CREATE INDEX idx_channels_name ON channels (name);
CREATE INDEX idx_channels_tag ON channels (tag);
CREATE INDEX idx_channels_status ON channels (status);

CREATE TABLE tokens (
    id                   INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id              INTEGER NOT NULL,
    name                 TEXT   NOT NULL DEFAULT '',
    key_hash             TEXT   NOT NULL UNIQUE,
    key_enc              TEXT   NOT NULL,
    status               INTEGER NOT NULL DEFAULT 1,
    created_time         INTEGER NOT NULL DEFAULT 0,
    accessed_time        INTEGER NOT NULL DEFAULT 0,
    expired_time         INTEGER NOT NULL DEFAULT -1,
    remain_quota         INTEGER NOT NULL DEFAULT 0,
    used_quota           INTEGER NOT NULL DEFAULT 0,
    unlimited_quota      INTEGER NOT NULL DEFAULT 0,
    model_limits_enabled INTEGER NOT NULL DEFAULT 0,
    model_limits         TEXT   NOT NULL DEFAULT '',
    allow_ips            TEXT   NOT NULL DEFAULT '',
    "group"              TEXT   NOT NULL DEFAULT '',
    rate_limit_enabled   INTEGER NOT NULL DEFAULT 0,
    rate_limit_period    INTEGER NOT NULL DEFAULT 60,
    rate_limit_count     INTEGER NOT NULL DEFAULT 0,
    rate_limit_success   INTEGER NOT NULL DEFAULT 0,
    deleted_at           INTEGER
);
CREATE INDEX idx_tokens_user ON tokens (user_id);
CREATE INDEX idx_tokens_name ON tokens (name);

CREATE TABLE redemptions (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id        INTEGER NOT NULL DEFAULT 0,
    key            TEXT   NOT NULL UNIQUE,
    name           TEXT   NOT NULL DEFAULT '',
    status         INTEGER NOT NULL DEFAULT 1,
    quota          INTEGER NOT NULL DEFAULT 100000,
    created_time   INTEGER NOT NULL DEFAULT 0,
    redeemed_time  INTEGER NOT NULL DEFAULT 0,
    used_user_id   INTEGER NOT NULL DEFAULT 0,
    is_gift        INTEGER NOT NULL DEFAULT 0,
    max_uses       INTEGER NOT NULL DEFAULT -1,
    used_count     INTEGER NOT NULL DEFAULT 0,
    valid_from     INTEGER NOT NULL DEFAULT 0,
    valid_until    INTEGER NOT NULL DEFAULT 0,
    deleted_at     INTEGER
);
CREATE INDEX idx_redemptions_name ON redemptions (name);

-- Who used which gift code (one use per user).
CREATE TABLE redemption_uses (
    redemption_id INTEGER NOT NULL,
    user_id       INTEGER NOT NULL,
    used_at       INTEGER NOT NULL,
    PRIMARY KEY (redemption_id, user_id)
);

CREATE TABLE top_ups (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id        INTEGER NOT NULL,
    amount         INTEGER NOT NULL,
    money          REAL NOT NULL,
    trade_no       TEXT   NOT NULL UNIQUE,
    payment_method TEXT   NOT NULL DEFAULT '',
    create_time    INTEGER NOT NULL,
    complete_time  INTEGER NOT NULL DEFAULT 0,
    status         TEXT   NOT NULL DEFAULT 'pending'
);
CREATE INDEX idx_top_ups_user ON top_ups (user_id);

CREATE TABLE checkins (
    user_id    INTEGER NOT NULL,
    day        INTEGER NOT NULL,
    quota      INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, day)
);

CREATE TABLE quota_data (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id    INTEGER NOT NULL,
    username   TEXT   NOT NULL DEFAULT '',
    model_name TEXT   NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    token_used INTEGER NOT NULL DEFAULT 0,
    count      INTEGER NOT NULL DEFAULT 0,
    quota      INTEGER NOT NULL DEFAULT 0,
    UNIQUE (user_id, model_name, created_at)
);
CREATE INDEX idx_quota_data_created ON quota_data (created_at);
CREATE INDEX idx_quota_data_model_user ON quota_data (model_name, username);
