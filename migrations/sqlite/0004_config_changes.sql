-- Config versions for gateways: every write to gateway-visible state (users, tokens, channels,
-- options) appends a row here from a trigger, so every write path advances the version. The
-- control plane polls this table in-process (there is one writer process on SQLite).
CREATE TABLE config_changes (
    version    INTEGER PRIMARY KEY AUTOINCREMENT,
    entity     TEXT    NOT NULL,
    entity_id  TEXT    NOT NULL,
    created_at INTEGER NOT NULL DEFAULT 0
);

CREATE TRIGGER config_change_users_insert AFTER INSERT ON users
BEGIN
    INSERT INTO config_changes (entity, entity_id, created_at)
        VALUES ('user', CAST(NEW.id AS TEXT), CAST(strftime('%s', 'now') AS INTEGER));
END;

CREATE TRIGGER config_change_users_update AFTER UPDATE OF username, role, status, quota, "group", deleted_at ON users
BEGIN
    INSERT INTO config_changes (entity, entity_id, created_at)
        VALUES ('user', CAST(NEW.id AS TEXT), CAST(strftime('%s', 'now') AS INTEGER));
END;

CREATE TRIGGER config_change_users_delete AFTER DELETE ON users
BEGIN
    INSERT INTO config_changes (entity, entity_id, created_at)
        VALUES ('user', CAST(OLD.id AS TEXT), CAST(strftime('%s', 'now') AS INTEGER));
END;

CREATE TRIGGER config_change_tokens_insert AFTER INSERT ON tokens
BEGIN
    INSERT INTO config_changes (entity, entity_id, created_at)
        VALUES ('token', CAST(NEW.id AS TEXT), CAST(strftime('%s', 'now') AS INTEGER));
END;

CREATE TRIGGER config_change_tokens_update AFTER UPDATE OF user_id, name, key_hash, status, expired_time, remain_quota, unlimited_quota, model_limits_enabled, model_limits, allow_ips, "group", deleted_at ON tokens
BEGIN
    INSERT INTO config_changes (entity, entity_id, created_at)
        VALUES ('token', CAST(NEW.id AS TEXT), CAST(strftime('%s', 'now') AS INTEGER));
END;

CREATE TRIGGER config_change_tokens_delete AFTER DELETE ON tokens
BEGIN
    INSERT INTO config_changes (entity, entity_id, created_at)
        VALUES ('token', CAST(OLD.id AS TEXT), CAST(strftime('%s', 'now') AS INTEGER));
END;

CREATE TRIGGER config_change_channels_insert AFTER INSERT ON channels
BEGIN
    INSERT INTO config_changes (entity, entity_id, created_at)
        VALUES ('channel', CAST(NEW.id AS TEXT), CAST(strftime('%s', 'now') AS INTEGER));
END;

CREATE TRIGGER config_change_channels_update AFTER UPDATE OF type, name, key_enc, openai_organization, status, weight, priority, base_url, models, "group", model_mapping, status_code_mapping, header_override, setting, param_override, other ON channels
BEGIN
    INSERT INTO config_changes (entity, entity_id, created_at)
        VALUES ('channel', CAST(NEW.id AS TEXT), CAST(strftime('%s', 'now') AS INTEGER));
END;

CREATE TRIGGER config_change_channels_delete AFTER DELETE ON channels
BEGIN
    INSERT INTO config_changes (entity, entity_id, created_at)
        VALUES ('channel', CAST(OLD.id AS TEXT), CAST(strftime('%s', 'now') AS INTEGER));
END;

CREATE TRIGGER config_change_options_insert AFTER INSERT ON options
BEGIN
    INSERT INTO config_changes (entity, entity_id, created_at)
        VALUES ('option', CAST(NEW.key AS TEXT), CAST(strftime('%s', 'now') AS INTEGER));
END;

CREATE TRIGGER config_change_options_update AFTER UPDATE ON options
BEGIN
    INSERT INTO config_changes (entity, entity_id, created_at)
        VALUES ('option', CAST(NEW.key AS TEXT), CAST(strftime('%s', 'now') AS INTEGER));
END;

CREATE TRIGGER config_change_options_delete AFTER DELETE ON options
BEGIN
    INSERT INTO config_changes (entity, entity_id, created_at)
        VALUES ('option', CAST(OLD.key AS TEXT), CAST(strftime('%s', 'now') AS INTEGER));
END;

-- Gateways that watched the config feed: the version each applied and when it was last heard.
CREATE TABLE gateways (
    gateway_id      TEXT PRIMARY KEY,
    applied_version INTEGER NOT NULL DEFAULT 0,
    last_contact    INTEGER NOT NULL DEFAULT 0,
    connected       INTEGER NOT NULL DEFAULT 0
);
