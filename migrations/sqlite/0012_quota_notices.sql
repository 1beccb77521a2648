-- Quota reminders sent: a user's row exists from the reminder sent when their balance fell under
-- their warning threshold until a usage batch finds it back above, so each crossing is notified
-- once, on whichever control-plane replica ingests the batch.
CREATE TABLE quota_notices (
    user_id INTEGER PRIMARY KEY,
    notified_at INTEGER NOT NULL DEFAULT 0
);
