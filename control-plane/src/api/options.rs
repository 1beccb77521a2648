//! `GET /api/option/` (every non-secret option) and `PUT /api/option/` (one validated key), for
//! the super administrator.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::RootCaller;
use super::envelope::{EmptyEnvelope, Envelope, done, ok};
use super::extract::ApiJson;
use crate::domain::options;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::store;

/// One option.
#[derive(Debug, Serialize, ToSchema)]
pub struct OptionEntry {
    pub key: String,
    pub value: String,
}

#[utoipa::path(get, path = "/api/option/", tag = "options",
    responses((status = 200, body = Envelope<Vec<OptionEntry>>), (status = 401, body = EmptyEnvelope), (status = 403, body = EmptyEnvelope)))]
pub async fn list_options(
    State(state): State<AppState>,
    _root: RootCaller,
) -> ApiResult<Json<Envelope<Vec<OptionEntry>>>> {
    let options = state.options().await?;
    let entries = options
        .public_entries()
        .map(|(key, value)| OptionEntry {
            key: key.to_string(),
            value: value.to_string(),
        })
        .collect();
    Ok(ok(entries))
}

/// A new value for one option. Booleans and numbers are accepted and stored as strings.
#[derive(Debug, Deserialize, ToSchema)]
pub struct OptionUpdate {
    pub key: String,
    #[schema(value_type = String)]
    pub value: serde_json::Value,
}

#[utoipa::path(put, path = "/api/option/", tag = "options", request_body = OptionUpdate,
    responses((status = 200, body = EmptyEnvelope), (status = 401, body = EmptyEnvelope), (status = 403, body = EmptyEnvelope)))]
pub async fn update_option(
    State(state): State<AppState>,
    _root: RootCaller,
    ApiJson(update): ApiJson<OptionUpdate>,
) -> ApiResult<Json<Envelope<()>>> {
    let raw = match &update.value {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Bool(b) => b.to_string(),
        serde_json::Value::Number(n) => n.to_string(),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    };
    let current = state.options().await?;
    let value = options::normalize(&update.key, &raw, &current).map_err(ApiError::Rejected)?;
    store::options::upsert(&state.db().pool, &update.key, &value).await?;
    Ok(done())
}
