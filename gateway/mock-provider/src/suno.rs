//! Stand-in for a Suno task API (channel type 36): `POST /suno/submit/{music,lyrics}`,
//! `POST /suno/fetch` (by ids) and `GET /suno/fetch/{id}`, with the key in `Authorization:
//! Bearer …`. A task advances one step each time it is looked at: submitted, in progress
//! (50%), then success (clips with audio URLs, or the lyrics) or, when the prompt contains
//! `fail`, failure with a reason.

use std::collections::HashMap;

use bytes::Bytes;
use http::{HeaderMap, Method, StatusCode};
use hyper::Response;
use serde_json::{Value, json};

use crate::{MockBody, SharedStats, json_response, lock};

/// Most tasks kept.
const MAX_TASKS: usize = 100_000;

/// The tasks submitted so far.
#[derive(Debug, Default)]
pub(crate) struct SunoState {
    tasks: HashMap<String, SunoTask>,
    next: u64,
}

#[derive(Debug, Clone)]
struct SunoTask {
    id: String,
    action: &'static str,
    prompt: String,
    submit_time: i64,
    looks: u32,
    fails: bool,
}

/// Whether a path belongs to this stand-in.
pub(crate) fn owns(path: &str) -> bool {
    path.starts_with("/suno/")
}

/// Answers one Suno request.
pub(crate) fn handle(
    method: &Method,
    path: &str,
    headers: &HeaderMap,
    body: &Bytes,
    stats: &SharedStats,
) -> Response<MockBody> {
    let bearer = headers
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    if bearer.trim().is_empty() {
        return json_response(
            StatusCode::UNAUTHORIZED,
            &json!({"code": "unauthorized", "message": "missing key", "data": null}),
        );
    }
    let mut st = lock(stats);
    *st.suno_calls.entry(path.to_owned()).or_default() += 1;
    let state = &mut st.suno;
    let body: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    match (method.as_str(), path) {
        ("POST", "/suno/submit/music") => submit(state, "MUSIC", &body),
        ("POST", "/suno/submit/lyrics") => submit(state, "LYRICS", &body),
        ("POST", "/suno/fetch") => {
            let tasks: Vec<Value> = crate::midjourney::body_ids(&body)
                .filter_map(|id| state.tasks.get_mut(id).map(look))
                .collect();
            ok(Value::Array(tasks))
        }
        ("GET", _) => match path
            .strip_prefix("/suno/fetch/")
            .and_then(|id| state.tasks.get_mut(id))
        {
            Some(task) => ok(look(task)),
            None => json_response(
                StatusCode::NOT_FOUND,
                &json!({"code": "not_found", "message": "no such task", "data": null}),
            ),
        },
        _ => json_response(
            StatusCode::NOT_FOUND,
            &json!({"code": "not_found", "message": "no such route", "data": null}),
        ),
    }
}

fn ok(data: Value) -> Response<MockBody> {
    json_response(
        StatusCode::OK,
        &json!({"code": "success", "message": "", "data": data}),
    )
}

fn submit(state: &mut SunoState, action: &'static str, body: &Value) -> Response<MockBody> {
    let prompt = ["prompt", "gpt_description_prompt"]
        .iter()
        .find_map(|k| {
            body.get(*k)
                .and_then(Value::as_str)
                .filter(|s| !s.trim().is_empty())
        })
        .unwrap_or("");
    if prompt.is_empty() {
        return json_response(
            StatusCode::BAD_REQUEST,
            &json!({"code": "invalid_request", "message": "prompt or gpt_description_prompt is required", "data": null}),
        );
    }
    if state.tasks.len() >= MAX_TASKS {
        state.tasks.clear();
    }
    state.next += 1;
    let id = format!("suno-{:08}", state.next);
    state.tasks.insert(
        id.clone(),
        SunoTask {
            id: id.clone(),
            action,
            prompt: prompt.to_owned(),
            submit_time: now(),
            looks: 0,
            fails: prompt.contains("fail"),
        },
    );
    ok(json!(id))
}

/// The task as the API shows it, advanced one step.
fn look(task: &mut SunoTask) -> Value {
    let shown = task.looks;
    task.looks = (task.looks + 1).min(2);
    let (status, progress) = match (shown, task.fails) {
        (0, _) => ("SUBMITTED", "0%"),
        (1, _) => ("IN_PROGRESS", "50%"),
        (_, true) => ("FAILURE", "100%"),
        (_, false) => ("SUCCESS", "100%"),
    };
    let success = shown >= 2 && !task.fails;
    let data = if !success {
        Value::Null
    } else if task.action == "LYRICS" {
        json!({"title": "Mock song", "text": format!("[Verse]\n{}", task.prompt)})
    } else {
        json!(
            [0, 1]
                .iter()
                .map(
                    |i| json!({"id": format!("{}-clip{i}", task.id), "title": "Mock song",
                "audio_url": format!("https://cdn.mock.example/suno/{}-{i}.mp3", task.id),
                "image_url": format!("https://cdn.mock.example/suno/{}-{i}.jpg", task.id),
                "status": "complete", "duration": 120.5})
                )
                .collect::<Vec<_>>()
        )
    };
    json!({
        "task_id": task.id,
        "action": task.action,
        "status": status,
        "progress": progress,
        "fail_reason": if shown >= 2 && task.fails { "mock failure: the prompt was refused" } else { "" },
        "submit_time": task.submit_time,
        "start_time": if shown >= 1 { task.submit_time + 1 } else { 0 },
        "finish_time": if shown >= 2 { task.submit_time + 2 } else { 0 },
        "data": data,
    })
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn music_tasks_finish_with_clips_or_fail() {
        let mut state = SunoState::default();
        submit(&mut state, "MUSIC", &json!({"prompt": "a song"}));
        submit(&mut state, "MUSIC", &json!({"prompt": "fail please"}));
        let mut seen: Vec<Value> = Vec::new();
        for task in state.tasks.values_mut() {
            look(task);
            look(task);
            seen.push(look(task));
        }
        seen.sort_by_key(|v| v["task_id"].as_str().unwrap_or("").to_owned());
        assert_eq!(seen[0]["status"], "SUCCESS");
        assert_eq!(seen[0]["data"].as_array().map(Vec::len), Some(2));
        assert_eq!(seen[1]["status"], "FAILURE");
        assert!(submit(&mut state, "LYRICS", &json!({})).status() == StatusCode::BAD_REQUEST);
    }
}
