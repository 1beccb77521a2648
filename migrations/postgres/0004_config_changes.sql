-- Config versions for gateways: every write to gateway-visible state (users, tokens, channels,
-- options) appends a row here from a trigger, so every write path advances the version and
-- every control-plane replica streams the same order. NOTIFY wakes the replicas' Watch streams.
CREATE TABLE config_changes (
    version    BIGSERIAL PRIMARY KEY,
    entity     TEXT   NOT NULL,
    entity_id  TEXT   NOT NULL,
    created_at BIGINT NOT NULL DEFAULT 0
);

CREATE FUNCTION record_config_change() RETURNS trigger AS $$
DECLARE
    changed TEXT;
    v BIGINT;
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF TG_ARGV[0] = 'option' THEN changed := OLD.key; ELSE changed := OLD.id::text; END IF;
    ELSE
        IF TG_ARGV[0] = 'option' THEN changed := NEW.key; ELSE changed := NEW.id::text; END IF;
    END IF;
    INSERT INTO config_changes (entity, entity_id, created_at)
        VALUES (TG_ARGV[0], changed, EXTRACT(EPOCH FROM now())::BIGINT)
        RETURNING version INTO v;
    PERFORM pg_notify('config_changes', v::text);
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER config_change_users
    AFTER INSERT OR DELETE OR UPDATE OF username, role, status, quota, "group", deleted_at ON users
    FOR EACH ROW EXECUTE FUNCTION record_config_change('user');
CREATE TRIGGER config_change_tokens
    AFTER INSERT OR DELETE OR UPDATE OF user_id, name, key_hash, status, expired_time, remain_quota,
        unlimited_quota, model_limits_enabled, model_limits, allow_ips, "group", deleted_at ON tokens
    FOR EACH ROW EXECUTE FUNCTION record_config_change('token');
CREATE TRIGGER config_change_channels
    AFTER INSERT OR DELETE OR UPDATE OF type, name, key_enc, openai_organization, status, weight,
        priority, base_url, models, "group", model_mapping, status_code_mapping, header_override,
        setting, param_override, other ON channels
    FOR EACH ROW EXECUTE FUNCTION record_config_change('channel');
CREATE TRIGGER config_change_options
    AFTER INSERT OR DELETE OR UPDATE ON options
    FOR EACH ROW EXECUTE FUNCTION record_config_change('option');

-- Gateways that watched the config feed: the version each applied and when it was last heard.
CREATE TABLE gateways (
    gateway_id      TEXT PRIMARY KEY,
    applied_version BIGINT NOT NULL DEFAULT 0,
    last_contact    BIGINT NOT NULL DEFAULT 0,
    connected       BIGINT NOT NULL DEFAULT 0
);
