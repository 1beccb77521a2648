-- A user's settings reach the gateways (accept_unset_model_ratio_model: unpriced models at
-- zero cost), so a change of them is a config change.
DROP TRIGGER config_change_users ON users;
CREATE TRIGGER config_change_users
    AFTER INSERT OR DELETE OR UPDATE OF username, role, status, quota, "group", deleted_at, setting ON users
    FOR EACH ROW EXECUTE FUNCTION record_config_change('user');
