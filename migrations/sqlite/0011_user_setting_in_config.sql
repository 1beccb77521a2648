-- A user's settings reach the gateways (accept_unset_model_ratio_model: unpriced models at
-- zero cost), so a change of them is a config change.
DROP TRIGGER config_change_users_update;
CREATE TRIGGER config_change_users_update AFTER UPDATE OF username, role, status, quota, "group", deleted_at, setting ON users
BEGIN
    INSERT INTO config_changes (entity, entity_id, created_at)
        VALUES ('user', CAST(NEW.id AS TEXT), CAST(strftime('%s', 'now') AS INTEGER));
END;
