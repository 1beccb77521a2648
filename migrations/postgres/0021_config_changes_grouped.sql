-- A usage batch changes the balance of every user and token it charges: up to thousands of rows
-- per statement, each of which 0020 recorded as a config change row of its own (a sequence
-- value, a heap tuple and an index entry each, then read back one by one by every control
-- plane's feed). A statement's changed rows are now recorded as one config change per 1 000
-- ids, the ids in ascending order and joined by commas in `entity_id`; the feed reads a list
-- wherever it read one id. Bounding a row's list keeps every delta bounded when one statement
-- changes every token (an operator's bulk edit). Row triggers (inserts, deletes, channels,
-- options) still record one id per row.

-- Records `changed_ids` (ascending) of `changed_entity` as one change per 1 000 of them, and
-- wakes the feeds when there was any. The shared advisory lock comes before a version is drawn
-- (see 0019).
CREATE FUNCTION record_changed_ids(changed_entity TEXT, changed_ids BIGINT[]) RETURNS VOID AS $$
BEGIN
    PERFORM pg_advisory_xact_lock_shared(52717, 1);
    INSERT INTO config_changes (entity, entity_id, created_at)
        SELECT changed_entity, string_agg(id::text, ',' ORDER BY ord), EXTRACT(EPOCH FROM now())::BIGINT
        FROM unnest(changed_ids) WITH ORDINALITY AS u(id, ord)
        GROUP BY (ord - 1) / 1000
        ORDER BY (ord - 1) / 1000;
    IF FOUND THEN
        PERFORM pg_notify('config_changes', '');
    END IF;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION record_user_updates() RETURNS trigger AS $$
BEGIN
    PERFORM record_changed_ids('user', ARRAY(
        SELECT n.id FROM updated_new n JOIN updated_old o ON o.id = n.id
        WHERE (n.username, n.role, n.status, n.quota, n."group", n.deleted_at, n.setting)
            IS DISTINCT FROM (o.username, o.role, o.status, o.quota, o."group", o.deleted_at, o.setting)
        ORDER BY n.id));
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION record_token_updates() RETURNS trigger AS $$
BEGIN
    PERFORM record_changed_ids('token', ARRAY(
        SELECT n.id FROM updated_new n JOIN updated_old o ON o.id = n.id
        WHERE (n.user_id, n.name, n.key_hash, n.status, n.expired_time, n.remain_quota,
                n.unlimited_quota, n.model_limits_enabled, n.model_limits, n.allow_ips, n."group",
                n.deleted_at)
            IS DISTINCT FROM (o.user_id, o.name, o.key_hash, o.status, o.expired_time,
                o.remain_quota, o.unlimited_quota, o.model_limits_enabled, o.model_limits,
                o.allow_ips, o."group", o.deleted_at)
        ORDER BY n.id));
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
