//! Channels for administrators (`/api/channel/*`): list (paging, id sort, tag mode), search,
//! get, create (single, batch, multi-key), full and partial update, delete, delete disabled,
//! batch delete and tag, tag edit / enable / disable, fix abilities, model lists. Keys are
//! encrypted at rest and never returned.

use std::collections::BTreeSet;

use axum::Json;
use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::auth::AdminCaller;
use super::envelope::{EmptyEnvelope, Envelope, Page, PageQuery, ok};
use super::extract::{ApiJson, ApiQuery};
use crate::domain::channels::{self, STATUS_DISABLED, STATUS_ENABLED};
use crate::error::{ApiError, ApiResult};
use crate::i18n::Msg;
use crate::state::AppState;
use crate::store::channels::ChannelRecord;
use crate::store::{self, now};

/// A channel as administrators see it (never its key).
#[derive(Debug, Serialize, ToSchema)]
pub struct ChannelView {
    pub id: i64,
    #[serde(rename = "type")]
    pub channel_type: i64,
    /// Whether this gateway version relays this channel type
    pub served: bool,
    pub name: String,
    /// How many keys the channel holds (several for multi-key channels).
    pub key_count: usize,
    /// How many of them are disabled (by hand or automatically).
    pub disabled_key_count: usize,
    pub openai_organization: String,
    pub test_model: String,
    /// 1 enabled, 2 disabled, 3 auto-disabled.
    pub status: i64,
    pub weight: i64,
    pub priority: i64,
    pub created_time: i64,
    pub test_time: i64,
    /// Milliseconds of the last test.
    pub response_time: i64,
    pub base_url: String,
    pub other: String,
    pub balance: f64,
    pub balance_updated_time: i64,
    /// Comma-separated.
    pub models: String,
    /// Comma-separated.
    pub group: String,
    pub used_quota: i64,
    pub model_mapping: String,
    pub status_code_mapping: String,
    pub auto_ban: i64,
    /// JSON with status_reason and status_time (auto-disabled channels).
    pub other_info: String,
    pub tag: String,
    pub setting: String,
    pub param_override: String,
    pub header_override: String,
    pub model_prefix: String,
    pub max_input_tokens: i64,
    pub remark: String,
    /// `random` or `polling` for multi-key channels.
    pub multi_key_mode: String,
}

/// The keys of a channel, decrypted (for the control plane's own upstream calls).
pub fn channel_keys(state: &AppState, c: &ChannelRecord) -> Vec<String> {
    match state.cipher().decrypt(&c.key_enc) {
        Ok(keys) => channels::split_keys(c.channel_type, &keys),
        Err(err) => {
            tracing::error!(channel_id = c.id, error = %err, "channel key cannot be decrypted");
            Vec::new()
        }
    }
}

/// Whether the gateway has an adapter for the channel type (otherwise it never routes there).
fn served(channel_type: i64) -> bool {
    i32::try_from(channel_type)
        .ok()
        .and_then(adapters::provider::lookup)
        .is_some()
}

fn view(state: &AppState, c: ChannelRecord) -> ChannelView {
    let key_count = channel_keys(state, &c).len();
    let enabled = crate::domain::channel_keys::KeyStates::parse(&c.key_status)
        .enabled(key_count)
        .count();
    ChannelView {
        key_count,
        disabled_key_count: key_count - enabled,
        id: c.id,
        channel_type: c.channel_type,
        served: served(c.channel_type),
        name: c.name,
        openai_organization: c.openai_organization,
        test_model: c.test_model,
        status: c.status,
        weight: c.weight,
        priority: c.priority,
        created_time: c.created_time,
        test_time: c.test_time,
        response_time: c.response_time,
        base_url: c.base_url,
        other: c.other,
        balance: c.balance,
        balance_updated_time: c.balance_updated_time,
        models: c.models,
        group: c.group,
        used_quota: c.used_quota,
        model_mapping: c.model_mapping,
        status_code_mapping: c.status_code_mapping,
        auto_ban: c.auto_ban,
        other_info: c.other_info,
        tag: c.tag,
        setting: c.setting,
        param_override: c.param_override,
        header_override: c.header_override,
        model_prefix: c.model_prefix,
        max_input_tokens: c.max_input_tokens,
        remark: c.remark,
        multi_key_mode: c.multi_key_mode,
    }
}

