//! Stand-in for a Midjourney-Proxy server (channel types 2 and 5): task submission
//! (`POST /mj/submit/{action}`), the task list by ids (`POST /mj/task/list-by-condition`) and
//! one task (`GET /mj/task/{id}/fetch`, `GET /mj/task/{id}/image-seed`), checked as the proxy
//! checks them: the `mj-api-secret` header, a prompt for `imagine`, an existing task and a
//! button id for `action`. A task advances one step each time it is looked at: submitted,
//! in progress (50%), then success (an image URL and its buttons) or, when its prompt contains
//! `fail`, failure with a reason.

use std::collections::HashMap;

use bytes::Bytes;
use http::{HeaderMap, Method, StatusCode};
use hyper::Response;
use serde_json::{Value, json};

use crate::{MockBody, SharedStats, json_response, lock};

/// Submissions the stand-in takes (the path after `/mj/submit/`).
const ACTIONS: [&str; 12] = [
    "insight-face",
    "imagine",
    "action",
    "blend",
    "describe",
    "modal",
    "shorten",
    "change",
    "simple-change",
    "upload-discord-images",
    "video",
    "edits",
];
/// Most tasks kept.
const MAX_TASKS: usize = 100_000;

/// The tasks submitted so far.
#[derive(Debug, Default)]
pub(crate) struct MjState {
    tasks: HashMap<String, MjTask>,
    next: u64,
}

#[derive(Debug, Clone)]
struct MjTask {
    id: String,
    /// Where its image is served (`http://{the mock}`): `/__mj_image/{id}.png`.
    image_base: String,
    action: &'static str,
    prompt: String,
    submit_time: i64,
    /// Times looked at: 0 submitted, 1 in progress, 2 finished.
    looks: u32,
    fails: bool,
}

/// Whether a path belongs to this stand-in.
pub(crate) fn owns(path: &str) -> bool {
    path.starts_with("/mj/") || path.starts_with("/__mj_image/")
}

/// A finished drawing's image (the CDN of the real service): any id gets the same PNG.
fn image() -> Response<MockBody> {
    use base64::Engine;
    let png = base64::engine::general_purpose::STANDARD
        .decode(crate::WORKER_PNG_BASE64)
        .unwrap_or_default();
    crate::bytes_response(StatusCode::OK, "image/png", Bytes::from(png))
}

/// Answers one Midjourney-Proxy request.
pub(crate) fn handle(
    method: &Method,
    path: &str,
    headers: &HeaderMap,
    body: &Bytes,
    stats: &SharedStats,
) -> Response<MockBody> {
    if path.starts_with("/__mj_image/") {
        return image();
    }
    let secret = headers
        .get("mj-api-secret")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if secret.is_empty() {
        return json_response(
            StatusCode::UNAUTHORIZED,
            &json!({"code": 401, "description": "mj-api-secret is missing or wrong"}),
        );
    }
    let mut st = lock(stats);
    *st.mj_calls.entry(path.to_owned()).or_default() += 1;
    let state = &mut st.mj;
    let body: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let submitted = path
        .strip_prefix("/mj/submit/")
        .or_else(|| (path == "/mj/insight-face/swap").then_some("insight-face"));
    if let Some(action) = submitted {
        if method != Method::POST {
            return not_found();
        }
        let host = headers
            .get(http::header::HOST)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("127.0.0.1");
        let answer = submit(state, action, &body, &format!("http://{host}"));
        st.mj_last_submit = Some(body);
        return answer;
    }
    if path == "/mj/task/list-by-condition" && method == Method::POST {
        let tasks: Vec<Value> = body_ids(&body)
            .filter_map(|id| state.tasks.get_mut(id).map(look))
            .collect();
        return json_response(StatusCode::OK, &Value::Array(tasks));
    }
    if let Some(rest) = path.strip_prefix("/mj/task/") {
        if let Some(id) = rest.strip_suffix("/fetch") {
            return match state.tasks.get_mut(id) {
                Some(task) => json_response(StatusCode::OK, &look(task)),
                None => json_response(StatusCode::NOT_FOUND, &Value::Null),
            };
        }
        if let Some(id) = rest.strip_suffix("/image-seed") {
            return match state.tasks.get(id) {
                Some(task) if task.looks >= 2 && !task.fails => json_response(
                    StatusCode::OK,
                    &json!({"code": 1, "description": "success", "result": seed(&task.id)}),
                ),
                Some(_) => json_response(
                    StatusCode::OK,
                    &json!({"code": 4, "description": "the task has no image yet"}),
                ),
                None => json_response(
                    StatusCode::OK,
                    &json!({"code": 3, "description": "no such task"}),
                ),
            };
        }
    }
    not_found()
}

