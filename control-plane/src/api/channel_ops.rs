//! Checks on channels that call the upstream: test one or all (recording the response time and
//! applying the auto-disable / auto-enable options), refresh balances, fetch model lists.

use axum::Json;
use axum::extract::{Path, State};
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use utoipa::{IntoParams, ToSchema};

use super::auth::AdminCaller;
use super::channels::{channel_keys, find};
use super::envelope::{EmptyEnvelope, Envelope, ok};
use super::extract::{ApiJson, ApiQuery};
use crate::domain::channel_keys::KeyStates;
use crate::domain::channels::{
    self, HealthPolicy, STATUS_AUTO_DISABLED, STATUS_DISABLED, STATUS_ENABLED, Verdict,
};
use crate::domain::options::Options;
use crate::error::{ApiError, ApiResult};
use crate::health;
use crate::i18n::Msg;
use crate::outbound::providers::{self, Upstream};
use crate::state::AppState;
use crate::store::channels::ChannelRecord;
use crate::store::{self, now};

/// How many channels are checked at once by the "all" calls.
const PARALLEL_CHECKS: usize = 4;
/// The model a test uses when neither the request nor the channel names one.
const FALLBACK_TEST_MODEL: &str = "gpt-4o-mini";

/// Whether the channel type is an asynchronous task API (Midjourney-Proxy, Suno).
fn is_task_api(channel_type: i64) -> bool {
    i32::try_from(channel_type)
        .ok()
        .and_then(adapters::provider::lookup)
        .is_some_and(|s| s.protocol == adapters::provider::Protocol::Task)
}

/// The monitoring options as a policy.
fn policy(options: &Options) -> HealthPolicy {
    HealthPolicy::from_options(options)
}

/// How to call a saved channel with one of its keys.
fn upstream_of<'a>(channel: &'a ChannelRecord, key: &'a str) -> Upstream<'a> {
    Upstream {
        channel_type: channel.channel_type,
        base_url: &channel.base_url,
        key,
        organization: &channel.openai_organization,
        other: &channel.other,
        setting: &channel.setting,
        gemini_version: "",
    }
}

/// The Gemini API version `gemini.version_settings` names for `model` (else its "default"):
/// letters, digits, dots and dashes only; empty when none is set.
fn gemini_version(options: &Options, model: &str) -> String {
    let versions = options.json("gemini.version_settings");
    let pick = versions
        .get(model)
        .or_else(|| versions.get("default"))
        .and_then(serde_json::Value::as_str)
        .unwrap_or("")
        .trim();
    let valid = pick.len() <= 32
        && pick
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
    if valid {
        pick.to_owned()
    } else {
        String::new()
    }
}

/// The first enabled key of a channel (its first key when none is).
fn usable_key(state: &AppState, channel: &ChannelRecord) -> String {
    let keys = channel_keys(state, channel);
    let index = KeyStates::parse(&channel.key_status)
        .enabled(keys.len())
        .next()
        .unwrap_or(0);
    keys.into_iter().nth(index as usize).unwrap_or_default()
}

/// Switches the channel's status as a verdict says; returns the status it has now.
async fn apply_verdict(
    state: &AppState,
    channel: &ChannelRecord,
    verdict: Verdict,
) -> ApiResult<i64> {
    let (status, info, disabling) = match verdict {
        Verdict::Keep => return Ok(channel.status),
        Verdict::Disable(reason) => (
            STATUS_AUTO_DISABLED,
            channels::other_info(&reason, now()),
            Some(reason),
        ),
        // When it came back: failures reported from before then are stale (see health.rs).
        Verdict::Enable => (STATUS_ENABLED, channels::enabled_info(now()), None),
    };
    let updated = ChannelRecord {
        status,
        other_info: info,
        ..channel.clone()
    };
    let mut tx = state.db().pool.begin().await?;
    store::channels::save(&mut tx, &updated).await?;
    tx.commit().await?;
    tracing::info!(
        channel_id = channel.id,
        status,
        "channel status changed by a check"
    );
    // Root hears of a live channel a check took out of service, as of live failures.
    if let Some(reason) = disabling.filter(|_| channel.status == STATUS_ENABLED) {
        crate::notify::channel_disabled(state, channel.id, &channel.name, None, &reason).await;
    }
    Ok(status)
}

/// The result of testing one channel.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TestResult {
    pub channel_id: i64,
    pub success: bool,
    pub message: String,
    /// Seconds the test took.
    pub time: f64,
    pub model: String,
    /// The channel's status after the test.
    pub status: i64,
}

/// Which keys of a channel a test calls with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeysToTest {
    /// The first enabled key (the channel's test).
    First,
    /// One key by index.
    One(u32),
    /// Every key not disabled by hand (the periodic test).
    Every,
}