/// List options.
#[derive(Debug, Default, Deserialize, IntoParams)]
pub struct ListQuery {
    /// Newest first instead of highest priority first.
    #[serde(default)]
    pub id_sort: Option<bool>,
    /// Keep channels of one tag together; pages count tags (and untagged channels).
    #[serde(default)]
    pub tag_mode: Option<bool>,
}

#[utoipa::path(get, path = "/api/channel/", tag = "channels", params(ListQuery, PageQuery),
    responses((status = 200, body = Envelope<Page<ChannelView>>), (status = 403, body = EmptyEnvelope)))]
pub async fn list_channels(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiQuery(list): ApiQuery<ListQuery>,
    ApiQuery(page): ApiQuery<PageQuery>,
) -> ApiResult<Json<Envelope<Page<ChannelView>>>> {
    let (page, page_size, offset) = page.resolve();
    let by_id = list.id_sort.unwrap_or(false);
    let (items, total) = if list.tag_mode.unwrap_or(false) {
        let all = store::channels::all(state.db(), by_id).await?;
        page_by_tag(all, offset, page_size)
    } else {
        store::channels::page(state.db(), by_id, offset, page_size).await?
    };
    Ok(ok(Page {
        items: items.into_iter().map(|c| view(&state, c)).collect(),
        page,
        page_size,
        total,
    }))
}

/// Groups channels by tag (untagged ones alone), keeps the first-seen order, and returns the
/// channels of one page of groups with the number of groups.
fn page_by_tag(all: Vec<ChannelRecord>, offset: i64, limit: i64) -> (Vec<ChannelRecord>, i64) {
    let mut groups: Vec<(Option<String>, Vec<ChannelRecord>)> = Vec::new();
    for channel in all {
        let tag = (!channel.tag.is_empty()).then(|| channel.tag.clone());
        match groups.iter_mut().find(|(t, _)| tag.is_some() && *t == tag) {
            Some((_, members)) => members.push(channel),
            None => groups.push((tag, vec![channel])),
        }
    }
    let total = groups.len() as i64;
    let items = groups
        .into_iter()
        .skip(offset.max(0) as usize)
        .take(limit.max(0) as usize)
        .flat_map(|(_, members)| members)
        .collect();
    (items, total)
}

/// Search filters.
#[derive(Debug, Default, Deserialize, IntoParams)]
pub struct SearchQuery {
    /// Matches the id, or part of the name, base URL or tag.
    pub keyword: Option<String>,
    /// A group the channel serves.
    pub group: Option<String>,
    /// Part of a model name the channel serves.
    pub model: Option<String>,
}

#[utoipa::path(get, path = "/api/channel/search", tag = "channels", params(SearchQuery, ListQuery),
    responses((status = 200, body = Envelope<Page<ChannelView>>), (status = 403, body = EmptyEnvelope)))]
pub async fn search_channels(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiQuery(search): ApiQuery<SearchQuery>,
    ApiQuery(list): ApiQuery<ListQuery>,
) -> ApiResult<Json<Envelope<Page<ChannelView>>>> {
    let all = store::channels::all(state.db(), list.id_sort.unwrap_or(false)).await?;
    let keyword = search
        .keyword
        .as_deref()
        .map(|k| k.trim().to_lowercase())
        .filter(|k| !k.is_empty());
    let group = search
        .group
        .as_deref()
        .map(str::trim)
        .filter(|g| !g.is_empty());
    let model = search
        .model
        .as_deref()
        .map(|m| m.trim().to_lowercase())
        .filter(|m| !m.is_empty());
    let matches: Vec<ChannelRecord> = all
        .into_iter()
        .filter(|c| {
            keyword.as_ref().is_none_or(|k| {
                c.id.to_string() == *k
                    || [&c.name, &c.base_url, &c.tag]
                        .iter()
                        .any(|f| f.to_lowercase().contains(k.as_str()))
            })
        })
        .filter(|c| group.is_none_or(|g| c.group.split(',').any(|x| x.trim() == g)))
        .filter(|c| {
            model.as_ref().is_none_or(|m| {
                c.models
                    .split(',')
                    .any(|x| x.trim().to_lowercase().contains(m.as_str()))
            })
        })
        .collect();
    let items: Vec<ChannelRecord> = if list.tag_mode.unwrap_or(false) {
        page_by_tag(matches, 0, i64::MAX).0
    } else {
        matches
    };
    let total = items.len() as i64;
    Ok(ok(Page {
        items: items.into_iter().map(|c| view(&state, c)).collect(),
        page: 1,
        page_size: total,
        total,
    }))
}

