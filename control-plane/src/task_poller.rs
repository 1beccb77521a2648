//! Following relayed tasks to their end: one replica of the fleet at a time (a job lease) asks
//! each channel, in batches, how its unfinished tasks are doing (Midjourney-Proxy's
//! `list-by-condition`, Suno's `fetch`), stores what it says, backs off on tasks that did not
//! move, and refunds a failed task exactly once; tasks that never end are failed and refunded
//! after the timeout.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Value, json};

use crate::api::channels::channel_keys;
use crate::state::AppState;
use crate::store::task_progress::{self, DueTask, FAILURE, MJ, SUCCESS, TaskView};
use crate::store::{self, job_leases};

/// How often the poller wakes up.
pub const TICK: Duration = Duration::from_secs(5);
/// Most tasks looked at per table and tick.
const BATCH: i64 = 500;
/// Longest wait between two looks at a task that does not move.
const MAX_BACKOFF_SECS: i64 = 120;
/// How long a task may stay unfinished before it is failed and refunded (the reference's
/// `TASK_TIMEOUT_MINUTES`, 1440).
pub const TIMEOUT_SECS: i64 = 24 * 3600;
/// How long a provider may take to answer.
const CALL_TIMEOUT: Duration = Duration::from_secs(20);

/// What one tick did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct TickOutcome {
    pub looked: usize,
    pub finished: usize,
    pub refunded: usize,
}

/// Runs the poller on this replica: every [`TICK`], if this replica holds the lease.
pub fn spawn(state: AppState, replica: String) {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(TICK).await;
            let now_ms = store::now().saturating_mul(1000);
            let interval = i64::try_from(TICK.as_millis()).unwrap_or(5000);
            match job_leases::claim(state.db(), "task_poll", &replica, now_ms, interval).await {
                Ok(true) => {
                    let done = tick(&state, store::now()).await;
                    state.metrics().job_ran("task_poll", done.is_ok());
                    if let Err(err) = done {
                        tracing::warn!(error = %err, "task poll failed");
                    }
                }
                Ok(false) => {}
                Err(err) => tracing::warn!(error = %err, "task poll lease failed"),
            }
        }
    });
}

/// Looks at the tasks due at `now` (Unix seconds).
pub async fn tick(state: &AppState, now: i64) -> Result<TickOutcome, sqlx::Error> {
    let db = state.db();
    let due = task_progress::due(db, now, BATCH).await?;
    let mut outcome = TickOutcome::default();
    let mut by_channel: BTreeMap<(String, i64), Vec<DueTask>> = BTreeMap::new();
    for task in due {
        if now.saturating_sub(task.submitted_at) > TIMEOUT_SECS {
            let seen = TaskView {
                status: FAILURE.to_owned(),
                fail_reason: "the task did not finish in time".to_owned(),
                finish_time: finish_time(&task, now),
                ..TaskView::default()
            };
            if task_progress::fail_and_refund(db, &task, &seen, now).await? {
                outcome.refunded += 1;
            }
            outcome.finished += 1;
            continue;
        }
        by_channel
            .entry((task.platform.clone(), task.channel_id))
            .or_default()
            .push(task);
    }
    for ((platform, channel_id), tasks) in by_channel {
        outcome.looked += tasks.len();
        let seen = match ask_channel(state, &platform, channel_id, &tasks).await {
            Ok(seen) => seen,
            Err(why) => {
                tracing::debug!(channel_id, platform, why, "task poll: channel not asked");
                BTreeMap::new()
            }
        };
        for task in &tasks {
            let Some(view) = seen.get(&task.task_id) else {
                task_progress::postpone(db, task, now + backoff(task.polls)).await?;
                continue;
            };
            if view.status == FAILURE {
                if task_progress::fail_and_refund(db, task, view, now).await? {
                    outcome.refunded += 1;
                }
                outcome.finished += 1;
            } else {
                let next = if view.status == SUCCESS {
                    outcome.finished += 1;
                    now
                } else {
                    now + backoff(task.polls)
                };
                let mut view = view.clone();
                if view.status == SUCCESS && view.finish_time == 0 {
                    view.finish_time = finish_time(task, now);
                }
                task_progress::update(db, task, &view, next, now).await?;
            }
        }
    }
    Ok(outcome)
}

/// Seconds until the next look at a task seen `polls` times: 2, 4, 8, … up to two minutes.
fn backoff(polls: i64) -> i64 {
    2i64.saturating_pow(u32::try_from(polls.clamp(0, 16)).unwrap_or(16) + 1)
        .min(MAX_BACKOFF_SECS)
}

/// A finish time in the platform's unit (Midjourney-Proxy counts milliseconds).
fn finish_time(task: &DueTask, now: i64) -> i64 {
    if task.platform == MJ {
        now.saturating_mul(1000)
    } else {
        now
    }
}

