//! First-run setup: `GET /api/setup` tells whether it is done; `POST /api/setup` creates the root
//! account and the usage mode, from loopback or with the setup token only.

use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::envelope::{EmptyEnvelope, Envelope, done, ok};
use super::extract::{ApiJson, LocalClient};
use crate::domain::accounts::{self, SETUP_USERNAME_MAX};
use crate::domain::roles::ROLE_ROOT;
use crate::domain::secrets;
use crate::error::{ApiError, ApiResult};
use crate::i18n::Msg;
use crate::state::AppState;
use crate::store::{self, is_unique_violation, now};

/// Quota given to the root account at setup.
pub const ROOT_INITIAL_QUOTA: i64 = 100_000_000;
/// Header that may carry the setup token.
pub const SETUP_TOKEN_HEADER: &str = "X-Setup-Token";

/// Whether the system is set up.
#[derive(Debug, Serialize, ToSchema)]
pub struct SetupStatus {
    /// True once setup is complete.
    pub status: bool,
    /// True when a root account exists.
    pub root_init: bool,
    /// `sqlite` or `postgres`.
    pub database_type: String,
}

/// The setup form.
#[derive(Debug, Deserialize, ToSchema)]
pub struct SetupRequest {
    #[serde(default)]
    pub username: String,
    #[serde(default)]
    pub password: String,
    #[serde(default, rename = "confirmPassword")]
    pub confirm_password: String,
    #[serde(default, rename = "SelfUseModeEnabled")]
    pub self_use_mode_enabled: bool,
    #[serde(default, rename = "DemoSiteEnabled")]
    pub demo_site_enabled: bool,
    /// The setup token from the control plane's log; needed unless calling from loopback.
    #[serde(default)]
    pub setup_token: Option<String>,
}

#[utoipa::path(get, path = "/api/setup", tag = "setup",
    responses((status = 200, body = Envelope<SetupStatus>)))]
pub async fn get_setup(State(state): State<AppState>) -> ApiResult<Json<Envelope<SetupStatus>>> {
    let db = state.db();
    Ok(ok(SetupStatus {
        status: state.is_initialized().await?,
        root_init: store::users::root_exists(db).await?,
        database_type: db.kind.name().to_string(),
    }))
}

#[utoipa::path(post, path = "/api/setup", tag = "setup", request_body = SetupRequest,
    params(("X-Setup-Token" = Option<String>, Header, description = "setup token for non-loopback clients")),
    responses((status = 200, body = EmptyEnvelope), (status = 403, body = EmptyEnvelope)))]
pub async fn post_setup(
    State(state): State<AppState>,
    LocalClient(local): LocalClient,
    headers: HeaderMap,
    ApiJson(form): ApiJson<SetupRequest>,
) -> ApiResult<Json<Envelope<()>>> {
    if state.is_initialized().await? {
        return Err(ApiError::Rejected(Msg::AlreadyInitialized));
    }
    let offered = headers
        .get(SETUP_TOKEN_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .or(form.setup_token.clone())
        .unwrap_or_default();
    if !local && !secrets::constant_time_eq(&offered, state.setup_token()) {
        return Err(ApiError::Forbidden(Msg::SetupNotAllowed));
    }

    let db = state.db();
    let create_root = !store::users::root_exists(db).await?;
    let root_hash = if create_root {
        validate_root(&form)?;
        Some(state.passwords().hash(form.password.clone()).await?)
    } else {
        None
    };

    let mut tx = db.pool.begin().await?;
    let now = now();
    if let Some(hash) = &root_hash {
        let root = store::users::NewUser {
            username: form.username.trim(),
            password_hash: hash,
            display_name: "Root User",
            role: ROLE_ROOT,
            email: "",
            group: "default",
            quota: ROOT_INITIAL_QUOTA,
            inviter_id: 0,
            created_at: now,
        };
        store::users::insert(&mut *tx, &root).await?;
    }
    let flag = |b: bool| if b { "true" } else { "false" };
    store::options::upsert(
        &mut *tx,
        "SelfUseModeEnabled",
        flag(form.self_use_mode_enabled),
    )
    .await?;
    store::options::upsert(&mut *tx, "DemoSiteEnabled", flag(form.demo_site_enabled)).await?;
    match store::setup::mark_initialized(&mut tx, env!("CARGO_PKG_VERSION"), now).await {
        Err(err) if is_unique_violation(&err) => {
            return Err(ApiError::Rejected(Msg::AlreadyInitialized));
        }
        other => other?,
    }
    tx.commit().await?;
    state.mark_initialized();
    tracing::info!(root_created = create_root, "setup completed");
    Ok(done())
}

fn validate_root(form: &SetupRequest) -> Result<(), ApiError> {
    let username = form.username.trim();
    if username.is_empty() {
        return Err(ApiError::Rejected(Msg::SetupUsernameRequired));
    }
    if username.chars().count() > SETUP_USERNAME_MAX {
        return Err(ApiError::Rejected(Msg::SetupUsernameTooLong {
            max: SETUP_USERNAME_MAX,
        }));
    }
    accounts::check_username(username).map_err(ApiError::Rejected)?;
    if form.password.chars().count() < accounts::PASSWORD_MIN {
        return Err(ApiError::Rejected(Msg::SetupPasswordTooShort {
            min: accounts::PASSWORD_MIN,
        }));
    }
    accounts::check_password(&form.password).map_err(ApiError::Rejected)?;
    if form.password != form.confirm_password {
        return Err(ApiError::Rejected(Msg::PasswordsDiffer));
    }
    Ok(())
}