#[utoipa::path(get, path = "/api/channel/{id}", tag = "channels", params(("id" = i64, Path)),
    responses((status = 200, body = Envelope<ChannelView>), (status = 403, body = EmptyEnvelope)))]
pub async fn get_channel(
    State(state): State<AppState>,
    _admin: AdminCaller,
    Path(id): Path<i64>,
) -> ApiResult<Json<Envelope<ChannelView>>> {
    Ok(ok(view(&state, find(&state, id).await?)))
}

pub async fn find(state: &AppState, id: i64) -> ApiResult<ChannelRecord> {
    store::channels::find(state.db(), id)
        .await?
        .ok_or(ApiError::Rejected(Msg::ChannelNotFound))
}

/// Channel fields as sent by the console; on updates, absent fields stay as they are.
#[derive(Debug, Default, Clone, Deserialize, ToSchema)]
pub struct ChannelInput {
    pub id: Option<i64>,
    #[serde(rename = "type")]
    pub channel_type: Option<i64>,
    pub name: Option<String>,
    /// One key, or several separated by newlines or commas. Empty on updates keeps the keys,
    /// unless the update changes the base URL, header override or proxy setting.
    pub key: Option<String>,
    pub openai_organization: Option<String>,
    pub test_model: Option<String>,
    pub status: Option<i64>,
    pub weight: Option<i64>,
    pub priority: Option<i64>,
    pub base_url: Option<String>,
    pub other: Option<String>,
    pub models: Option<String>,
    pub group: Option<String>,
    pub model_mapping: Option<String>,
    pub status_code_mapping: Option<String>,
    pub auto_ban: Option<i64>,
    pub tag: Option<String>,
    pub setting: Option<String>,
    pub param_override: Option<String>,
    pub header_override: Option<String>,
    pub model_prefix: Option<String>,
    pub max_input_tokens: Option<i64>,
    pub remark: Option<String>,
    pub multi_key_mode: Option<String>,
}

/// `POST /api/channel/`: a channel, optionally wrapped with a creation mode.
#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateChannelRequest {
    /// `single` (default), `batch` (one channel per key) or `multi_to_single` (one multi-key channel).
    pub mode: Option<String>,
    /// `random` (default) or `polling`, for multi-key channels.
    pub multi_key_mode: Option<String>,
    pub channel: Option<ChannelInput>,
    #[serde(flatten)]
    pub plain: ChannelInput,
}

fn blank() -> ChannelRecord {
    ChannelRecord {
        id: 0,
        channel_type: 1,
        name: String::new(),
        key_enc: String::new(),
        openai_organization: String::new(),
        test_model: String::new(),
        status: STATUS_ENABLED,
        weight: 0,
        priority: 0,
        created_time: now(),
        test_time: 0,
        response_time: 0,
        base_url: String::new(),
        other: String::new(),
        balance: 0.0,
        balance_updated_time: 0,
        models: String::new(),
        group: "default".into(),
        used_quota: 0,
        model_mapping: String::new(),
        status_code_mapping: String::new(),
        auto_ban: 1,
        other_info: String::new(),
        tag: String::new(),
        setting: String::new(),
        param_override: String::new(),
        header_override: String::new(),
        model_prefix: String::new(),
        max_input_tokens: 0,
        remark: String::new(),
        multi_key_mode: String::new(),
        key_status: "{}".into(),
    }
}

