-- An update of a user or a token is a config change only when a column gateways see changed
-- value, as on PostgreSQL (its 0020): a usage record that costs nothing, or a console save that
-- changes nothing, no longer sends gateways a delta.
DROP TRIGGER config_change_users_update;
CREATE TRIGGER config_change_users_update AFTER UPDATE OF username, role, status, quota, "group", deleted_at, setting ON users
WHEN OLD.username IS NOT NEW.username OR OLD.role IS NOT NEW.role OR OLD.status IS NOT NEW.status
    OR OLD.quota IS NOT NEW.quota OR OLD."group" IS NOT NEW."group"
    OR OLD.deleted_at IS NOT NEW.deleted_at OR OLD.setting IS NOT NEW.setting
BEGIN
    INSERT INTO config_changes (entity, entity_id, created_at)
        VALUES ('user', CAST(NEW.id AS TEXT), CAST(strftime('%s', 'now') AS INTEGER));
END;

DROP TRIGGER config_change_tokens_update;
CREATE TRIGGER config_change_tokens_update AFTER UPDATE OF user_id, name, key_hash, status, expired_time, remain_quota, unlimited_quota, model_limits_enabled, model_limits, allow_ips, "group", deleted_at ON tokens
WHEN OLD.user_id IS NOT NEW.user_id OR OLD.name IS NOT NEW.name OR OLD.key_hash IS NOT NEW.key_hash
    OR OLD.status IS NOT NEW.status OR OLD.expired_time IS NOT NEW.expired_time
    OR OLD.remain_quota IS NOT NEW.remain_quota OR OLD.unlimited_quota IS NOT NEW.unlimited_quota
    OR OLD.model_limits_enabled IS NOT NEW.model_limits_enabled
    OR OLD.model_limits IS NOT NEW.model_limits OR OLD.allow_ips IS NOT NEW.allow_ips
    OR OLD."group" IS NOT NEW."group" OR OLD.deleted_at IS NOT NEW.deleted_at
BEGIN
    INSERT INTO config_changes (entity, entity_id, created_at)
        VALUES ('token', CAST(NEW.id AS TEXT), CAST(strftime('%s', 'now') AS INTEGER));
END;