async fn test_one(
    state: &AppState,
    options: &Options,
    channel: &ChannelRecord,
    model: Option<&str>,
    which: KeysToTest,
) -> ApiResult<TestResult> {
    let model = model
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .or(Some(channel.test_model.as_str()).filter(|m| !m.is_empty()))
        .or_else(|| {
            channel
                .models
                .split(',')
                .map(str::trim)
                .find(|m| !m.is_empty())
        })
        .unwrap_or(FALLBACK_TEST_MODEL)
        .to_string();
    let keys = channel_keys(state, channel);
    let states = KeyStates::parse(&channel.key_status);
    let multi = keys.len() > 1;
    let indexes: Vec<u32> = match which {
        _ if !multi => vec![0],
        KeysToTest::First => vec![states.enabled(keys.len()).next().unwrap_or(0)],
        KeysToTest::One(i) if (i as usize) < keys.len() => vec![i],
        KeysToTest::One(_) => return Err(ApiError::Rejected(Msg::ChannelKeyNotFound)),
        KeysToTest::Every => states
            .enabled(keys.len())
            .chain((0..keys.len() as u32).filter(|i| states.status(*i) == STATUS_AUTO_DISABLED))
            .collect(),
    };
    let policy = policy(options);
    let mut first_elapsed = None;
    let mut failure: Option<String> = None;
    let mut succeeded = 0usize;
    let version = gemini_version(options, &model);
    for index in indexes.iter().copied() {
        let key = keys.get(index as usize).map(String::as_str).unwrap_or("");
        let upstream = Upstream {
            gemini_version: &version,
            ..upstream_of(channel, key)
        };
        let outcome = providers::test_chat(state.http(), &upstream, &model).await;
        let (elapsed, judged) = match &outcome {
            Ok(ms) => (*ms, Ok(*ms)),
            Err((err, ms)) => (*ms, Err((err.status(), err.to_string()))),
        };
        first_elapsed.get_or_insert(elapsed);
        match &outcome {
            Ok(_) => succeeded += 1,
            Err((err, _)) if failure.is_none() => {
                failure = Some(if multi {
                    format!("key #{index}: {err}")
                } else {
                    err.to_string()
                });
            }
            Err(_) => {}
        }
        if multi {
            let verdict = channels::judge(
                &policy,
                channel.auto_ban != 0,
                states.status(index),
                &judged,
            );
            apply_key_verdict(state, channel.id, index, verdict).await?;
        } else {
            let verdict = channels::judge(&policy, channel.auto_ban != 0, channel.status, &judged);
            apply_verdict(state, channel, verdict).await?;
        }
    }
    store::channels::set_test_result(state.db(), channel.id, first_elapsed.unwrap_or(0), now())
        .await?;
    let mut after = find(state, channel.id).await?;
    // A working key brings back a channel disabled automatically for a reason of its own.
    if multi && succeeded > 0 && policy.auto_enable && after.status == STATUS_AUTO_DISABLED {
        apply_verdict(state, &after, Verdict::Enable).await?;
        after = find(state, channel.id).await?;
    }
    Ok(TestResult {
        channel_id: channel.id,
        success: failure.is_none(),
        message: failure.unwrap_or_default(),
        time: first_elapsed.unwrap_or(0) as f64 / 1000.0,
        model,
        status: after.status,
    })
}

/// Applies a test's verdict to one key of a multi-key channel.
async fn apply_key_verdict(
    state: &AppState,
    channel_id: i64,
    index: u32,
    verdict: Verdict,
) -> ApiResult<()> {
    let (status, reason) = match verdict {
        Verdict::Keep => return Ok(()),
        Verdict::Disable(reason) => (STATUS_AUTO_DISABLED, reason),
        Verdict::Enable => (STATUS_ENABLED, String::new()),
    };
    // Whether the key was live before this test (the edit may run more than once).
    let was_enabled = AtomicBool::new(false);
    let change = health::change_keys(state, channel_id, |states, _| {
        was_enabled.store(states.status(index) == STATUS_ENABLED, Ordering::Relaxed);
        states.set(index, status, &reason, now())
    })
    .await?;
    if change.is_some_and(|c| c.changed) {
        tracing::info!(
            channel_id,
            key_index = index,
            status,
            "channel key status changed by a test"
        );
        if status == STATUS_AUTO_DISABLED && was_enabled.load(Ordering::Relaxed) {
            notify_key_disabled(state, channel_id, index, &reason).await;
        }
    }
    Ok(())
}