/// Applies `input` to `c` and checks the result (keys are handled by the caller).
fn apply(c: &mut ChannelRecord, input: &ChannelInput) -> Result<(), Msg> {
    let text = |v: &Option<String>| v.as_deref().map(|s| s.trim().to_string());
    if let Some(t) = input.channel_type {
        c.channel_type = t;
    }
    if let Some(v) = text(&input.name) {
        c.name = v;
    }
    if let Some(v) = text(&input.openai_organization) {
        c.openai_organization = v;
    }
    if let Some(v) = text(&input.test_model) {
        c.test_model = v;
    }
    if let Some(v) = input.status {
        if ![STATUS_ENABLED, STATUS_DISABLED].contains(&v) && v != c.status {
            return Err(Msg::StatusInvalid);
        }
        if v != c.status {
            c.other_info = String::new();
        }
        c.status = v;
    }
    if let Some(v) = input.weight {
        c.weight = v;
    }
    if let Some(v) = input.priority {
        c.priority = v;
    }
    if let Some(v) = &input.base_url {
        c.base_url = channels::normalize_base_url(v);
    }
    if let Some(v) = text(&input.other) {
        c.other = v;
    }
    if let Some(v) = &input.models {
        c.models = channels::normalize_list(v);
    }
    if let Some(v) = &input.group {
        c.group = channels::normalize_list(v);
    }
    for (value, target) in [
        (&input.model_mapping, &mut c.model_mapping),
        (&input.status_code_mapping, &mut c.status_code_mapping),
        (&input.setting, &mut c.setting),
        (&input.param_override, &mut c.param_override),
        (&input.header_override, &mut c.header_override),
        (&input.tag, &mut c.tag),
        (&input.model_prefix, &mut c.model_prefix),
        (&input.remark, &mut c.remark),
        (&input.multi_key_mode, &mut c.multi_key_mode),
    ] {
        if let Some(v) = text(value) {
            *target = v;
        }
    }
    if let Some(v) = input.auto_ban {
        c.auto_ban = i64::from(v != 0);
    }
    if let Some(v) = input.max_input_tokens {
        c.max_input_tokens = v.max(0);
    }
    check(c)
}

fn check(c: &ChannelRecord) -> Result<(), Msg> {
    if !channels::is_known_type(c.channel_type) {
        return Err(Msg::ChannelTypeUnknown {
            channel_type: c.channel_type,
        });
    }
    if c.name.is_empty() {
        return Err(Msg::ChannelNameKeyRequired);
    }
    if c.models.is_empty() {
        return Err(Msg::ChannelModelsRequired);
    }
    for (field, value) in [
        ("model_mapping", &c.model_mapping),
        ("status_code_mapping", &c.status_code_mapping),
        ("setting", &c.setting),
        ("param_override", &c.param_override),
        ("header_override", &c.header_override),
    ] {
        channels::check_json_object(field, value)?;
    }
    if c.channel_type == channels::TYPE_VERTEX {
        channels::check_region(&c.other)?;
    }
    channels::check_priority(c.priority)?;
    channels::check_weight(c.weight)?;
    if c.group.is_empty() {
        return Err(Msg::GroupUnknown {
            group: String::new(),
        });
    }
    Ok(())
}

#[utoipa::path(post, path = "/api/channel/", tag = "channels", request_body = CreateChannelRequest,
    responses((status = 200, description = "ids of the created channels", body = Envelope<Vec<i64>>), (status = 403, body = EmptyEnvelope)))]