/// The task ids of a lookup body (`{"ids": [...]}`), for both task stand-ins.
pub(crate) fn body_ids(body: &Value) -> impl Iterator<Item = &str> {
    body.get("ids")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

fn not_found() -> Response<MockBody> {
    json_response(
        StatusCode::NOT_FOUND,
        &json!({"code": 404, "description": "no such route"}),
    )
}

fn submit(state: &mut MjState, action: &str, body: &Value, image_base: &str) -> Response<MockBody> {
    let Some(action) = ACTIONS.iter().copied().find(|a| *a == action) else {
        return not_found();
    };
    let text = |k: &str| body.get(k).and_then(Value::as_str).unwrap_or("").trim();
    let prompt = match action {
        "imagine" | "shorten" => {
            if text("prompt").is_empty() {
                return refused(4, "prompt is required");
            }
            text("prompt").to_owned()
        }
        "action" | "modal" => {
            let Some(parent) = state.tasks.get(text("taskId")) else {
                return refused(3, "no such task");
            };
            if text("customId").is_empty() && action == "action" {
                return refused(4, "customId is required");
            }
            parent.prompt.clone()
        }
        "blend" => {
            let images = body
                .get("base64Array")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            if images < 2 {
                return refused(4, "blend needs 2 to 5 images");
            }
            String::new()
        }
        "describe" => {
            if text("base64").is_empty() {
                return refused(4, "base64 is required");
            }
            String::new()
        }
        "insight-face" => {
            if text("sourceBase64").is_empty() || text("targetBase64").is_empty() {
                return refused(4, "sourceBase64 and targetBase64 are required");
            }
            String::new()
        }
        _ => text("prompt").to_owned(),
    };
    if state.tasks.len() >= MAX_TASKS {
        state.tasks.clear();
    }
    state.next += 1;
    let id = format!("{}", 1_700_000_000_000_000u64 + state.next);
    let fails = prompt.contains("fail");
    state.tasks.insert(
        id.clone(),
        MjTask {
            id: id.clone(),
            image_base: image_base.to_owned(),
            action,
            prompt,
            submit_time: now_ms(),
            looks: 0,
            fails,
        },
    );
    json_response(
        StatusCode::OK,
        &json!({"code": 1, "description": "Submit success", "result": id,
                "properties": {"discordInstanceId": "mock-instance"}}),
    )
}

fn refused(code: u32, description: &str) -> Response<MockBody> {
    json_response(
        StatusCode::OK,
        &json!({"code": code, "description": description, "result": null}),
    )
}

/// The task as the proxy shows it, advanced one step.
fn look(task: &mut MjTask) -> Value {
    let shown = task.looks;
    task.looks = (task.looks + 1).min(2);
    let (status, progress) = match (shown, task.fails) {
        (0, _) => ("SUBMITTED", "0%"),
        (1, _) => ("IN_PROGRESS", "50%"),
        (_, true) => ("FAILURE", ""),
        (_, false) => ("SUCCESS", "100%"),
    };
    let finished = shown >= 2;
    let success = finished && !task.fails;
    let buttons: Vec<Value> = if success {
        (1..=4)
            .map(|i| json!({"customId": format!("MJ::JOB::upsample::{i}::{}", task.id), "label": format!("U{i}"), "type": 2, "style": 2, "emoji": ""}))
            .chain((1..=4).map(|i| json!({"customId": format!("MJ::JOB::variation::{i}::{}", task.id), "label": format!("V{i}"), "type": 2, "style": 2, "emoji": ""})))
            .collect()
    } else {
        Vec::new()
    };
    json!({
        "id": task.id,
        "action": task.action.to_ascii_uppercase().replace('-', "_"),
        "prompt": task.prompt,
        "promptEn": task.prompt,
        "description": "",
        "state": "",
        "submitTime": task.submit_time,
        "startTime": if shown >= 1 { task.submit_time + 1000 } else { 0 },
        "finishTime": if finished { task.submit_time + 2000 } else { 0 },
        "imageUrl": if success { format!("{}/__mj_image/{}.png", task.image_base, task.id) } else { String::new() },
        "status": status,
        "progress": progress,
        "failReason": if finished && task.fails { "mock failure: the prompt was refused" } else { "" },
        "buttons": buttons,
        "properties": {"finalPrompt": task.prompt},
    })
}

fn seed(id: &str) -> String {
    id.bytes()
        .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)))
        .to_string()
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_advances_each_time_it_is_looked_at() {
        let mut state = MjState::default();
        let ok = submit(
            &mut state,
            "imagine",
            &json!({"prompt": "a cat"}),
            "http://m",
        );
        assert_eq!(ok.status(), StatusCode::OK);
        let id = state.tasks.keys().next().cloned().unwrap_or_default();
        let task = state.tasks.get_mut(&id);
        let Some(task) = task else { panic!("no task") };
        assert_eq!(look(task)["status"], "SUBMITTED");
        assert_eq!(look(task)["progress"], "50%");
        let done = look(task);
        assert_eq!(done["status"], "SUCCESS");
        assert!(done["imageUrl"].as_str().unwrap_or("").ends_with(".png"));
        assert_eq!(done["buttons"].as_array().map(Vec::len), Some(8));
        submit(
            &mut state,
            "imagine",
            &json!({"prompt": "please fail"}),
            "http://m",
        );
        let failing = state
            .tasks
            .values_mut()
            .find(|t| t.fails)
            .map(|t| {
                look(t);
                look(t);
                look(t)
            })
            .unwrap_or_default();
        assert_eq!(failing["status"], "FAILURE");
        assert!(!failing["failReason"].as_str().unwrap_or("").is_empty());
    }
}
