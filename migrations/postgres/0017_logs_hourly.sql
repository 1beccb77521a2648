-- Hourly roll-up of the logs by type: the console's counts and totals over a long range of all
-- users read whole hours from here and only the partial hours at the range's ends from `logs`.
-- Statement triggers keep it exact for every INSERT and DELETE on `logs` (their transition
-- tables hold the rows of all partitions); `logs_delete_before` clears the hours of the months
-- it drops. Each statement adds to its own shard row (by backend), so that control planes
-- ingesting at once do not wait on each other's row locks.

CREATE TABLE logs_hourly (
    hour              BIGINT NOT NULL,
    type              BIGINT NOT NULL,
    shard             INT    NOT NULL,
    requests          BIGINT NOT NULL,
    quota             BIGINT NOT NULL,
    prompt_tokens     BIGINT NOT NULL,
    completion_tokens BIGINT NOT NULL,
    PRIMARY KEY (hour, type, shard)
);

-- Adds the rows a statement inserted (or takes away those it deleted): both triggers name their
-- transition table `changed`.
CREATE FUNCTION logs_hourly_changed() RETURNS TRIGGER LANGUAGE plpgsql AS $$
DECLARE
    sign BIGINT := CASE TG_OP WHEN 'DELETE' THEN -1 ELSE 1 END;
BEGIN
    INSERT INTO logs_hourly AS h (hour, type, shard, requests, quota, prompt_tokens, completion_tokens)
    SELECT created_at - (created_at % 3600 + 3600) % 3600, type, pg_backend_pid() % 16,
           sign * COUNT(*), sign * SUM(quota), sign * SUM(prompt_tokens), sign * SUM(completion_tokens)
    FROM changed GROUP BY 1, 2
    ON CONFLICT (hour, type, shard) DO UPDATE SET
        requests = h.requests + EXCLUDED.requests,
        quota = h.quota + EXCLUDED.quota,
        prompt_tokens = h.prompt_tokens + EXCLUDED.prompt_tokens,
        completion_tokens = h.completion_tokens + EXCLUDED.completion_tokens;
    RETURN NULL;
END $$;

CREATE TRIGGER logs_hourly_insert AFTER INSERT ON logs
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION logs_hourly_changed();
CREATE TRIGGER logs_hourly_delete AFTER DELETE ON logs
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION logs_hourly_changed();

-- A row's hour or figures never change after it is written; an UPDATE would go unnoticed, so
-- none is allowed to touch them.
CREATE FUNCTION logs_hourly_frozen() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the created_at, type and usage figures of a log row never change';
END $$;
CREATE TRIGGER logs_hourly_update BEFORE UPDATE OF created_at, type, quota, prompt_tokens, completion_tokens
    ON logs FOR EACH ROW EXECUTE FUNCTION logs_hourly_frozen();

-- Retention: as before, and the hours of every month dropped leave the roll-up with it.
CREATE OR REPLACE FUNCTION logs_delete_before(before BIGINT) RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
    part RECORD;
    lower_bound BIGINT;
    upper_bound BIGINT;
    n BIGINT;
    total BIGINT := 0;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('logs_partitions'));
    FOR part IN
        SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) AS bound
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'logs'::regclass
    LOOP
        lower_bound := substring(part.bound FROM 'FROM \(''?(-?[0-9]+)''?\)')::BIGINT;
        upper_bound := substring(part.bound FROM 'TO \(''?(-?[0-9]+)''?\)')::BIGINT;
        IF lower_bound IS NOT NULL AND upper_bound IS NOT NULL AND upper_bound <= before THEN
            EXECUTE format('SELECT count(*) FROM %I', part.relname) INTO n;
            EXECUTE format('DROP TABLE %I', part.relname);
            DELETE FROM logs_hourly WHERE hour >= lower_bound AND hour < upper_bound;
            total := total + n;
        END IF;
    END LOOP;
    DELETE FROM logs WHERE created_at < before;
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN total + n;
END $$;

INSERT INTO logs_hourly (hour, type, shard, requests, quota, prompt_tokens, completion_tokens)
SELECT created_at - (created_at % 3600 + 3600) % 3600, type, 0,
       COUNT(*), SUM(quota), SUM(prompt_tokens), SUM(completion_tokens)
FROM logs GROUP BY 1, 2;
