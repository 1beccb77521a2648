-- A usage batch updates the balance of every user and token it charges in one statement each.
-- The row triggers recorded each of those rows as a config change with a PL/pgSQL call, an
-- advisory lock and an INSERT of its own: thousands of calls per batch, the largest part of the
-- database's ingest work. Updates of users and tokens are now recorded per statement from its
-- transition tables: one INSERT for all the rows whose gateway-visible columns changed (an
-- update that leaves them as they were is no change), in id order. Inserts and deletes, one
-- row at a time from the console, keep the row triggers.
CREATE FUNCTION record_user_updates() RETURNS trigger AS $$
BEGIN
    PERFORM pg_advisory_xact_lock_shared(52717, 1);
    INSERT INTO config_changes (entity, entity_id, created_at)
        SELECT 'user', n.id::text, EXTRACT(EPOCH FROM now())::BIGINT
        FROM updated_new n JOIN updated_old o ON o.id = n.id
        WHERE (n.username, n.role, n.status, n.quota, n."group", n.deleted_at, n.setting)
            IS DISTINCT FROM (o.username, o.role, o.status, o.quota, o."group", o.deleted_at, o.setting)
        ORDER BY n.id;
    IF FOUND THEN
        PERFORM pg_notify('config_changes', '');
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE FUNCTION record_token_updates() RETURNS trigger AS $$
BEGIN
    PERFORM pg_advisory_xact_lock_shared(52717, 1);
    INSERT INTO config_changes (entity, entity_id, created_at)
        SELECT 'token', n.id::text, EXTRACT(EPOCH FROM now())::BIGINT
        FROM updated_new n JOIN updated_old o ON o.id = n.id
        WHERE (n.user_id, n.name, n.key_hash, n.status, n.expired_time, n.remain_quota,
                n.unlimited_quota, n.model_limits_enabled, n.model_limits, n.allow_ips, n."group",
                n.deleted_at)
            IS DISTINCT FROM (o.user_id, o.name, o.key_hash, o.status, o.expired_time,
                o.remain_quota, o.unlimited_quota, o.model_limits_enabled, o.model_limits,
                o.allow_ips, o."group", o.deleted_at)
        ORDER BY n.id;
    IF FOUND THEN
        PERFORM pg_notify('config_changes', '');
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER config_change_users ON users;
CREATE TRIGGER config_change_users
    AFTER INSERT OR DELETE ON users
    FOR EACH ROW EXECUTE FUNCTION record_config_change('user');
CREATE TRIGGER config_change_users_updated
    AFTER UPDATE ON users
    REFERENCING OLD TABLE AS updated_old NEW TABLE AS updated_new
    FOR EACH STATEMENT EXECUTE FUNCTION record_user_updates();

DROP TRIGGER config_change_tokens ON tokens;
CREATE TRIGGER config_change_tokens
    AFTER INSERT OR DELETE ON tokens
    FOR EACH ROW EXECUTE FUNCTION record_config_change('token');
CREATE TRIGGER config_change_tokens_updated
    AFTER UPDATE ON tokens
    REFERENCING OLD TABLE AS updated_old NEW TABLE AS updated_new
    FOR EACH STATEMENT EXECUTE FUNCTION record_token_updates();
