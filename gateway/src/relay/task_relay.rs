//! Asynchronous task APIs: Midjourney-Proxy (`/mj/*`, also under a `/{mode}` prefix such as
//! `/mj-fast/mj/…`; channel types 2 and 5) and Suno (`/suno/*`, type 36). A submission is
//! priced by its action (`mj_imagine`, `mj_upscale`, …, `suno_music`), forwarded to a channel
//! of its platform with the `Mj*` options applied, and charged only when the provider accepted
//! the task, which then goes to the control plane with the usage record. Fetches are answered
//! from the control plane's records of the caller's own tasks: a task id of another user finds
//! nothing, and the provider is never asked with it.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use http::Method;
use pingora::proxy::Session;
use serde_json::{Value, json};

use super::post::{self, AttemptError};
use super::{Failure, Relay, Trace, admission, respond};
use crate::billing;
use crate::config::{ChannelEntry, Snapshot};
use crate::error::{GatewayError, RequestError, RouteError, UpstreamError};
use crate::routing;
use crate::upstream;
use adapters::openai::Usage;
use adapters::provider::Protocol;

/// The platform of a task API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    Mj,
    Suno,
}

impl Platform {
    /// Its name in task records.
    pub fn name(self) -> &'static str {
        match self {
            Platform::Mj => "mj",
            Platform::Suno => "suno",
        }
    }

    fn serves(self, channel_type: i32) -> bool {
        match self {
            Platform::Mj => channel_type == 2 || channel_type == 5,
            Platform::Suno => channel_type == 36,
        }
    }
}

/// What a task call does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// `POST …/submit/{action}`.
    Submit(String),
    /// `GET /mj/task/{id}/fetch`, `GET /suno/fetch/{id}`.
    Fetch(String),
    /// `POST /mj/task/list-by-condition`, `POST /suno/fetch` (ids in the body).
    List,
    /// `GET /mj/image/{id}`: a finished drawing's image, through the gateway (no key).
    Image(String),
    /// `GET /mj/task/{id}/image-seed`: asked of the channel the caller's task ran at.
    ImageSeed(String),
}

/// A recognised task call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskCall {
    pub platform: Platform,
    pub op: Op,
    /// The path to call at the channel (without a mode prefix).
    pub path: String,
}

impl TaskCall {
    /// The metrics and log label.
    pub fn label(&self) -> &'static str {
        match (self.platform, &self.op) {
            (Platform::Mj, Op::Submit(_)) => "mj_submit",
            (Platform::Mj, Op::Image(_)) => "mj_image",
            (Platform::Mj, _) => "mj_fetch",
            (Platform::Suno, Op::Submit(_)) => "suno_submit",
            (Platform::Suno, _) => "suno_fetch",
        }
    }
}