pub async fn create_channel(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiJson(request): ApiJson<CreateChannelRequest>,
) -> ApiResult<Json<Envelope<Vec<i64>>>> {
    let input = request.channel.clone().unwrap_or(request.plain.clone());
    let mut base = blank();
    let name_given = input.name.as_deref().is_some_and(|n| !n.trim().is_empty());
    let keys = channels::split_keys(
        input.channel_type.unwrap_or(1),
        input.key.as_deref().unwrap_or(""),
    );
    if !name_given || keys.is_empty() {
        return Err(ApiError::Rejected(Msg::ChannelNameKeyRequired));
    }
    apply(&mut base, &input).map_err(ApiError::Rejected)?;
    let mode = request.mode.as_deref().unwrap_or("single");
    let key_sets: Vec<Vec<String>> = match mode {
        "batch" => keys.into_iter().map(|k| vec![k]).collect(),
        _ => vec![keys],
    };
    let multi_mode = match request
        .multi_key_mode
        .as_deref()
        .or(input.multi_key_mode.as_deref())
    {
        Some("polling") => "polling",
        _ => "random",
    };
    let mut ids = Vec::new();
    let mut tx = state.db().pool.begin().await?;
    for keys in key_sets {
        let channel = ChannelRecord {
            key_enc: state.cipher().encrypt(&keys.join("\n")),
            multi_key_mode: if keys.len() > 1 {
                multi_mode.to_string()
            } else {
                String::new()
            },
            ..base.clone()
        };
        ids.push(store::channels::insert(&mut tx, &channel).await?);
    }
    tx.commit().await?;
    Ok(ok(ids))
}

fn destination(c: &ChannelRecord) -> channels::KeyDestination {
    channels::KeyDestination::of(&c.base_url, &c.header_override, &c.setting)
}

/// Absent fields stay as they are. Changing the base URL, the header override or the proxy
/// setting needs the key in the same request.
#[utoipa::path(put, path = "/api/channel/", tag = "channels", request_body = ChannelInput,
    responses((status = 200, body = Envelope<ChannelView>), (status = 403, body = EmptyEnvelope)))]
pub async fn update_channel(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiJson(input): ApiJson<ChannelInput>,
) -> ApiResult<Json<Envelope<ChannelView>>> {
    let id = input.id.ok_or(ApiError::Rejected(Msg::ChannelNotFound))?;
    let mut channel = find(&state, id).await?;
    let before = destination(&channel);
    apply(&mut channel, &input).map_err(ApiError::Rejected)?;
    let keys = channels::split_keys(channel.channel_type, input.key.as_deref().unwrap_or(""));
    if keys.is_empty() {
        if destination(&channel) != before {
            return Err(ApiError::Rejected(Msg::ChannelKeyRequiredForDestination));
        }
    } else {
        channel.key_enc = state.cipher().encrypt(&keys.join("\n"));
    }
    let mut tx = state.db().pool.begin().await?;
    store::channels::save(&mut tx, &channel).await?;
    if !keys.is_empty() {
        store::channels::reset_key_states(&mut tx, id).await?;
    }
    tx.commit().await?;
    Ok(ok(view(&state, find(&state, id).await?)))
}

#[utoipa::path(delete, path = "/api/channel/{id}/", tag = "channels", params(("id" = i64, Path)),
    responses((status = 200, body = EmptyEnvelope), (status = 403, body = EmptyEnvelope)))]
pub async fn delete_channel(
    State(state): State<AppState>,
    _admin: AdminCaller,
    Path(id): Path<i64>,
) -> ApiResult<Json<Envelope<()>>> {
    let mut tx = state.db().pool.begin().await?;
    let removed = store::channels::delete_many(&mut tx, &[id]).await?;
    tx.commit().await?;
    if removed == 0 {
        return Err(ApiError::Rejected(Msg::ChannelNotFound));
    }
    Ok(ok(()))
}

#[utoipa::path(delete, path = "/api/channel/disabled", tag = "channels",
    responses((status = 200, description = "how many were deleted", body = Envelope<u64>), (status = 403, body = EmptyEnvelope)))]
pub async fn delete_disabled(
    State(state): State<AppState>,
    _admin: AdminCaller,
) -> ApiResult<Json<Envelope<u64>>> {
    let ids = store::channels::disabled_ids(state.db()).await?;
    let mut tx = state.db().pool.begin().await?;
    let removed = store::channels::delete_many(&mut tx, &ids).await?;
    tx.commit().await?;
    Ok(ok(removed))
}

