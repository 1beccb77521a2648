-- Per-key status of multi-key channels: JSON by key index ({"2": {"status": 3, "reason": …,
-- "time": …}}); keys not listed are enabled. A change reaches the gateways like any other
-- channel change (disabled keys are left out of the snapshot), so the config trigger now
-- watches this column, and multi_key_mode too.
ALTER TABLE channels ADD COLUMN key_status TEXT NOT NULL DEFAULT '{}';

DROP TRIGGER config_change_channels ON channels;
CREATE TRIGGER config_change_channels
    AFTER INSERT OR DELETE OR UPDATE OF type, name, key_enc, openai_organization, status, weight,
        priority, base_url, models, "group", model_mapping, status_code_mapping, header_override,
        setting, param_override, other, multi_key_mode, key_status ON channels
    FOR EACH ROW EXECUTE FUNCTION record_config_change('channel');
