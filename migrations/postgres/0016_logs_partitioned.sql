-- Logs partitioned by month of `created_at` (UTC), so that retention drops whole months and
-- the console's range queries read only the months they name. Records dated outside every
-- month's partition land in `logs_default`; `logs_add_month` moves them into a month's
-- partition when it is created. The unique request id now includes `created_at` (a partitioned
-- table's unique keys must hold the partition key): a gateway resends a record unchanged, so
-- (request_id, created_at) still finds every redelivery.

ALTER TABLE logs RENAME TO logs_unpartitioned;
ALTER TABLE logs_unpartitioned RENAME CONSTRAINT logs_pkey TO logs_unpartitioned_pkey;
ALTER SEQUENCE logs_id_seq OWNED BY NONE;
DROP INDEX idx_logs_created_type;
DROP INDEX idx_logs_user_id;
DROP INDEX idx_logs_username;
DROP INDEX idx_logs_model;
DROP INDEX idx_logs_token_name;
DROP INDEX idx_logs_channel;
DROP INDEX idx_logs_request_id;

CREATE TABLE logs (
    id                BIGINT NOT NULL DEFAULT nextval('logs_id_seq'),
    user_id           BIGINT NOT NULL DEFAULT 0,
    created_at        BIGINT NOT NULL,
    type              BIGINT NOT NULL DEFAULT 0,
    content           TEXT   NOT NULL DEFAULT '',
    username          TEXT   NOT NULL DEFAULT '',
    token_name        TEXT   NOT NULL DEFAULT '',
    model_name        TEXT   NOT NULL DEFAULT '',
    quota             BIGINT NOT NULL DEFAULT 0,
    prompt_tokens     BIGINT NOT NULL DEFAULT 0,
    completion_tokens BIGINT NOT NULL DEFAULT 0,
    use_time          BIGINT NOT NULL DEFAULT 0,
    is_stream         BIGINT NOT NULL DEFAULT 0,
    channel_id        BIGINT NOT NULL DEFAULT 0,
    token_id          BIGINT NOT NULL DEFAULT 0,
    "group"           TEXT   NOT NULL DEFAULT '',
    ip                TEXT   NOT NULL DEFAULT '',
    request_id        TEXT,
    other             TEXT   NOT NULL DEFAULT '',
    CONSTRAINT logs_pkey PRIMARY KEY (id, created_at)
) PARTITION BY RANGE (created_at);
ALTER SEQUENCE logs_id_seq OWNED BY logs.id;
CREATE TABLE logs_default PARTITION OF logs DEFAULT;

-- Every console query names a time range (the default is today) and pages newest first.
CREATE UNIQUE INDEX idx_logs_request_id ON logs (request_id, created_at);
-- (type and the summed columns ride along so that totals over a range read the index alone)
CREATE INDEX idx_logs_created_sums ON logs (created_at) INCLUDE (type, quota, prompt_tokens, completion_tokens);
CREATE INDEX idx_logs_user_created ON logs (user_id, created_at);
CREATE INDEX idx_logs_username_created ON logs (username, created_at);
CREATE INDEX idx_logs_token_created ON logs (token_name, created_at);
CREATE INDEX idx_logs_channel_created ON logs (channel_id, created_at);

-- Creates the partition of the UTC month holding `at` unless it exists, moving any rows of
-- that month out of the default partition first. Safe to call from several control planes.
CREATE FUNCTION logs_add_month(at BIGINT) RETURNS VOID LANGUAGE plpgsql AS $$
DECLARE
    month_start TIMESTAMP := date_trunc('month', to_timestamp(at) AT TIME ZONE 'UTC');
    lower_bound BIGINT := extract(epoch FROM month_start AT TIME ZONE 'UTC')::BIGINT;
    upper_bound BIGINT := extract(epoch FROM (month_start + INTERVAL '1 month') AT TIME ZONE 'UTC')::BIGINT;
    part TEXT := 'logs_' || to_char(month_start, 'YYYY_MM');
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('logs_partitions'));
    IF to_regclass(part) IS NOT NULL THEN
        RETURN;
    END IF;
    EXECUTE format('CREATE TABLE %I (LIKE logs INCLUDING DEFAULTS)', part);
    EXECUTE format(
        'WITH moved AS (DELETE FROM logs_default WHERE created_at >= %s AND created_at < %s RETURNING *) '
        'INSERT INTO %I SELECT * FROM moved', lower_bound, upper_bound, part);
    EXECUTE format('ALTER TABLE logs ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)',
        part, lower_bound, upper_bound);
END $$;

-- Deletes the records created before `before`: whole months are dropped, the rest deleted.
-- Returns how many records went.
CREATE FUNCTION logs_delete_before(before BIGINT) RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
    part RECORD;
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
        upper_bound := substring(part.bound FROM 'TO \(''?(-?[0-9]+)''?\)')::BIGINT;
        IF upper_bound IS NOT NULL AND upper_bound <= before THEN
            EXECUTE format('SELECT count(*) FROM %I', part.relname) INTO n;
            EXECUTE format('DROP TABLE %I', part.relname);
            total := total + n;
        END IF;
    END LOOP;
    DELETE FROM logs WHERE created_at < before;
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN total + n;
END $$;

-- Months of the existing records (sane dates only; the rest go to the default partition), this
-- month and the next two.
DO $$
DECLARE
    m BIGINT;
BEGIN
    FOR m IN
        SELECT DISTINCT extract(epoch FROM date_trunc('month', to_timestamp(created_at) AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')::BIGINT
        FROM logs_unpartitioned
        WHERE created_at >= 946684800 AND created_at < extract(epoch FROM now() + INTERVAL '3 months')
    LOOP
        PERFORM logs_add_month(m);
    END LOOP;
    FOR i IN 0..2 LOOP
        PERFORM logs_add_month(extract(epoch FROM now() + make_interval(months => i))::BIGINT);
    END LOOP;
END $$;

INSERT INTO logs SELECT * FROM logs_unpartitioned;
DROP TABLE logs_unpartitioned;