/// Channels chosen in the table.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ChannelIds {
    #[serde(default)]
    pub ids: Vec<i64>,
}

#[utoipa::path(post, path = "/api/channel/batch", tag = "channels", request_body = ChannelIds,
    responses((status = 200, description = "how many were deleted", body = Envelope<u64>), (status = 403, body = EmptyEnvelope)))]
pub async fn batch_delete(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiJson(request): ApiJson<ChannelIds>,
) -> ApiResult<Json<Envelope<u64>>> {
    if request.ids.is_empty() {
        return Err(ApiError::Rejected(Msg::ChannelIdsRequired));
    }
    let mut tx = state.db().pool.begin().await?;
    let removed = store::channels::delete_many(&mut tx, &request.ids).await?;
    tx.commit().await?;
    Ok(ok(removed))
}

#[utoipa::path(post, path = "/api/channel/fix", tag = "channels",
    responses((status = 200, description = "how many channels had their abilities rebuilt", body = Envelope<u64>), (status = 403, body = EmptyEnvelope)))]
pub async fn fix_abilities(
    State(state): State<AppState>,
    _admin: AdminCaller,
) -> ApiResult<Json<Envelope<u64>>> {
    let all = store::channels::all(state.db(), true).await?;
    let mut tx = state.db().pool.begin().await?;
    sqlx::query("DELETE FROM abilities")
        .execute(&mut *tx)
        .await?;
    for channel in &all {
        store::channels::rebuild_abilities(&mut tx, channel).await?;
    }
    tx.commit().await?;
    Ok(ok(all.len() as u64))
}

/// Channels and the tag to give them.
#[derive(Debug, Deserialize, ToSchema)]
pub struct BatchTag {
    #[serde(default)]
    pub ids: Vec<i64>,
    #[serde(default)]
    pub tag: String,
}

/// Applies `change` to each channel of `ids` in one transaction; returns how many changed.
async fn change_channels(
    state: &AppState,
    ids: &[i64],
    change: impl Fn(&mut ChannelRecord) -> Result<(), Msg>,
) -> ApiResult<u64> {
    let mut records = Vec::new();
    for id in ids {
        if let Some(mut c) = store::channels::find(state.db(), *id).await? {
            change(&mut c).map_err(ApiError::Rejected)?;
            records.push(c);
        }
    }
    let mut tx = state.db().pool.begin().await?;
    for c in &records {
        store::channels::save(&mut tx, c).await?;
    }
    tx.commit().await?;
    Ok(records.len() as u64)
}

#[utoipa::path(post, path = "/api/channel/batch/tag", tag = "channels", request_body = BatchTag,
    responses((status = 200, body = Envelope<u64>), (status = 403, body = EmptyEnvelope)))]
pub async fn batch_tag(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiJson(request): ApiJson<BatchTag>,
) -> ApiResult<Json<Envelope<u64>>> {
    if request.ids.is_empty() {
        return Err(ApiError::Rejected(Msg::ChannelIdsRequired));
    }
    let tag = request.tag.trim().to_string();
    if tag.is_empty() {
        return Err(ApiError::Rejected(Msg::TagRequired));
    }
    Ok(ok(change_channels(&state, &request.ids, |c| {
        c.tag = tag.clone();
        Ok(())
    })
    .await?))
}

/// Changes for every channel of a tag; absent fields stay as they are.
#[derive(Debug, Deserialize, ToSchema)]
pub struct TagEdit {
    #[serde(default)]
    pub tag: String,
    pub new_tag: Option<String>,
    pub model_mapping: Option<String>,
    /// Comma-separated groups.
    pub groups: Option<String>,
    /// Comma-separated models.
    pub models: Option<String>,
    pub priority: Option<i64>,
    pub weight: Option<i64>,
}

async fn tag_ids(state: &AppState, tag: &str) -> ApiResult<Vec<i64>> {
    let tag = tag.trim();
    if tag.is_empty() {
        return Err(ApiError::Rejected(Msg::TagRequired));
    }
    Ok(store::channels::ids_with_tag(state.db(), tag).await?)
}

