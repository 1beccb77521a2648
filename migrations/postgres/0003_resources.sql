-- Channels, API tokens, redemption codes, top-ups, check-ins and the hourly usage roll-up.
-- Secrets (channel keys, token keys) are stored encrypted; tokens are found by a key hash.

CREATE TABLE channels (
    id                   BIGSERIAL PRIMARY KEY,
    type                 BIGINT NOT NULL DEFAULT 1,
    name                 TEXT   NOT NULL DEFAULT '',
    key_enc              TEXT   NOT NULL DEFAULT '',
    openai_organization  TEXT   NOT NULL DEFAULT '',
    test_model           TEXT   NOT NULL DEFAULT '',
    status               BIGINT NOT NULL DEFAULT 1,
    weight               BIGINT NOT NULL DEFAULT 0,
    priority             BIGINT NOT NULL DEFAULT 0,
    created_time         BIGINT NOT NULL DEFAULT 0,
    test_time            BIGINT NOT NULL DEFAULT 0,
    response_time        BIGINT NOT NULL DEFAULT 0,
    base_url             TEXT   NOT NULL DEFAULT '',
    other                TEXT   NOT NULL DEFAULT '',
    balance              DOUBLE PRECISION NOT NULL DEFAULT 0,
    balance_updated_time BIGINT NOT NULL DEFAULT 0,
    models               TEXT   NOT NULL DEFAULT '',
    "group"              TEXT   NOT NULL DEFAULT 'default',
    used_quota           BIGINT NOT NULL DEFAULT 0,
    model_mapping        TEXT   NOT NULL DEFAULT '',
    status_code_mapping  TEXT   NOT NULL DEFAULT '',
    auto_ban             BIGINT NOT NULL DEFAULT 1,
    other_info           TEXT   NOT NULL DEFAULT '',
    tag                  TEXT   NOT NULL DEFAULT '',
    setting              TEXT   NOT NULL DEFAULT '',
    param_override       TEXT   NOT NULL DEFAULT '',
    header_override      TEXT   NOT NULL DEFAULT '',
    model_prefix         TEXT   NOT NULL DEFAULT '',
    max_input_tokens     BIGINT NOT NULL DEFAULT 0,
    remark               TEXT   NOT NULL DEFAULT '',
    multi_key_mode       TEXT   NOT NULL DEFAULT ''
);
CREATE INDEX idx_channels_name ON channels (name);
CREATE INDEX idx_channels_tag ON channels (tag);
CREATE INDEX idx_channels_status ON channels (status);

CREATE TABLE tokens (
    id                   BIGSERIAL PRIMARY KEY,
    user_id              BIGINT NOT NULL,
    name                 TEXT   NOT NULL DEFAULT '',
    key_hash             TEXT   NOT NULL UNIQUE,
    key_enc              TEXT   NOT NULL,
    status               BIGINT NOT NULL DEFAULT 1,
    created_time         BIGINT NOT NULL DEFAULT 0,
    accessed_time        BIGINT NOT NULL DEFAULT 0,
    expired_time         BIGINT NOT NULL DEFAULT -1,
    remain_quota         BIGINT NOT NULL DEFAULT 0,
    used_quota           BIGINT NOT NULL DEFAULT 0,
    unlimited_quota      BIGINT NOT NULL DEFAULT 0,
    model_limits_enabled BIGINT NOT NULL DEFAULT 0,
    model_limits         TEXT   NOT NULL DEFAULT '',
    allow_ips            TEXT   NOT NULL DEFAULT '',
    "group"              TEXT   NOT NULL DEFAULT '',
    rate_limit_enabled   BIGINT NOT NULL DEFAULT 0,
    rate_limit_period    BIGINT NOT NULL DEFAULT 60,
    rate_limit_count     BIGINT NOT NULL DEFAULT 0,
    rate_limit_success   BIGINT NOT NULL DEFAULT 0,
    deleted_at           BIGINT
);
CREATE INDEX idx_tokens_user ON tokens (user_id);
CREATE INDEX idx_tokens_name ON tokens (name);

CREATE TABLE redemptions (
    id             BIGSERIAL PRIMARY KEY,
    user_id        BIGINT NOT NULL DEFAULT 0,
    key            TEXT   NOT NULL UNIQUE,
    name           TEXT   NOT NULL DEFAULT '',
    status         BIGINT NOT NULL DEFAULT 1,
    quota          BIGINT NOT NULL DEFAULT 100000,
    created_time   BIGINT NOT NULL DEFAULT 0,
    redeemed_time  BIGINT NOT NULL DEFAULT 0,
    used_user_id   BIGINT NOT NULL DEFAULT 0,
    is_gift        BIGINT NOT NULL DEFAULT 0,
    max_uses       BIGINT NOT NULL DEFAULT -1,
    used_count     BIGINT NOT NULL DEFAULT 0,
    valid_from     BIGINT NOT NULL DEFAULT 0,
    valid_until    BIGINT NOT NULL DEFAULT 0,
    deleted_at     BIGINT
);
CREATE INDEX idx_redemptions_name ON redemptions (name);

-- Who used which gift code (one use per user).
CREATE TABLE redemption_uses (
    redemption_id BIGINT NOT NULL,
    user_id       BIGINT NOT NULL,
    used_at       BIGINT NOT NULL,
    PRIMARY KEY (redemption_id, user_id)
);

CREATE TABLE top_ups (
    id             BIGSERIAL PRIMARY KEY,
    user_id        BIGINT NOT NULL,
    amount         BIGINT NOT NULL,
    money          DOUBLE PRECISION NOT NULL,
    trade_no       TEXT   NOT NULL UNIQUE,
    payment_method TEXT   NOT NULL DEFAULT '',
    create_time    BIGINT NOT NULL,
    complete_time  BIGINT NOT NULL DEFAULT 0,
    status         TEXT   NOT NULL DEFAULT 'pending'
);
CREATE INDEX idx_top_ups_user ON top_ups (user_id);

CREATE TABLE checkins (
    user_id    BIGINT NOT NULL,
    day        BIGINT NOT NULL,
    quota      BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, day)
);

CREATE TABLE quota_data (
    id         BIGSERIAL PRIMARY KEY,
    user_id    BIGINT NOT NULL,
    username   TEXT   NOT NULL DEFAULT '',
    model_name TEXT   NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL,
    token_used BIGINT NOT NULL DEFAULT 0,
    count      BIGINT NOT NULL DEFAULT 0,
    quota      BIGINT NOT NULL DEFAULT 0,
    UNIQUE (user_id, model_name, created_at)
);
CREATE INDEX idx_quota_data_created ON quota_data (created_at);
CREATE INDEX idx_quota_data_model_user ON quota_data (model_name, username);
