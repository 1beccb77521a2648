-- The channel's model prefix and input-token limit now act on the gateways (issue 17), so a
-- change to either reaches them like any other channel change.
DROP TRIGGER config_change_channels_update;
CREATE TRIGGER config_change_channels_update AFTER UPDATE OF type, name, key_enc, openai_organization, status, weight, priority, base_url, models, "group", model_mapping, status_code_mapping, header_override, setting, param_override, other, multi_key_mode, key_status, model_prefix, max_input_tokens ON channels
BEGIN
    INSERT INTO config_changes (entity, entity_id, created_at)
        VALUES ('channel', CAST(NEW.id AS TEXT), CAST(strftime('%s', 'now') AS INTEGER));
END;