const MJ_SUBMITS: [&str; 11] = [
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

/// The Midjourney part of a path: `/mj/…`, or `/{mode}/mj/…` with a mode `mj-fast`,
/// `mj-relax`, `mj-turbo` (`mj-` and letters: never `/api/mj/…`, the console's drawing log).
fn mj_path(path: &str) -> Option<&str> {
    if path.starts_with("/mj/") {
        return Some(path);
    }
    let rest = path.strip_prefix('/')?;
    let (mode, tail) = rest.split_once('/')?;
    let valid_mode = mode.len() <= 16
        && mode
            .strip_prefix("mj-")
            .is_some_and(|m| !m.is_empty() && m.bytes().all(|b| b.is_ascii_lowercase()));
    (valid_mode && tail.starts_with("mj/")).then(|| &path[mode.len() + 1..])
}

/// Whether `path` belongs to a task API (relayed here, never forwarded to the console).
pub fn serves(path: &str) -> bool {
    mj_path(path).is_some() || path.starts_with("/suno/")
}

/// The task call of a request, if it is one.
pub fn recognise(method: &Method, path: &str) -> Option<TaskCall> {
    let segment_ok = |s: &str| {
        !s.is_empty()
            && s.len() <= 128
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    if let Some(mj) = mj_path(path) {
        let call = |op| TaskCall {
            platform: Platform::Mj,
            op,
            path: mj.to_owned(),
        };
        if *method == Method::POST {
            if let Some(action) = mj.strip_prefix("/mj/submit/")
                && MJ_SUBMITS.contains(&action)
            {
                return Some(call(Op::Submit(action.to_owned())));
            }
            if mj == "/mj/insight-face/swap" {
                return Some(call(Op::Submit("swap_face".to_owned())));
            }
            return (mj == "/mj/task/list-by-condition").then(|| call(Op::List));
        }
        if *method == Method::GET {
            if let Some(id) = mj.strip_prefix("/mj/image/") {
                return segment_ok(id).then(|| call(Op::Image(id.to_owned())));
            }
            let task = mj.strip_prefix("/mj/task/")?;
            if let Some(id) = task.strip_suffix("/image-seed") {
                return segment_ok(id).then(|| call(Op::ImageSeed(id.to_owned())));
            }
            let id = task.strip_suffix("/fetch")?;
            return segment_ok(id).then(|| call(Op::Fetch(id.to_owned())));
        }
        return None;
    }
    let suno = |op| TaskCall {
        platform: Platform::Suno,
        op,
        path: path.to_owned(),
    };
    match (method.as_str(), path) {
        ("POST", "/suno/submit/music") => Some(suno(Op::Submit("music".into()))),
        ("POST", "/suno/submit/lyrics") => Some(suno(Op::Submit("lyrics".into()))),
        ("POST", "/suno/fetch") => Some(suno(Op::List)),
        ("GET", _) => {
            let id = path.strip_prefix("/suno/fetch/")?;
            segment_ok(id).then(|| suno(Op::Fetch(id.to_owned())))
        }
        _ => None,
    }
}

/// The priced model and the recorded action of a submission.
fn model_and_action(platform: Platform, action: &str, body: &Value) -> (String, String) {
    if platform == Platform::Suno {
        return (format!("suno_{action}"), action.to_ascii_uppercase());
    }
    let fixed = |a: &str| (format!("mj_{a}"), a.to_ascii_uppercase());
    match action {
        "imagine" | "blend" | "describe" | "shorten" | "modal" | "video" | "edits" => fixed(action),
        "upload-discord-images" => fixed("upload"),
        "swap_face" => ("swap_face".to_owned(), "SWAP_FACE".to_owned()),
        "change" => {
            let kind = body
                .get("action")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_ascii_lowercase();
            button_action(&kind)
        }
        "simple-change" => {
            // `"content": "<task id> U1"`: U upscale, V variation, R reroll.
            let content = body.get("content").and_then(Value::as_str).unwrap_or("");
            let op = content.split_whitespace().nth(1).unwrap_or("");
            let kind = match op.chars().next() {
                Some('U' | 'u') => "upscale",
                Some('V' | 'v') => "variation",
                Some('R' | 'r') => "reroll",
                _ => "",
            };
            button_action(kind)
        }
        // `action`: what the button's custom id asks for.
        _ => {
            let custom = body
                .get("customId")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_ascii_lowercase();
            let kind = [
                ("high_variation", "high_variation"),
                ("low_variation", "low_variation"),
                ("upsample", "upscale"),
                ("variation", "variation"),
                ("reroll", "reroll"),
                ("customzoom", "custom_zoom"),
                ("outpaint", "zoom"),
                ("inpaint", "inpaint"),
                ("pan_", "pan"),
            ]
            .iter()
            .find(|(needle, _)| custom.contains(needle))
            .map_or("", |(_, kind)| kind);
            button_action(kind)
        }
    }
}

fn button_action(kind: &str) -> (String, String) {
    match kind {
        "upscale" | "variation" | "reroll" | "zoom" | "custom_zoom" | "inpaint" | "pan"
        | "high_variation" | "low_variation" => (format!("mj_{kind}"), kind.to_ascii_uppercase()),
        _ => ("mj_action".to_owned(), "ACTION".to_owned()),
    }
}

/// The `Mj*` options that shape a submission.
#[derive(Debug, Clone, Copy, Default)]
struct MjShaping {
    notify: bool,
    account_filter: bool,
    mode_clear: bool,
}

/// The submission as it goes upstream, with the `Mj*` options applied: callbacks and account
/// filters only when allowed, speed flags cleared from the prompt when asked.
fn shaped_body(opts: MjShaping, mut body: Value) -> Value {
    if let Some(map) = body.as_object_mut() {
        if !opts.notify {
            map.remove("notifyHook");
        }
        if !opts.account_filter {
            map.remove("accountFilter");
        }
        if opts.mode_clear
            && let Some(Value::String(prompt)) = map.get_mut("prompt")
        {
            let cleared: Vec<&str> = prompt
                .split_whitespace()
                .filter(|w| !matches!(*w, "--fast" | "--relax" | "--turbo"))
                .collect();
            *prompt = cleared.join(" ");
        }
    }
    body
}

/// Relays one task call.
pub async fn relay(
    r: &Relay,
    session: &mut Session,
    snap: &Snapshot,
    trace: &mut Trace,
    call: TaskCall,
) -> Result<(), Failure> {
    if let Op::Image(id) = &call.op {
        return image(r, session, trace, id).await;
    }
    let caller = r.authenticate(session, snap, trace)?;
    match &call.op {
        // Answered above, with no key.
        Op::Image(_) => Ok(()),
        Op::ImageSeed(id) => image_seed(r, session, snap, trace, caller.user.id, id).await,
        Op::Submit(action) => submit(r, session, snap, trace, &call, action, caller).await,
        Op::Fetch(id) => {
            let found = lookup(r, caller.user.id, call.platform, vec![id.clone()]).await?;
            let Some(task) = found.into_iter().next() else {
                let body = match call.platform {
                    Platform::Mj => {
                        json!({"code": 4, "description": "task_no_found", "result": null})
                    }
                    Platform::Suno => {
                        json!({"code": "task_no_found", "message": "task not found", "data": null})
                    }
                };
                return answer(session, trace, 404, &body).await;
            };
            let body = match call.platform {
                Platform::Mj => mj_task(&task, &snap.options),
                Platform::Suno => {
                    json!({"code": "success", "message": "", "data": suno_task(&task)})
                }
            };
            answer(session, trace, 200, &body).await
        }
        Op::List => {
            let raw = post::read_json_body(session, snap, trace).await?;
            let body: Value = serde_json::from_slice(&raw).unwrap_or(Value::Null);
            let ids: Vec<String> = body
                .get("ids")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .take(100)
                .map(str::to_owned)
                .collect();
            let found = lookup(r, caller.user.id, call.platform, ids).await?;
            let body = match call.platform {
                Platform::Mj => {
                    Value::Array(found.iter().map(|t| mj_task(t, &snap.options)).collect())
                }
                Platform::Suno => json!({"code": "success", "message": "",
                    "data": found.iter().map(suno_task).collect::<Vec<_>>()}),
            };
            answer(session, trace, 200, &body).await
        }
    }
}

/// Midjourney-Proxy's answer for a task it does not know.
async fn mj_not_found(session: &mut Session, trace: &mut Trace) -> Result<(), Failure> {
    answer(
        session,
        trace,
        404,
        &json!({"code": 4, "description": "task_no_found"}),
    )
    .await
}

async fn answer(
    session: &mut Session,
    trace: &mut Trace,
    status: u16,
    body: &Value,
) -> Result<(), Failure> {
    respond::send_full(
        session,
        status,
        "application/json",
        trace,
        Bytes::from(body.to_string()),
    )
    .await
    .map_err(Failure::Client)
}

/// The caller's tasks among `ids`, from the control plane.
async fn lookup(
    r: &Relay,
    user_id: i64,
    platform: Platform,
    ids: Vec<String>,
) -> Result<Vec<proto::usage::v1::TaskState>, Failure> {
    let Some(tasks) = r.state.tasks.get() else {
        return Err(GatewayError::from(UpstreamError::Unsupported(
            "task lookups (this gateway follows no control plane)",
        ))
        .into());
    };
    tasks
        .fetch(user_id, platform.name(), ids)
        .await
        .map_err(|status| {
            tracing::warn!(code = ?status.code(), "task lookup failed");
            GatewayError::from(UpstreamError::Broken(
                "the task records are not reachable".to_owned(),
            ))
            .into()
        })
}

/// A stored drawing in the Midjourney-Proxy shape; with `MjForwardUrlEnabled` its image is
/// shown at the gateway's image proxy.
fn mj_task(t: &proto::usage::v1::TaskState, opts: &crate::config::Options) -> Value {
    let parsed = |s: &str, empty: Value| serde_json::from_str(s).unwrap_or(empty);
    let image_url = if opts.mj_forward_url && !t.image_url.is_empty() {
        format!("{}/mj/image/{}", opts.server_address, t.task_id)
    } else {
        t.image_url.clone()
    };
    json!({
        "id": t.task_id,
        "action": t.action,
        "prompt": t.prompt,
        "promptEn": t.prompt_en,
        "description": t.description,
        "state": "",
        "submitTime": t.submit_time,
        "startTime": t.start_time,
        "finishTime": t.finish_time,
        "imageUrl": image_url,
        "status": t.status,
        "progress": t.progress,
        "failReason": t.fail_reason,
        "buttons": parsed(&t.buttons, json!([])),
        "properties": parsed(&t.properties, json!({})),
    })
}

/// `GET /mj/task/{id}/image-seed`: the caller's own task, asked of the channel it ran at.
async fn image_seed(
    r: &Relay,
    session: &mut Session,
    snap: &Snapshot,
    trace: &mut Trace,
    user_id: i64,
    id: &str,
) -> Result<(), Failure> {
    let found = lookup(r, user_id, Platform::Mj, vec![id.to_owned()]).await?;
    let channel = found
        .first()
        .and_then(|t| snap.channels.get(&t.channel_id))
        .filter(|c| c.spec.protocol == Protocol::Task)
        .cloned();
    let Some(channel) = channel else {
        return mj_not_found(session, trace).await;
    };
    let url =
        adapters::provider::upstream_url(&channel.site(), &format!("/mj/task/{id}/image-seed"), "");
    trace.key = channel.keys.pick(|_| true);
    trace.channel = Some(channel.clone());
    let mut request = upstream::build_request(&channel, trace.key, &url, Bytes::new(), false, &[])
        .map_err(GatewayError::from)?;
    *request.method_mut() = Method::GET;
    let opts = &snap.options;
    let mut reply = post::send(r, session, opts, request, trace)
        .await
        .map_err(attempt_failure)?;
    let bytes = post::read_answer(session, &mut reply, opts, trace)
        .await
        .map_err(attempt_failure)?;
    post::deliver(session, trace, reply.status, "application/json", bytes).await;
    Ok(())
}

fn attempt_failure(e: AttemptError) -> Failure {
    match e {
        AttemptError::Gateway(e) => Failure::Gateway(e),
        AttemptError::ClientGone(e) => Failure::Client(e),
        AttemptError::Upstream(e) => Failure::Gateway(e.into()),
    }
}

/// Largest image the proxy passes on.
const MAX_IMAGE_BYTES: usize = 32 << 20;

/// `GET /mj/image/{id}`: the finished drawing's image, fetched from where its provider put it.
async fn image(
    r: &Relay,
    session: &mut Session,
    trace: &mut Trace,
    id: &str,
) -> Result<(), Failure> {
    let Some(tasks) = r.state.tasks.get() else {
        return Err(GatewayError::from(UpstreamError::Unsupported(
            "the image proxy (this gateway follows no control plane)",
        ))
        .into());
    };
    let url = tasks.image(id).await.map_err(|status| {
        tracing::warn!(code = ?status.code(), "task image lookup failed");
        Failure::from(GatewayError::from(UpstreamError::Broken(
            "the task records are not reachable".to_owned(),
        )))
    })?;
    let Some(url) = url.filter(|u| u.starts_with("https://") || u.starts_with("http://")) else {
        return mj_not_found(session, trace).await;
    };
    let request = http::Request::builder()
        .method(Method::GET)
        .uri(&url)
        .body(upstream::Chunks::from(Bytes::new()))
        .map_err(|_| GatewayError::from(UpstreamError::Build("a stored image URL".to_owned())))?;
    let response = r
        .state
        .upstream
        .send_via(None, request, std::time::Duration::from_secs(30))
        .await
        .map_err(GatewayError::from)?;
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/octet-stream")
        .to_owned();
    let mut body = response.into_body();
    let bytes = super::read_upstream(
        &mut body,
        MAX_IMAGE_BYTES,
        std::time::Duration::from_secs(30),
    )
    .await
    .map_err(GatewayError::from)?;
    if !(200..300).contains(&status) || !content_type.starts_with("image/") {
        return Err(GatewayError::from(UpstreamError::BadBody(format!(
            "the image answered {status} ({content_type})"
        )))
        .into());
    }
    respond::send_full(session, 200, &content_type, trace, bytes)
        .await
        .map_err(Failure::Client)
}

/// A stored song task in Suno's shape.
fn suno_task(t: &proto::usage::v1::TaskState) -> Value {
    json!({
        "task_id": t.task_id,
        "action": t.action,
        "status": t.status,
        "progress": t.progress,
        "fail_reason": t.fail_reason,
        "submit_time": t.submit_time,
        "start_time": t.start_time,
        "finish_time": t.finish_time,
        "data": serde_json::from_str::<Value>(&t.data).unwrap_or(Value::Null),
    })
}

/// A submission: priced, forwarded, charged when accepted.
async fn submit(
    r: &Relay,
    session: &mut Session,
    snap: &Snapshot,
    trace: &mut Trace,
    call: &TaskCall,
    action: &str,
    caller: crate::edge::Caller,
) -> Result<(), Failure> {
    let raw = post::read_json_body(session, snap, trace).await?;
    let body: Value = serde_json::from_slice(&raw)
        .map_err(|e| GatewayError::from(RequestError::InvalidRequest(e.to_string())))?;
    crate::edge::content::check_prompt(
        snap.options.sensitive_check_prompt,
        &snap.options.sensitive_words,
        &raw,
    )?;
    let (model, task_action) = model_and_action(call.platform, action, &body);
    trace.model = model.clone();
    crate::edge::check_model(&caller, &model)?;
    admission::check_routable(snap, &caller, &model)?;
    let price = admission::price(snap, &caller, &model)?;
    trace.price = Some(price);
    let opts = &snap.options;
    if opts.mj_action_check
        && call.platform == Platform::Mj
        && matches!(action, "action" | "modal" | "change" | "simple-change")
    {
        check_parent(r, &caller, &body).await?;
    }
    let admitted = admission::admit(r, snap, &caller, &model, trace).await?;
    let quota = billing::quota(&price, &Usage::default(), opts.quota_per_unit);
    let reservation = admission::reserve(r, snap, &caller, quota, trace).await?;
    let shaping = MjShaping {
        notify: opts.mj_notify,
        account_filter: opts.mj_account_filter,
        mode_clear: opts.mj_mode_clear,
    };
    let body = if call.platform == Platform::Mj {
        shaped_body(shaping, body)
    } else {
        body
    };
    let prompt = ["prompt", "gpt_description_prompt", "content"]
        .iter()
        .find_map(|k| body.get(*k).and_then(Value::as_str))
        .unwrap_or("")
        .to_owned();
    let body = Bytes::from(body.to_string());
    match attempts(r, session, snap, &caller, call, &model, body, trace).await {
        Ok(Some(accepted)) => {
            admitted.admission.succeeded_with_tokens(0);
            reservation.settle(quota);
            trace.quota = quota;
            trace.task = Some(crate::usage::TaskReport {
                platform: call.platform.name().to_owned(),
                action: task_action,
                prompt,
                ..accepted
            });
            Ok(())
        }
        Ok(None) => {
            // The provider refused the task: its answer went to the client, nothing is charged.
            reservation.refund();
            Ok(())
        }
        Err(failure) => {
            reservation.refund();
            Err(failure)
        }
    }
}

/// `MjActionCheckSuccessEnabled`: the task an action builds on is the caller's and finished.
async fn check_parent(
    r: &Relay,
    caller: &crate::edge::Caller,
    body: &Value,
) -> Result<(), Failure> {
    let parent = body
        .get("taskId")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| {
            body.get("content")
                .and_then(Value::as_str)
                .and_then(|c| c.split_whitespace().next())
                .map(str::to_owned)
        })
        .unwrap_or_default();
    let found = lookup(r, caller.user.id, Platform::Mj, vec![parent]).await?;
    if found.first().is_some_and(|t| t.status == "SUCCESS") {
        Ok(())
    } else {
        Err(GatewayError::from(RequestError::InvalidRequest(
            "the task this action builds on is not a finished task of yours".to_owned(),
        ))
        .into())
    }
}

/// Tries the platform's channels; `Some` with the accepted task, `None` when the provider
/// refused it (its answer was sent to the client).
#[allow(clippy::too_many_arguments)]
async fn attempts(
    r: &Relay,
    session: &mut Session,
    snap: &Snapshot,
    caller: &crate::edge::Caller,
    call: &TaskCall,
    model: &str,
    body: Bytes,
    trace: &mut Trace,
) -> Result<Option<crate::usage::TaskReport>, Failure> {
    let max_attempts = snap.options.retry_times.saturating_add(1);
    let mut tried = HashSet::new();
    let mut last: Option<UpstreamError> = None;
    let breakers = &r.state.breakers;
    for _ in 0..max_attempts {
        let now = Instant::now();
        let usable = |c: &ChannelEntry| {
            c.spec.protocol == Protocol::Task
                && call.platform.serves(c.spec.channel_type)
                && c.keys.indexes().any(|k| breakers.allows(c.id, k, now))
        };
        let channel = match caller.pinned_channel {
            Some(id) if tried.is_empty() => snap.channels.get(&id).cloned().filter(|c| usable(c)),
            Some(_) => None,
            None => {
                routing::next_channel(snap, &caller.group, model, &tried, usable, &mut rand::rng())
            }
        };
        let Some(channel) = channel else { break };
        tried.insert(channel.id);
        trace.tried.push(channel.id);
        trace.key = channel.keys.pick(|k| breakers.allows(channel.id, k, now));
        breakers.begin(channel.id, trace.key.index, now);
        trace.channel = Some(channel.clone());
        let result = attempt(r, session, snap, &channel, call, body.clone(), trace).await;
        post::breaker_outcome(&r.state, &channel, trace.key.index, &result);
        match result {
            Ok(outcome) => return Ok(outcome),
            Err(AttemptError::Gateway(e)) => return Err(Failure::Gateway(e)),
            Err(AttemptError::ClientGone(e)) => return Err(Failure::Client(e)),
            Err(AttemptError::Upstream(e)) => {
                let retry = post::note_upstream_failure(r, snap, trace, &channel, &e);
                last = Some(e);
                if !retry {
                    break;
                }
            }
        }
    }
    Err(match last {
        Some(e) => Failure::Gateway(e.into()),
        None => RouteError::NoChannel {
            model: model.to_owned(),
            group: caller.group.clone(),
        }
        .into(),
    })
}

async fn attempt(
    r: &Relay,
    session: &mut Session,
    snap: &Snapshot,
    channel: &Arc<ChannelEntry>,
    call: &TaskCall,
    body: Bytes,
    trace: &mut Trace,
) -> Result<Option<crate::usage::TaskReport>, AttemptError> {
    let opts = &snap.options;
    let url = adapters::provider::upstream_url(&channel.site(), &call.path, "");
    let mut request = upstream::build_request(channel, trace.key, &url, vec![body], false, &[])?;
    request.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    let mut answer = post::send(r, session, opts, request, trace).await?;
    let bytes = post::read_answer(session, &mut answer, opts, trace).await?;
    let v: Value = serde_json::from_slice(&bytes)
        .map_err(|e| UpstreamError::BadBody(format!("not JSON: {e}")))?;
    let accepted = match call.platform {
        // 1 submitted, 21 already exists, 22 queued.
        Platform::Mj => match v.get("code").and_then(Value::as_i64) {
            Some(1 | 21 | 22) => v.get("result").and_then(|id| match id {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            }),
            _ => None,
        },
        Platform::Suno => (v.get("code").and_then(Value::as_str) == Some("success"))
            .then(|| v.get("data").and_then(Value::as_str).map(str::to_owned))
            .flatten(),
    };
    post::deliver(session, trace, answer.status, "application/json", bytes).await;
    let text = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    Ok(accepted
        .filter(|id| !id.is_empty())
        .map(|task_id| crate::usage::TaskReport {
            task_id,
            code: v.get("code").and_then(Value::as_i64).unwrap_or(0),
            description: text("description"),
            properties: v
                .get("properties")
                .map(Value::to_string)
                .unwrap_or_default(),
            ..crate::usage::TaskReport::default()
        }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_paths_are_recognised() {
        let post = |p: &str| recognise(&Method::POST, p);
        let get = |p: &str| recognise(&Method::GET, p);
        assert_eq!(
            post("/mj/submit/imagine").map(|c| c.op),
            Some(Op::Submit("imagine".into()))
        );
        let fast = post("/mj-fast/mj/submit/imagine");
        assert_eq!(
            fast.as_ref().map(|c| c.path.as_str()),
            Some("/mj/submit/imagine")
        );
        assert_eq!(
            get("/mj/task/123/fetch").map(|c| c.op),
            Some(Op::Fetch("123".into()))
        );
        assert_eq!(
            post("/mj/task/list-by-condition").map(|c| c.op),
            Some(Op::List)
        );
        assert_eq!(
            post("/suno/submit/music").map(|c| c.platform),
            Some(Platform::Suno)
        );
        assert_eq!(
            get("/suno/fetch/s-1").map(|c| c.op),
            Some(Op::Fetch("s-1".into()))
        );
        assert!(post("/mj/submit/unknown").is_none());
        assert!(get("/mj/task/../fetch").is_none());
        assert!(serves("/mj/image/1") && serves("/suno/fetch"));
        assert!(!serves("/api/mj/self") && !serves("/v1/mj/x") && !serves("/mj"));
    }

    #[test]
    fn the_mj_options_shape_submissions() {
        let body = json!({"prompt": "a fox --fast  at dusk --relax", "notifyHook": "https://h",
                          "accountFilter": {"instanceId": "x"}});
        let strict = shaped_body(MjShaping::default(), body.clone());
        assert_eq!(strict, json!({"prompt": "a fox --fast  at dusk --relax"}));
        let open = shaped_body(
            MjShaping {
                notify: true,
                account_filter: true,
                mode_clear: true,
            },
            body,
        );
        assert_eq!(open["prompt"], "a fox at dusk");
        assert_eq!(open["notifyHook"], "https://h");
        assert_eq!(open["accountFilter"]["instanceId"], "x");
    }

    #[test]
    fn actions_are_priced_by_what_they_do() {
        let m = |a: &str, b: Value| model_and_action(Platform::Mj, a, &b).0;
        assert_eq!(m("imagine", json!({})), "mj_imagine");
        assert_eq!(
            m("action", json!({"customId": "MJ::JOB::upsample::1::abc"})),
            "mj_upscale"
        );
        assert_eq!(
            m(
                "action",
                json!({"customId": "MJ::JOB::high_variation::1::abc"})
            ),
            "mj_high_variation"
        );
        assert_eq!(
            m("simple-change", json!({"content": "123 V2"})),
            "mj_variation"
        );
        assert_eq!(m("change", json!({"action": "REROLL"})), "mj_reroll");
        assert_eq!(m("upload-discord-images", json!({})), "mj_upload");
        assert_eq!(
            model_and_action(Platform::Suno, "music", &json!({})),
            ("suno_music".to_owned(), "MUSIC".to_owned())
        );
    }
}
