-- The config feed's NOTIFY only wakes the control planes, which then read `config_changes`
-- themselves; the version it carried was never read. With the same payload every time,
-- PostgreSQL delivers one notification per transaction instead of one per changed row, and a
-- usage batch changes the balance of every user and token it charges. (Otherwise as in 0005:
-- the shared advisory lock a config writer holds until it ends.)
CREATE OR REPLACE FUNCTION record_config_change() RETURNS trigger AS $$
DECLARE
    changed TEXT;
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF TG_ARGV[0] = 'option' THEN changed := OLD.key; ELSE changed := OLD.id::text; END IF;
    ELSE
        IF TG_ARGV[0] = 'option' THEN changed := NEW.key; ELSE changed := NEW.id::text; END IF;
    END IF;
    PERFORM pg_advisory_xact_lock_shared(52717, 1);
    INSERT INTO config_changes (entity, entity_id, created_at)
        VALUES (TG_ARGV[0], changed, EXTRACT(EPOCH FROM now())::BIGINT);
    PERFORM pg_notify('config_changes', '');
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