/// What the channel says of `tasks`, by provider task id.
async fn ask_channel(
    state: &AppState,
    platform: &str,
    channel_id: i64,
    tasks: &[DueTask],
) -> Result<BTreeMap<String, TaskView>, String> {
    let channel = store::channels::find(state.db(), channel_id)
        .await
        .map_err(|e| e.to_string())?
        .ok_or("the channel is gone")?;
    let key = channel_keys(state, &channel)
        .into_iter()
        .next()
        .ok_or("the channel has no key")?;
    let base = channel.base_url.trim_end_matches('/');
    let ids: Vec<&str> = tasks.iter().map(|t| t.task_id.as_str()).collect();
    let request = if platform == MJ {
        state
            .http()
            .post(format!("{base}/mj/task/list-by-condition"))
            .header("mj-api-secret", key)
            .json(&json!({"ids": ids}))
    } else {
        state
            .http()
            .post(format!("{base}/suno/fetch"))
            .bearer_auth(key)
            .json(&json!({"ids": ids}))
    };
    let response = request
        .timeout(CALL_TIMEOUT)
        .send()
        .await
        .map_err(|e| e.without_url().to_string())?;
    if !response.status().is_success() {
        return Err(format!("answered {}", response.status()));
    }
    let body: Value = response
        .json()
        .await
        .map_err(|e| e.without_url().to_string())?;
    let items = if platform == MJ {
        body.as_array().cloned().unwrap_or_default()
    } else {
        body.get("data")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let mut out = BTreeMap::new();
    for item in &items {
        let view = if platform == MJ {
            mj_view(item)
        } else {
            suno_view(item)
        };
        if !view.task_id.is_empty() {
            out.insert(view.task_id.clone(), view);
        }
    }
    Ok(out)
}

fn text(v: &Value, key: &str, max: usize) -> String {
    let s = match v.get(key) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    };
    crate::domain::usage::storable(&s, max)
}

fn number(v: &Value, key: &str) -> i64 {
    v.get(key).and_then(Value::as_i64).unwrap_or(0).max(0)
}

fn json_text(v: &Value, key: &str) -> String {
    match v.get(key) {
        Some(x) if !x.is_null() => {
            crate::domain::usage::storable(&x.to_string(), crate::domain::usage::MAX_TEXT)
        }
        _ => String::new(),
    }
}

/// A Midjourney-Proxy task object.
fn mj_view(v: &Value) -> TaskView {
    use crate::domain::usage::{MAX_NAME, MAX_TEXT};
    TaskView {
        task_id: text(v, "id", MAX_NAME),
        action: text(v, "action", MAX_NAME),
        prompt: text(v, "prompt", MAX_TEXT),
        prompt_en: text(v, "promptEn", MAX_TEXT),
        description: text(v, "description", MAX_TEXT),
        status: normalize_status(&text(v, "status", MAX_NAME)),
        progress: text(v, "progress", MAX_NAME),
        fail_reason: text(v, "failReason", MAX_TEXT),
        submit_time: number(v, "submitTime"),
        start_time: number(v, "startTime"),
        finish_time: number(v, "finishTime"),
        image_url: text(v, "imageUrl", MAX_TEXT),
        buttons: json_text(v, "buttons"),
        properties: json_text(v, "properties"),
        ..TaskView::default()
    }
}

/// A Suno task object.
fn suno_view(v: &Value) -> TaskView {
    use crate::domain::usage::{MAX_NAME, MAX_TEXT};
    TaskView {
        task_id: text(v, "task_id", MAX_NAME),
        action: text(v, "action", MAX_NAME),
        status: normalize_status(&text(v, "status", MAX_NAME)),
        progress: text(v, "progress", MAX_NAME),
        fail_reason: text(v, "fail_reason", MAX_TEXT),
        submit_time: number(v, "submit_time"),
        start_time: number(v, "start_time"),
        finish_time: number(v, "finish_time"),
        data: json_text(v, "data"),
        ..TaskView::default()
    }
}

/// Provider statuses in upper case; `FAILED`/`FAIL` read as [`FAILURE`].
fn normalize_status(raw: &str) -> String {
    let s = raw.trim().to_ascii_uppercase();
    match s.as_str() {
        "FAILED" | "FAIL" | "ERROR" => FAILURE.to_owned(),
        "SUCCEEDED" | "COMPLETE" | "COMPLETED" => SUCCESS.to_owned(),
        _ => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_to_two_minutes() {
        assert_eq!(backoff(0), 2);
        assert_eq!(backoff(1), 4);
        assert_eq!(backoff(5), 64);
        assert_eq!(backoff(6), 120);
        assert_eq!(backoff(1000), 120);
        assert_eq!(backoff(-3), 2);
    }

    #[test]
    fn provider_tasks_are_read_defensively() {
        let v = mj_view(
            &json!({"id": 17, "status": "failed", "failReason": "banned",
            "buttons": [{"customId": "x"}], "submitTime": -5}),
        );
        assert_eq!(v.task_id, "17");
        assert_eq!(v.status, FAILURE);
        assert_eq!(v.submit_time, 0);
        assert_eq!(v.buttons, r#"[{"customId":"x"}]"#);
        let s = suno_view(
            &json!({"task_id": "s-1", "status": "SUCCESS", "data": [{"audio_url": "u"}]}),
        );
        assert_eq!(s.status, SUCCESS);
        assert!(s.data.contains("audio_url"));
    }
}
