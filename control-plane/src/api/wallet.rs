//! The caller's money: redeeming a code (`POST /api/user/topup`), the daily check-in, moving
//! invitation earnings into the balance, and notification settings.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::Caller;
use super::envelope::{EmptyEnvelope, Envelope, ok};
use super::extract::{ApiJson, ClientIp};
use super::throttle;
use crate::domain::accounts;
use crate::domain::limits::Action;
use crate::domain::quota::format_usd;
use crate::domain::redemption::{self, CodeState};
use crate::error::{ApiError, ApiResult};
use crate::i18n::Msg;
use crate::state::AppState;
use crate::store::logs::{EventLog, LogType};
use crate::store::{self, now};

/// The code to redeem.
#[derive(Debug, Deserialize, ToSchema)]
pub struct RedeemRequest {
    #[serde(default)]
    pub key: String,
}

/// What redeeming added.
#[derive(Debug, Serialize, ToSchema)]
pub struct RedeemResult {
    pub quota: i64,
    pub is_gift: bool,
}

#[utoipa::path(post, path = "/api/user/topup", tag = "wallet", request_body = RedeemRequest,
    responses((status = 200, body = Envelope<RedeemResult>), (status = 401, body = EmptyEnvelope),
        (status = 429, description = "too many failed redemptions by this user or from this client (Retry-After)", body = EmptyEnvelope)))]
pub async fn redeem(
    State(state): State<AppState>,
    caller: Caller,
    client: ClientIp,
    ApiJson(request): ApiJson<RedeemRequest>,
) -> ApiResult<Json<Envelope<RedeemResult>>> {
    let key = request.key.trim();
    if key.is_empty() {
        return Err(ApiError::Rejected(Msg::RedemptionCodeRequired));
    }
    let account = format!("user:{}", caller.user.id);
    let attempt = throttle::attempt(&state, Action::Redeem, client, &account).await?;
    let redeemed = redeem_code(&state, &caller, key).await?;
    attempt.succeeded().await?;
    Ok(ok(redeemed))
}

/// Redeems `key` for the caller.
async fn redeem_code(state: &AppState, caller: &Caller, key: &str) -> ApiResult<RedeemResult> {
    let db = state.db();
    let code = store::redemptions::find_by_key(db, key)
        .await?
        .ok_or(ApiError::Rejected(Msg::RedemptionInvalid))?;
    let is_gift = code.is_gift != 0;
    let now = now();
    redemption::check_redeemable(
        &CodeState {
            status: code.status,
            is_gift,
            max_uses: code.max_uses,
            used_count: code.used_count,
            valid_from: code.valid_from,
            valid_until: code.valid_until,
        },
        now,
    )
    .map_err(ApiError::Rejected)?;

    // Read before the transaction: a transaction must never wait for a second pool connection.
    let per_unit = state.options().await?.i64("QuotaPerUnit");
    let user = &caller.user;
    let mut tx = db.pool.begin().await?;
    if is_gift {
        if !store::redemptions::record_gift_use(&mut *tx, code.id, user.id, now).await? {
            return Err(ApiError::Rejected(Msg::GiftAlreadyUsed));
        }
        if !store::redemptions::take_gift_use(&mut *tx, code.id, now).await? {
            return Err(ApiError::Rejected(Msg::GiftUsedUp));
        }
    } else if !store::redemptions::take_single_use(&mut *tx, code.id, user.id, now).await? {
        return Err(ApiError::Rejected(Msg::RedemptionUsed));
    }
    store::users::add_quota(&mut *tx, user.id, code.quota).await?;
    store::logs::insert_event(
        &mut *tx,
        EventLog {
            user_id: user.id,
            username: &user.username,
            kind: LogType::Topup,
            content: format!(
                "redeemed code {} (id {}): {}",
                code.name,
                code.id,
                format_usd(code.quota, per_unit)
            ),
            quota: code.quota,
        },
    )
    .await?;
    tx.commit().await?;
    Ok(RedeemResult {
        quota: code.quota,
        is_gift,
    })
}

/// Whether the caller may check in today.
#[derive(Debug, Serialize, ToSchema)]
pub struct CheckInStatus {
    pub enabled: bool,
    pub can_check_in: bool,
}

/// The day number (UTC) of an epoch-seconds time.
fn day_of(time: i64) -> i64 {
    time.div_euclid(86_400)
}

#[utoipa::path(get, path = "/api/user/check_in_status", tag = "wallet",
    responses((status = 200, body = Envelope<CheckInStatus>), (status = 401, body = EmptyEnvelope)))]
pub async fn check_in_status(
    State(state): State<AppState>,
    caller: Caller,
) -> ApiResult<Json<Envelope<CheckInStatus>>> {
    let enabled = state.options().await?.bool("CheckInEnabled");
    let done = store::checkins::exists(state.db(), caller.user.id, day_of(now())).await?;
    Ok(ok(CheckInStatus {
        enabled,
        can_check_in: enabled && !done,
    }))
}

/// What a check-in gave.
#[derive(Debug, Serialize, ToSchema)]
pub struct CheckInResult {
    pub quota: i64,
}

