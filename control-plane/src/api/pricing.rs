//! Prices: the public pricing table (`GET /api/pricing`), models per channel type
//! (`GET /api/models`), models used without any price (`GET /api/models/unset`), and resetting the
//! ratio options to the default table (`POST /api/option/rest_model_ratio`).

use std::collections::{BTreeMap, BTreeSet};

use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use serde::Serialize;
use utoipa::ToSchema;

use super::auth::{self, AdminCaller, Caller, RootCaller};
use super::envelope::{EmptyEnvelope, Envelope, ok};
use super::me::usable_groups;
use crate::domain::options::Options;
use crate::domain::pricing;
use crate::error::ApiResult;
use crate::state::AppState;
use crate::store;

/// How a model is billed and in which groups it is available.
#[derive(Debug, Serialize, ToSchema)]
pub struct PricingModel {
    pub model_name: String,
    /// 0 per token (ratios), 1 per request (fixed price).
    pub quota_type: i64,
    pub model_ratio: f64,
    pub completion_ratio: f64,
    pub cache_ratio: Option<f64>,
    /// USD per request (quota_type 1).
    pub model_price: f64,
    pub enable_groups: Vec<String>,
}

/// The pricing page's data: models, group ratios, and the groups the viewer may use.
#[derive(Debug, Serialize, ToSchema)]
pub struct PricingReply {
    pub success: bool,
    pub message: String,
    pub data: Vec<PricingModel>,
    pub group_ratio: BTreeMap<String, f64>,
    /// The viewer's own ratios when using another group (`GroupGroupRatio` of the viewer's
    /// group; these replace `group_ratio` for them). Empty for a signed-out visitor.
    pub group_group_ratio: BTreeMap<String, f64>,
    /// Group name → description.
    pub usable_group: BTreeMap<String, String>,
}

fn number_map(options: &Options, key: &str) -> BTreeMap<String, f64> {
    match options.json(key) {
        serde_json::Value::Object(map) => map
            .into_iter()
            .filter_map(|(k, v)| v.as_f64().map(|f| (k, f)))
            .collect(),
        _ => BTreeMap::new(),
    }
}

#[utoipa::path(get, path = "/api/pricing", tag = "pricing",
    responses((status = 200, body = PricingReply)))]
pub async fn get_pricing(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> ApiResult<Json<PricingReply>> {
    let viewer = auth::authenticate(&headers, &state).await.ok();
    let options = state.options().await?;
    let ratios = number_map(&options, "ModelRatio");
    let completions = number_map(&options, "CompletionRatio");
    let caches = number_map(&options, "CacheRatio");
    let prices = number_map(&options, "ModelPrice");
    let mut groups_of: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (group, model) in store::abilities::enabled_pairs(state.db()).await? {
        groups_of.entry(model).or_default().insert(group);
    }
    let data = groups_of
        .into_iter()
        .map(|(model, groups)| {
            let price = prices.get(&model).copied();
            PricingModel {
                quota_type: i64::from(price.is_some()),
                model_ratio: ratios.get(&model).copied().unwrap_or(0.0),
                completion_ratio: completions.get(&model).copied().unwrap_or(1.0),
                cache_ratio: caches.get(&model).copied(),
                model_price: price.unwrap_or(0.0),
                enable_groups: groups.into_iter().collect(),
                model_name: model,
            }
        })
        .collect();
    let user_group = viewer
        .as_ref()
        .map(|c| c.user.group.clone())
        .unwrap_or_else(|| "default".into());
    Ok(Json(PricingReply {
        success: true,
        message: String::new(),
        data,
        group_ratio: number_map(&options, "GroupRatio"),
        group_group_ratio: match (&viewer, options.json("GroupGroupRatio")) {
            (Some(_), serde_json::Value::Object(mut by_group)) => {
                match by_group.remove(&user_group) {
                    Some(serde_json::Value::Object(ratios)) => ratios
                        .into_iter()
                        .filter_map(|(g, r)| Some((g, r.as_f64()?)))
                        .collect(),
                    _ => BTreeMap::new(),
                }
            }
            _ => BTreeMap::new(),
        },
        usable_group: usable_groups(&options, &user_group),
    }))
}

#[utoipa::path(get, path = "/api/models", tag = "pricing",
    responses((status = 200, description = "channel type → models of that type's channels", body = Envelope<BTreeMap<String, Vec<String>>>), (status = 401, body = EmptyEnvelope)))]
pub async fn models_by_type(
    State(state): State<AppState>,
    _caller: Caller,
) -> ApiResult<Json<Envelope<BTreeMap<String, Vec<String>>>>> {
    let mut by_type: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for channel in store::channels::all(state.db(), true).await? {
        by_type
            .entry(channel.channel_type.to_string())
            .or_default()
            .extend(
                channel
                    .models
                    .split(',')
                    .map(str::trim)
                    .filter(|m| !m.is_empty())
                    .map(str::to_string),
            );
    }
    Ok(ok(by_type
        .into_iter()
        .map(|(t, models)| (t, models.into_iter().collect()))
        .collect()))
}

#[utoipa::path(get, path = "/api/models/unset", tag = "pricing",
    responses((status = 200, description = "models served by channels that have neither a ratio nor a price", body = Envelope<Vec<String>>), (status = 403, body = EmptyEnvelope)))]
pub async fn unset_models(
    State(state): State<AppState>,
    _admin: AdminCaller,
) -> ApiResult<Json<Envelope<Vec<String>>>> {
    let options = state.options().await?;
    let ratios = number_map(&options, "ModelRatio");
    let prices = number_map(&options, "ModelPrice");
    let mut unset = BTreeSet::new();
    for channel in store::channels::all(state.db(), true).await? {
        for model in channel
            .models
            .split(',')
            .map(str::trim)
            .filter(|m| !m.is_empty())
        {
            if !ratios.contains_key(model) && !prices.contains_key(model) {
                unset.insert(model.to_string());
            }
        }
    }
    Ok(ok(unset.into_iter().collect()))
}

#[utoipa::path(post, path = "/api/option/rest_model_ratio", tag = "pricing",
    responses((status = 200, body = EmptyEnvelope), (status = 403, body = EmptyEnvelope)))]
pub async fn reset_model_ratios(
    State(state): State<AppState>,
    _root: RootCaller,
) -> ApiResult<Json<Envelope<()>>> {
    let mut tx = state.db().pool.begin().await?;
    for (key, value) in pricing::defaults() {
        store::options::upsert(&mut *tx, key, &value).await?;
    }
    tx.commit().await?;
    Ok(ok(()))
}