/// Tells root that a test disabled a live key of `channel_id`.
async fn notify_key_disabled(state: &AppState, channel_id: i64, index: u32, reason: &str) {
    let name = match store::channels::find(state.db(), channel_id).await {
        Ok(Some(channel)) => channel.name,
        Ok(None) => return,
        Err(err) => {
            tracing::warn!(channel_id, error = %err, "key notice: channel unreadable");
            return;
        }
    };
    crate::notify::channel_disabled(state, channel_id, &name, Some(index), reason).await;
}

/// Which model to test, and with which key of a multi-key channel (the first enabled one
/// when absent).
#[derive(Debug, Deserialize, IntoParams)]
pub struct TestQuery {
    pub model: Option<String>,
    pub key_index: Option<u32>,
}

#[utoipa::path(get, path = "/api/channel/test/{id}", tag = "channels", params(("id" = i64, Path), TestQuery),
    responses((status = 200, description = "success false with the upstream's error when the test fails", body = Envelope<TestResult>), (status = 403, body = EmptyEnvelope)))]
pub async fn test_channel(
    State(state): State<AppState>,
    _admin: AdminCaller,
    Path(id): Path<i64>,
    ApiQuery(query): ApiQuery<TestQuery>,
) -> ApiResult<Json<Envelope<TestResult>>> {
    let channel = find(&state, id).await?;
    let options = state.options().await?;
    let which = query.key_index.map_or(KeysToTest::First, KeysToTest::One);
    let result = test_one(&state, &options, &channel, query.model.as_deref(), which).await?;
    Ok(Json(Envelope {
        success: result.success,
        message: result.message.clone(),
        data: Some(result),
    }))
}

/// What a check of every channel did.
#[derive(Debug, Default, Serialize, ToSchema)]
pub struct CheckSummary {
    pub checked: usize,
    pub succeeded: usize,
    pub failed: usize,
    pub disabled: usize,
    pub enabled: usize,
}

#[utoipa::path(get, path = "/api/channel/test", tag = "channels",
    responses((status = 200, description = "every channel not disabled by hand is tested", body = Envelope<CheckSummary>), (status = 403, body = EmptyEnvelope)))]
pub async fn test_all(
    State(state): State<AppState>,
    _admin: AdminCaller,
) -> ApiResult<Json<Envelope<CheckSummary>>> {
    Ok(ok(test_every_channel(&state).await?))
}

/// Tests every channel not disabled by hand (auto-disabled ones included, which a success
/// brings back when `AutomaticEnableChannelEnabled` is on).
pub async fn test_every_channel(state: &AppState) -> ApiResult<CheckSummary> {
    let options = state.options().await?;
    let candidates: Vec<ChannelRecord> = store::channels::all(state.db(), true)
        .await?
        .into_iter()
        .filter(|c| c.status != STATUS_DISABLED)
        // Task APIs (Midjourney, Suno) have no chat to test: never judged by one.
        .filter(|c| !is_task_api(c.channel_type))
        .collect();
    let results: Vec<(i64, ApiResult<TestResult>)> =
        futures::stream::iter(candidates.into_iter().map(|c| {
            let (state, options) = (state.clone(), options.clone());
            async move {
                let result = test_one(&state, &options, &c, None, KeysToTest::Every).await;
                (c.status, result)
            }
        }))
        .buffer_unordered(PARALLEL_CHECKS)
        .collect()
        .await;
    let mut summary = CheckSummary::default();
    for (before, result) in results {
        let result = result?;
        summary.checked += 1;
        if result.success {
            summary.succeeded += 1;
        } else {
            summary.failed += 1;
        }
        if before != result.status {
            if result.status == STATUS_AUTO_DISABLED {
                summary.disabled += 1;
            } else if result.status == STATUS_ENABLED {
                summary.enabled += 1;
            }
        }
    }
    Ok(summary)
}

async fn refresh_balance(
    state: &AppState,
    options: &Options,
    channel: &ChannelRecord,
) -> Result<f64, Msg> {
    let key = usable_key(state, channel);
    let upstream = upstream_of(channel, &key);
    let balance = providers::balance(state.http(), &upstream, options.f64("Price"))
        .await
        .map_err(|err| match err {
            providers::ProviderError::Unsupported(_) => Msg::BalanceNotSupported,
            other => Msg::BalanceFailed {
                detail: other.to_string(),
            },
        })?;
    store::channels::set_balance(state.db(), channel.id, balance, now())
        .await
        .map_err(|e| {
            tracing::error!(error = %e, "saving a balance failed");
            Msg::Internal
        })?;
    Ok(balance)
}

#[utoipa::path(get, path = "/api/channel/update_balance/{id}/", tag = "channels", params(("id" = i64, Path)),
    responses((status = 200, description = "the balance in USD", body = Envelope<f64>), (status = 403, body = EmptyEnvelope)))]
