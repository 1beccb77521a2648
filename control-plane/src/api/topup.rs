//! Online top-up: the amount to pay (`POST /api/user/amount`), a payment order with the
//! provider's form (`POST /api/user/pay`), the provider's signed notification that credits the
//! order once (`/api/user/epay/notify`), and top-up records.

use std::collections::{BTreeMap, HashMap};

use axum::Json;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::{AdminCaller, Caller};
use super::envelope::{EmptyEnvelope, Envelope, Page, PageQuery, ok};
use super::extract::{ApiJson, ApiQuery};
use crate::domain::options::Options;
use crate::domain::payment;
use crate::domain::quota::format_usd;
use crate::error::{ApiError, ApiResult};
use crate::i18n::Msg;
use crate::state::AppState;
use crate::store::logs::{EventLog, LogType};
use crate::store::top_ups::TopUpRecord;
use crate::store::{self, now};

/// How much to buy, and how to pay.
#[derive(Debug, Deserialize, ToSchema)]
pub struct TopUpRequest {
    /// Dollars of quota.
    #[serde(default)]
    pub amount: i64,
    #[serde(default)]
    pub top_up_code: String,
    /// `zfb` (Alipay) or `wx` (WeChat Pay); needed by `/api/user/pay`.
    #[serde(default)]
    pub payment_method: String,
}

/// Money to pay for `amount` as the caller (their group's top-up ratio applies).
fn quote(options: &Options, group: &str, amount: i64) -> Result<f64, Msg> {
    let min = options.i64("MinTopUp");
    if amount < min.max(1) {
        return Err(Msg::TopupAmountTooSmall { min: min.max(1) });
    }
    let ratio = options
        .json("TopupGroupRatio")
        .get(group)
        .and_then(|r| r.as_f64())
        .unwrap_or(1.0);
    Ok(payment::payable(amount, options.f64("Price"), ratio))
}

#[utoipa::path(post, path = "/api/user/amount", tag = "wallet", request_body = TopUpRequest,
    responses((status = 200, description = "the money to pay, e.g. \"7.30\"", body = Envelope<String>), (status = 401, body = EmptyEnvelope)))]
pub async fn amount_quote(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(request): ApiJson<TopUpRequest>,
) -> ApiResult<Json<Envelope<String>>> {
    let options = state.options().await?;
    let money = quote(&options, &caller.user.group, request.amount).map_err(ApiError::Rejected)?;
    Ok(ok(format!("{money:.2}")))
}

/// What the browser submits to the payment provider.
#[derive(Debug, Serialize, ToSchema)]
pub struct PayReply {
    pub success: bool,
    pub message: String,
    /// Form fields to post to `url`.
    pub data: BTreeMap<String, String>,
    pub url: String,
}

#[utoipa::path(post, path = "/api/user/pay", tag = "wallet", request_body = TopUpRequest,
    responses((status = 200, body = PayReply), (status = 401, body = EmptyEnvelope)))]
pub async fn pay(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(request): ApiJson<TopUpRequest>,
) -> ApiResult<Json<PayReply>> {
    let options = state.options().await?;
    let (address, pid, key) = (
        options.get("PayAddress"),
        options.get("EpayId"),
        options.get("EpayKey"),
    );
    if address.is_empty() || pid.is_empty() || key.is_empty() {
        return Err(ApiError::Rejected(Msg::OnlineTopupDisabled));
    }
    let server = options.get("ServerAddress");
    let callback = match options.get("CustomCallbackAddress") {
        "" => server,
        custom => custom,
    };
    if server.is_empty() {
        return Err(ApiError::Rejected(Msg::ServerAddressMissing));
    }
    let kind = payment::epay_type(request.payment_method.trim())
        .ok_or(ApiError::Rejected(Msg::PaymentMethodInvalid))?;
    let money = quote(&options, &caller.user.group, request.amount).map_err(ApiError::Rejected)?;
    let trade_no = payment::trade_no(caller.user.id);
    store::top_ups::insert(
        state.db(),
        caller.user.id,
        request.amount,
        money,
        &trade_no,
        kind,
        now(),
    )
    .await?;

    let mut form: BTreeMap<String, String> = [
        ("pid", pid.to_string()),
        ("type", kind.to_string()),
        ("out_trade_no", trade_no),
        ("notify_url", format!("{callback}/api/user/epay/notify")),
        ("return_url", format!("{server}/topup")),
        ("name", format!("TUC{}", request.amount)),
        ("money", format!("{money:.2}")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let signature = payment::sign(&form, key);
    form.insert("sign".into(), signature);
    form.insert("sign_type".into(), "MD5".into());
    Ok(Json(PayReply {
        success: true,
        message: "success".into(),
        data: form,
        url: format!("{address}/submit.php"),
    }))
}

/// The provider's notification: checked, then the order is credited once. Answers `success`
/// (the provider stops retrying) or `fail`.
#[utoipa::path(get, path = "/api/user/epay/notify", tag = "wallet",
    params(("out_trade_no" = String, Query), ("trade_status" = String, Query), ("sign" = String, Query)),
    responses((status = 200, description = "`success` or `fail` as plain text")))]
pub async fn epay_notify(
    State(state): State<AppState>,
    Query(params): Query<HashMap<String, String>>,
) -> Response {
    match credit(&state, params.into_iter().collect()).await {
        Ok(()) => "success".into_response(),
        Err(err) => {
            tracing::warn!(error = %err, "payment notification refused");
            "fail".into_response()
        }
    }
}

