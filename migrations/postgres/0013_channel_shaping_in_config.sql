-- The channel's model prefix and input-token limit now act on the gateways (issue 17), so a
-- change to either reaches them like any other channel change.
DROP TRIGGER config_change_channels ON channels;
CREATE TRIGGER config_change_channels
    AFTER INSERT OR DELETE OR UPDATE OF type, name, key_enc, openai_organization, status, weight,
        priority, base_url, models, "group", model_mapping, status_code_mapping, header_override,
        setting, param_override, other, multi_key_mode, key_status, model_prefix,
        max_input_tokens ON channels
    FOR EACH ROW EXECUTE FUNCTION record_config_change('channel');
