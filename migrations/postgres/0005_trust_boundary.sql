-- A config writer takes a shared transaction-level advisory lock (keys 52717, 1) before it
-- draws a version, and holds it until it commits or rolls back. The control plane calls a
-- version stable only once every writer open when it read that version has ended, so a
-- transaction that drew a lower version but commits later is never skipped by a gateway.
CREATE OR REPLACE FUNCTION record_config_change() RETURNS trigger AS $$
DECLARE
    changed TEXT;
    v BIGINT;
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF TG_ARGV[0] = 'option' THEN changed := OLD.key; ELSE changed := OLD.id::text; END IF;
    ELSE
        IF TG_ARGV[0] = 'option' THEN changed := NEW.key; ELSE changed := NEW.id::text; END IF;
    END IF;
    PERFORM pg_advisory_xact_lock_shared(52717, 1);
    INSERT INTO config_changes (entity, entity_id, created_at)
        VALUES (TG_ARGV[0], changed, EXTRACT(EPOCH FROM now())::BIGINT)
        RETURNING version INTO v;
    PERFORM pg_notify('config_changes', v::text);
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

-- Usage records a gateway reported that ingest refused, with the reason (admins list them).
CREATE TABLE usage_rejections (
    id          BIGSERIAL PRIMARY KEY,
    created_at  BIGINT NOT NULL,
    gateway_id  TEXT   NOT NULL DEFAULT '',
    request_id  TEXT   NOT NULL DEFAULT '',
    user_id     BIGINT NOT NULL DEFAULT 0,
    token_id    BIGINT NOT NULL DEFAULT 0,
    quota       BIGINT NOT NULL DEFAULT 0,
    reason      TEXT   NOT NULL,
    record      TEXT   NOT NULL DEFAULT ''
);
CREATE INDEX idx_usage_rejections_created ON usage_rejections (created_at);