pub async fn update_balance(
    State(state): State<AppState>,
    _admin: AdminCaller,
    Path(id): Path<i64>,
) -> ApiResult<Json<Envelope<f64>>> {
    let channel = find(&state, id).await?;
    let options = state.options().await?;
    let balance = refresh_balance(&state, &options, &channel)
        .await
        .map_err(ApiError::Rejected)?;
    Ok(ok(balance))
}

#[utoipa::path(get, path = "/api/channel/update_balance", tag = "channels",
    responses((status = 200, description = "enabled channels' balances are refreshed; an empty balance auto-disables when allowed", body = Envelope<CheckSummary>), (status = 403, body = EmptyEnvelope)))]
pub async fn update_all_balances(
    State(state): State<AppState>,
    _admin: AdminCaller,
) -> ApiResult<Json<Envelope<CheckSummary>>> {
    Ok(ok(refresh_every_balance(&state).await?))
}

/// Refreshes the balance of every enabled channel; one used up auto-disables its channel
/// when the options allow.
pub async fn refresh_every_balance(state: &AppState) -> ApiResult<CheckSummary> {
    let options = state.options().await?;
    let policy = policy(&options);
    let enabled: Vec<ChannelRecord> = store::channels::all(state.db(), true)
        .await?
        .into_iter()
        .filter(|c| c.status == STATUS_ENABLED)
        .collect();
    let results: Vec<(ChannelRecord, Result<f64, Msg>)> =
        futures::stream::iter(enabled.into_iter().map(|c| {
            let (state, options) = (state.clone(), options.clone());
            async move {
                let result = refresh_balance(&state, &options, &c).await;
                (c, result)
            }
        }))
        .buffer_unordered(PARALLEL_CHECKS)
        .collect()
        .await;
    let mut summary = CheckSummary::default();
    for (channel, result) in results {
        summary.checked += 1;
        match result {
            Ok(balance) => {
                summary.succeeded += 1;
                if balance <= 0.0 && policy.auto_disable && channel.auto_ban != 0 {
                    let verdict = Verdict::Disable(format!("balance {balance} is used up"));
                    apply_verdict(state, &channel, verdict).await?;
                    summary.disabled += 1;
                }
            }
            Err(_) => summary.failed += 1,
        }
    }
    Ok(summary)
}

#[utoipa::path(get, path = "/api/channel/fetch_models/{id}", tag = "channels", params(("id" = i64, Path)),
    responses((status = 200, body = Envelope<Vec<String>>), (status = 403, body = EmptyEnvelope)))]
pub async fn fetch_saved_models(
    State(state): State<AppState>,
    _admin: AdminCaller,
    Path(id): Path<i64>,
) -> ApiResult<Json<Envelope<Vec<String>>>> {
    let channel = find(&state, id).await?;
    let key = usable_key(&state, &channel);
    let upstream = upstream_of(&channel, &key);
    list_models(&state, &upstream).await
}

/// An unsaved channel's address, type and key.
#[derive(Debug, Deserialize, ToSchema)]
pub struct FetchModelsRequest {
    #[serde(default)]
    pub base_url: String,
    #[serde(rename = "type", default = "default_type")]
    pub channel_type: i64,
    #[serde(default)]
    pub key: String,
    /// The channel's `other` (Azure's api-version, Vertex's region).
    #[serde(default)]
    pub other: String,
    /// The channel's setting JSON (Vertex's key type).
    #[serde(default)]
    pub setting: String,
}

fn default_type() -> i64 {
    1
}

#[utoipa::path(post, path = "/api/channel/fetch_models", tag = "channels", request_body = FetchModelsRequest,
    responses((status = 200, body = Envelope<Vec<String>>), (status = 403, body = EmptyEnvelope)))]
pub async fn fetch_unsaved_models(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiJson(request): ApiJson<FetchModelsRequest>,
) -> ApiResult<Json<Envelope<Vec<String>>>> {
    let keys = channels::split_keys(request.channel_type, &request.key);
    let key = keys
        .first()
        .ok_or(ApiError::Rejected(Msg::KeyRequiredForModels))?;
    let base_url = channels::normalize_base_url(&request.base_url);
    let upstream = Upstream {
        channel_type: request.channel_type,
        base_url: &base_url,
        key,
        organization: "",
        other: &request.other,
        setting: &request.setting,
        gemini_version: "",
    };
    list_models(&state, &upstream).await
}

async fn list_models(
    state: &AppState,
    upstream: &Upstream<'_>,
) -> ApiResult<Json<Envelope<Vec<String>>>> {
    let models = providers::fetch_models(state.http(), upstream)
        .await
        .map_err(|e| {
            ApiError::Rejected(Msg::FetchModelsFailed {
                detail: e.to_string(),
            })
        })?;
    Ok(ok(models))
}