#[utoipa::path(post, path = "/api/user/check_in", tag = "wallet",
    responses((status = 200, body = Envelope<CheckInResult>), (status = 401, body = EmptyEnvelope)))]
pub async fn check_in(
    State(state): State<AppState>,
    caller: Caller,
) -> ApiResult<Json<Envelope<CheckInResult>>> {
    let options = state.options().await?;
    if !options.bool("CheckInEnabled") {
        return Err(ApiError::Rejected(Msg::CheckInDisabled));
    }
    let low = options.i64("CheckInQuota").max(0);
    let high = options.i64("CheckInMaxQuota").max(low);
    let quota = rand::random_range(low..=high);
    let now = now();
    let user = &caller.user;
    let mut tx = state.db().pool.begin().await?;
    if !store::checkins::insert(&mut *tx, user.id, day_of(now), quota, now).await? {
        return Err(ApiError::Rejected(Msg::AlreadyCheckedIn));
    }
    store::users::add_quota(&mut *tx, user.id, quota).await?;
    store::logs::insert_event(
        &mut *tx,
        EventLog {
            user_id: user.id,
            username: &user.username,
            kind: LogType::CheckIn,
            content: format!(
                "daily check-in: {}",
                format_usd(quota, options.i64("QuotaPerUnit"))
            ),
            quota,
        },
    )
    .await?;
    tx.commit().await?;
    Ok(ok(CheckInResult { quota }))
}

/// Earnings to move into the balance.
#[derive(Debug, Deserialize, ToSchema)]
pub struct AffTransferRequest {
    #[serde(default)]
    pub quota: i64,
}

#[utoipa::path(post, path = "/api/user/aff_transfer", tag = "wallet", request_body = AffTransferRequest,
    responses((status = 200, body = EmptyEnvelope), (status = 401, body = EmptyEnvelope)))]
pub async fn aff_transfer(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(request): ApiJson<AffTransferRequest>,
) -> ApiResult<Json<Envelope<()>>> {
    let per_unit = state.options().await?.i64("QuotaPerUnit");
    if request.quota < per_unit {
        return Err(ApiError::Rejected(Msg::AffTransferTooSmall {
            min: format_usd(per_unit, per_unit),
        }));
    }
    let user = &caller.user;
    let mut tx = state.db().pool.begin().await?;
    if !store::users::transfer_aff_quota(&mut *tx, user.id, request.quota).await? {
        return Err(ApiError::Rejected(Msg::AffTransferTooLarge));
    }
    store::logs::insert_event(
        &mut *tx,
        EventLog {
            user_id: user.id,
            username: &user.username,
            kind: LogType::System,
            content: format!(
                "invitation earnings moved to the balance: {}",
                format_usd(request.quota, per_unit)
            ),
            quota: request.quota,
        },
    )
    .await?;
    tx.commit().await?;
    Ok(ok(()))
}

/// Notification and pricing preferences of the caller (stored as the user's `setting` JSON).
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
pub struct UserSetting {
    /// `email` (default) or `webhook`.
    #[serde(default = "default_notify_type")]
    pub notify_type: String,
    /// Remaining quota under which a warning is sent.
    #[serde(default = "default_threshold")]
    pub quota_warning_threshold: i64,
    #[serde(default)]
    pub webhook_url: String,
    /// Sent as a Bearer token with each webhook call.
    #[serde(default)]
    pub webhook_secret: String,
    #[serde(default)]
    pub notification_email: String,
    #[serde(default)]
    pub accept_unset_model_ratio_model: bool,
}

fn default_notify_type() -> String {
    "email".into()
}

/// The threshold a saved setting without one gets (spec 1 §9).
fn default_threshold() -> i64 {
    500_000
}

#[utoipa::path(put, path = "/api/user/setting", tag = "wallet", request_body = UserSetting,
    responses((status = 200, body = EmptyEnvelope), (status = 401, body = EmptyEnvelope)))]
pub async fn update_setting(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(mut setting): ApiJson<UserSetting>,
) -> ApiResult<Json<Envelope<()>>> {
    setting.notify_type = setting.notify_type.trim().to_string();
    setting.webhook_url = setting.webhook_url.trim().to_string();
    setting.notification_email = setting.notification_email.trim().to_string();
    match setting.notify_type.as_str() {
        "email" => {}
        "webhook" if setting.webhook_url.is_empty() => {
            return Err(ApiError::Rejected(Msg::WebhookUrlRequired));
        }
        "webhook" => {}
        _ => return Err(ApiError::Rejected(Msg::NotifyTypeInvalid)),
    }
    if !setting.webhook_url.is_empty() && !setting.webhook_url.starts_with("https://") {
        return Err(ApiError::Rejected(Msg::WebhookUrlHttps));
    }
    if setting.quota_warning_threshold < 0 {
        return Err(ApiError::Rejected(Msg::QuotaNegative));
    }
    if !setting.notification_email.is_empty() {
        accounts::email_domain(&setting.notification_email).map_err(ApiError::Rejected)?;
    }
    let json = serde_json::to_string(&setting)
        .map_err(|e| ApiError::Internal(format!("user setting: {e}")))?;
    store::users::set_setting(state.db(), caller.user.id, &json).await?;
    Ok(ok(()))
}
