-- Asynchronous jobs relayed to providers: drawing jobs (Midjourney-style) and generic tasks
-- (music, video). Gateways create and update them; users and admins read them in the console
-- (/midjourney, /task).
CREATE TABLE midjourneys (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    code        INTEGER NOT NULL DEFAULT 0,
    user_id     INTEGER NOT NULL DEFAULT 0,
    action      TEXT   NOT NULL DEFAULT '',
    mj_id       TEXT   NOT NULL DEFAULT '',
    prompt      TEXT   NOT NULL DEFAULT '',
    prompt_en   TEXT   NOT NULL DEFAULT '',
    description TEXT   NOT NULL DEFAULT '',
    state       TEXT   NOT NULL DEFAULT '',
    submit_time INTEGER NOT NULL DEFAULT 0,
    start_time  INTEGER NOT NULL DEFAULT 0,
    finish_time INTEGER NOT NULL DEFAULT 0,
    image_url   TEXT   NOT NULL DEFAULT '',
    status      TEXT   NOT NULL DEFAULT '',
    progress    TEXT   NOT NULL DEFAULT '',
    fail_reason TEXT   NOT NULL DEFAULT '',
    channel_id  INTEGER NOT NULL DEFAULT 0,
    quota       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX idx_midjourneys_user ON midjourneys (user_id, id);
CREATE INDEX idx_midjourneys_mj_id ON midjourneys (mj_id);
CREATE INDEX idx_midjourneys_submit ON midjourneys (submit_time);

CREATE TABLE tasks (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at  INTEGER NOT NULL DEFAULT 0,
    updated_at  INTEGER NOT NULL DEFAULT 0,
    task_id     TEXT   NOT NULL DEFAULT '',
    platform    TEXT   NOT NULL DEFAULT '',
    user_id     INTEGER NOT NULL DEFAULT 0,
    channel_id  INTEGER NOT NULL DEFAULT 0,
    quota       INTEGER NOT NULL DEFAULT 0,
    action      TEXT   NOT NULL DEFAULT '',
    status      TEXT   NOT NULL DEFAULT '',
    fail_reason TEXT   NOT NULL DEFAULT '',
    submit_time INTEGER NOT NULL DEFAULT 0,
    start_time  INTEGER NOT NULL DEFAULT 0,
    finish_time INTEGER NOT NULL DEFAULT 0,
    progress    TEXT   NOT NULL DEFAULT '',
    data        TEXT   NOT NULL DEFAULT ''
);
CREATE INDEX idx_tasks_user ON tasks (user_id, id);
CREATE INDEX idx_tasks_task_id ON tasks (task_id);
CREATE INDEX idx_tasks_submit ON tasks (submit_time);
