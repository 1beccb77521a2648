-- Usage records a gateway reported that ingest refused, with the reason (admins list them).
CREATE TABLE usage_rejections (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at  INTEGER NOT NULL,
    gateway_id  TEXT    NOT NULL DEFAULT '',
    request_id  TEXT    NOT NULL DEFAULT '',
    user_id     INTEGER NOT NULL DEFAULT 0,
    token_id    INTEGER NOT NULL DEFAULT 0,
    quota       INTEGER NOT NULL DEFAULT 0,
    reason      TEXT    NOT NULL,
    record      TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX idx_usage_rejections_created ON usage_rejections (created_at);