async fn credit(state: &AppState, params: BTreeMap<String, String>) -> Result<(), ApiError> {
    let options = state.options().await?;
    if !payment::verify(&params, options.get("EpayKey")) {
        return Err(ApiError::Forbidden(Msg::PermissionDenied));
    }
    if params.get("trade_status").map(String::as_str) != Some("TRADE_SUCCESS") {
        return Ok(());
    }
    let trade_no = params.get("out_trade_no").cloned().unwrap_or_default();
    let order = store::top_ups::find(state.db(), &trade_no)
        .await?
        .ok_or(ApiError::NotFound)?;
    let paid: f64 = params
        .get("money")
        .and_then(|m| m.parse().ok())
        .unwrap_or(-1.0);
    if (paid - order.money).abs() > 0.005 {
        return Err(ApiError::Rejected(Msg::PermissionDenied));
    }
    let per_unit = options.i64("QuotaPerUnit");
    let quota = order.amount.saturating_mul(per_unit);
    let user = store::users::find_by_id(state.db(), order.user_id)
        .await?
        .ok_or(ApiError::NotFound)?;
    let rebate = rebate_of(&options, quota);
    let inviter = match (rebate > 0, user.inviter_id > 0) {
        (true, true) => store::users::find_by_id(state.db(), user.inviter_id).await?,
        _ => None,
    };
    let mut tx = state.db().pool.begin().await?;
    if !store::top_ups::complete(&mut *tx, &trade_no, now()).await? {
        // Already credited: a replay is acknowledged and changes nothing.
        return Ok(());
    }
    store::users::add_quota(&mut *tx, order.user_id, quota).await?;
    if let Some(inviter) = &inviter {
        // The inviter's share goes to their invitation earnings (moved to the balance by them).
        if store::users::add_aff_quota(&mut *tx, inviter.id, rebate).await? {
            store::logs::insert_event(
                &mut *tx,
                EventLog {
                    user_id: inviter.id,
                    username: &inviter.username,
                    kind: LogType::System,
                    content: format!(
                        "invitation rebate {} for a top-up by {}",
                        format_usd(rebate, per_unit),
                        user.username
                    ),
                    quota: rebate,
                },
            )
            .await?;
        }
    }
    store::logs::insert_event(
        &mut *tx,
        EventLog {
            user_id: order.user_id,
            username: &user.username,
            kind: LogType::Topup,
            content: format!(
                "online top-up {} paid {:.2} by {}",
                format_usd(quota, per_unit),
                order.money,
                order.payment_method
            ),
            quota,
        },
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// The inviter's rebate on a top-up of `quota` (`RebateEnabled`, `RebatePercentage` with up to
/// two decimals), rounded down: exact integer arithmetic.
fn rebate_of(options: &crate::domain::options::Options, quota: i64) -> i64 {
    if !options.bool("RebateEnabled") {
        return 0;
    }
    let basis_points = (options.f64("RebatePercentage") * 100.0)
        .round()
        .clamp(0.0, 10_000.0) as i128;
    i64::try_from(i128::from(quota.max(0)) * basis_points / 10_000).unwrap_or(0)
}

/// A top-up order.
#[derive(Debug, Serialize, ToSchema)]
pub struct TopUpView {
    pub id: i64,
    pub user_id: i64,
    pub amount: i64,
    pub money: f64,
    pub trade_no: String,
    pub payment_method: String,
    pub create_time: i64,
    pub complete_time: i64,
    pub status: String,
}

impl From<TopUpRecord> for TopUpView {
    fn from(t: TopUpRecord) -> Self {
        TopUpView {
            id: t.id,
            user_id: t.user_id,
            amount: t.amount,
            money: t.money,
            trade_no: t.trade_no,
            payment_method: t.payment_method,
            create_time: t.create_time,
            complete_time: t.complete_time,
            status: t.status,
        }
    }
}

async fn page_of(
    state: &AppState,
    user_id: Option<i64>,
    paging: &PageQuery,
) -> ApiResult<Json<Envelope<Page<TopUpView>>>> {
    let (page, page_size, offset) = paging.resolve();
    let (items, total) = store::top_ups::list(state.db(), user_id, offset, page_size).await?;
    Ok(ok(Page {
        items: items.into_iter().map(TopUpView::from).collect(),
        page,
        page_size,
        total,
    }))
}

#[utoipa::path(get, path = "/api/user/topup/self", tag = "wallet", params(PageQuery),
    responses((status = 200, body = Envelope<Page<TopUpView>>), (status = 401, body = EmptyEnvelope)))]
pub async fn own_topups(
    State(state): State<AppState>,
    caller: Caller,
    ApiQuery(paging): ApiQuery<PageQuery>,
) -> ApiResult<Json<Envelope<Page<TopUpView>>>> {
    page_of(&state, Some(caller.user.id), &paging).await
}

#[utoipa::path(get, path = "/api/user/topup", tag = "wallet", params(PageQuery),
    responses((status = 200, body = Envelope<Page<TopUpView>>), (status = 403, body = EmptyEnvelope)))]
pub async fn all_topups(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiQuery(paging): ApiQuery<PageQuery>,
) -> ApiResult<Json<Envelope<Page<TopUpView>>>> {
    page_of(&state, None, &paging).await
}