#[utoipa::path(put, path = "/api/channel/tag", tag = "channels", request_body = TagEdit,
    responses((status = 200, body = Envelope<u64>), (status = 403, body = EmptyEnvelope)))]
pub async fn edit_tag(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiJson(edit): ApiJson<TagEdit>,
) -> ApiResult<Json<Envelope<u64>>> {
    let ids = tag_ids(&state, &edit.tag).await?;
    let input = ChannelInput {
        tag: edit.new_tag.clone().filter(|t| !t.trim().is_empty()),
        model_mapping: edit.model_mapping.clone(),
        group: edit.groups.clone(),
        models: edit.models.clone(),
        priority: edit.priority,
        weight: edit.weight,
        ..ChannelInput::default()
    };
    let nothing = input.tag.is_none()
        && input.model_mapping.is_none()
        && input.group.is_none()
        && input.models.is_none()
        && input.priority.is_none()
        && input.weight.is_none();
    if nothing {
        return Err(ApiError::Rejected(Msg::NothingChanged));
    }
    Ok(ok(
        change_channels(&state, &ids, |c| apply(c, &input)).await?
    ))
}

/// A tag.
#[derive(Debug, Deserialize, ToSchema)]
pub struct TagRequest {
    #[serde(default)]
    pub tag: String,
}

async fn set_tag_status(state: &AppState, tag: &str, status: i64) -> ApiResult<u64> {
    let ids = tag_ids(state, tag).await?;
    change_channels(state, &ids, |c| {
        if c.status != status {
            c.other_info = String::new();
        }
        c.status = status;
        Ok(())
    })
    .await
}

#[utoipa::path(post, path = "/api/channel/tag/enabled", tag = "channels", request_body = TagRequest,
    responses((status = 200, body = Envelope<u64>), (status = 403, body = EmptyEnvelope)))]
pub async fn enable_tag(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiJson(request): ApiJson<TagRequest>,
) -> ApiResult<Json<Envelope<u64>>> {
    Ok(ok(
        set_tag_status(&state, &request.tag, STATUS_ENABLED).await?
    ))
}

#[utoipa::path(post, path = "/api/channel/tag/disabled", tag = "channels", request_body = TagRequest,
    responses((status = 200, body = Envelope<u64>), (status = 403, body = EmptyEnvelope)))]
pub async fn disable_tag(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiJson(request): ApiJson<TagRequest>,
) -> ApiResult<Json<Envelope<u64>>> {
    Ok(ok(
        set_tag_status(&state, &request.tag, STATUS_DISABLED).await?
    ))
}

#[utoipa::path(get, path = "/api/channel/models_enabled", tag = "channels",
    responses((status = 200, body = Envelope<Vec<String>>), (status = 403, body = EmptyEnvelope)))]
pub async fn models_enabled(
    State(state): State<AppState>,
    _admin: AdminCaller,
) -> ApiResult<Json<Envelope<Vec<String>>>> {
    Ok(ok(store::channels::models_enabled(state.db()).await?))
}

/// A model known to the system.
#[derive(Debug, Serialize, ToSchema)]
pub struct ModelItem {
    pub id: String,
}

#[utoipa::path(get, path = "/api/channel/models", tag = "channels",
    responses((status = 200, description = "every model of any channel or price table", body = Envelope<Vec<ModelItem>>), (status = 403, body = EmptyEnvelope)))]
pub async fn all_models(
    State(state): State<AppState>,
    _admin: AdminCaller,
) -> ApiResult<Json<Envelope<Vec<ModelItem>>>> {
    let options = state.options().await?;
    let mut names: BTreeSet<String> = BTreeSet::new();
    for channel in store::channels::all(state.db(), true).await? {
        names.extend(
            channel
                .models
                .split(',')
                .map(str::trim)
                .filter(|m| !m.is_empty())
                .map(str::to_string),
        );
    }
    for key in ["ModelRatio", "ModelPrice"] {
        names.extend(options.json_keys(key));
    }
    Ok(ok(names.into_iter().map(|id| ModelItem { id }).collect()))
}
