//! Keys of multi-key channels for administrators (`POST /api/channel/multi_key/manage`): each
//! key's status (enabled, disabled by hand, disabled automatically, with the reason and time),
//! enabling and disabling one key or enabling all, deleting the disabled ones. Keys are shown
//! as previews only.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::AdminCaller;
use super::channels::{channel_keys, find};
use super::envelope::{EmptyEnvelope, Envelope, ok};
use super::extract::ApiJson;
use crate::domain::channel_keys::{KeyStates, preview};
use crate::domain::channels::{STATUS_AUTO_DISABLED, STATUS_DISABLED, STATUS_ENABLED};
use crate::error::{ApiError, ApiResult};
use crate::health;
use crate::i18n::Msg;
use crate::state::AppState;
use crate::store::{self, now};

/// What to do with the keys of a channel.
#[derive(Debug, Deserialize, ToSchema)]
pub struct KeyAction {
    pub channel_id: i64,
    /// `get_key_status`, `enable_key`, `disable_key`, `enable_all_keys` or
    /// `delete_disabled_keys`.
    pub action: String,
    /// The key, for `enable_key` and `disable_key`.
    pub key_index: Option<u32>,
}

/// One key of a channel.
#[derive(Debug, Serialize, ToSchema)]
pub struct KeyView {
    pub index: u32,
    /// The first and last characters of the key.
    pub preview: String,
    /// 1 enabled, 2 disabled by hand, 3 disabled automatically.
    pub status: i64,
    /// Why it was disabled (automatically: the upstream's error).
    pub reason: String,
    /// Unix seconds when it was disabled (0 when enabled).
    pub disabled_time: i64,
}

/// The keys of a channel with their statuses.
#[derive(Debug, Serialize, ToSchema)]
pub struct KeysView {
    pub channel_id: i64,
    /// The channel's own status after the action.
    pub channel_status: i64,
    pub total: usize,
    pub enabled: usize,
    pub manually_disabled: usize,
    pub auto_disabled: usize,
    pub keys: Vec<KeyView>,
}

async fn keys_view(state: &AppState, channel_id: i64) -> ApiResult<KeysView> {
    let channel = find(state, channel_id).await?;
    let keys = channel_keys(state, &channel);
    let states = KeyStates::parse(&channel.key_status);
    let keys: Vec<KeyView> = keys
        .iter()
        .enumerate()
        .map(|(i, key)| {
            let index = u32::try_from(i).unwrap_or(u32::MAX);
            let state = states.get(index);
            KeyView {
                index,
                preview: preview(key),
                status: states.status(index),
                reason: state.map(|s| s.reason.clone()).unwrap_or_default(),
                disabled_time: state.map_or(0, |s| s.time),
            }
        })
        .collect();
    let count = |status| keys.iter().filter(|k| k.status == status).count();
    Ok(KeysView {
        channel_id,
        channel_status: channel.status,
        total: keys.len(),
        enabled: count(STATUS_ENABLED),
        manually_disabled: count(STATUS_DISABLED),
        auto_disabled: count(STATUS_AUTO_DISABLED),
        keys,
    })
}

/// Changes the keys with `edit`; a missing channel is an error.
async fn change(
    state: &AppState,
    channel_id: i64,
    edit: impl Fn(&mut KeyStates, usize) -> bool,
) -> ApiResult<()> {
    health::change_keys(state, channel_id, edit)
        .await?
        .ok_or(ApiError::Rejected(Msg::ChannelNotFound))?;
    Ok(())
}

/// Removes the disabled keys from the channel's key list (the rest are renumbered).
async fn delete_disabled(state: &AppState, channel_id: i64) -> ApiResult<()> {
    let mut channel = find(state, channel_id).await?;
    let keys = channel_keys(state, &channel);
    let states = KeyStates::parse(&channel.key_status);
    let kept: Vec<&str> = states
        .enabled(keys.len())
        .filter_map(|i| keys.get(i as usize).map(String::as_str))
        .collect();
    if kept.len() == keys.len() {
        return Ok(());
    }
    if kept.is_empty() {
        return Err(ApiError::Rejected(Msg::ChannelKeysNoneLeft));
    }
    channel.key_enc = state.cipher().encrypt(&kept.join("\n"));
    let mut tx = state.db().pool.begin().await?;
    store::channels::save(&mut tx, &channel).await?;
    store::channels::reset_key_states(&mut tx, channel_id).await?;
    tx.commit().await?;
    Ok(())
}

#[utoipa::path(post, path = "/api/channel/multi_key/manage", tag = "channels", request_body = KeyAction,
    responses((status = 200, description = "the channel's keys after the action", body = Envelope<KeysView>), (status = 403, body = EmptyEnvelope)))]
pub async fn manage_keys(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiJson(input): ApiJson<KeyAction>,
) -> ApiResult<Json<Envelope<KeysView>>> {
    let id = input.channel_id;
    let index = || {
        input
            .key_index
            .ok_or(ApiError::Rejected(Msg::ChannelKeyNotFound))
    };
    let in_range = |i: u32, count: usize| (i as usize) < count;
    match input.action.as_str() {
        "get_key_status" => {}
        "enable_key" | "disable_key" => {
            let i = index()?;
            let channel = find(&state, id).await?;
            if !in_range(i, channel_keys(&state, &channel).len()) {
                return Err(ApiError::Rejected(Msg::ChannelKeyNotFound));
            }
            let status = if input.action == "enable_key" {
                STATUS_ENABLED
            } else {
                STATUS_DISABLED
            };
            let time = now();
            change(&state, id, |states, _| states.set(i, status, "", time)).await?;
        }
        "enable_all_keys" => {
            change(&state, id, |states, count| {
                let disabled: Vec<u32> = (0..u32::try_from(count).unwrap_or(u32::MAX))
                    .filter(|i| states.status(*i) != STATUS_ENABLED)
                    .collect();
                for i in &disabled {
                    states.set(*i, STATUS_ENABLED, "", 0);
                }
                !disabled.is_empty()
            })
            .await?;
        }
        "delete_disabled_keys" => delete_disabled(&state, id).await?,
        _ => return Err(ApiError::Rejected(Msg::ChannelKeyActionUnknown)),
    }
    Ok(ok(keys_view(&state, id).await?))
}
