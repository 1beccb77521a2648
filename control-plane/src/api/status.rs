//! `GET /api/status`: the public configuration the console caches (spec 1 §3 "Status object").

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use super::envelope::{Envelope, ok};
use crate::domain::options::Options;
use crate::error::ApiResult;
use crate::state::AppState;

/// Public configuration.
#[derive(Debug, Serialize, ToSchema)]
pub struct StatusView {
    pub version: String,
    pub start_time: i64,
    pub setup: bool,
    pub system_name: String,
    pub logo: String,
    pub footer_html: String,
    pub notice: String,
    pub quota_per_unit: i64,
    pub display_in_currency: bool,
    pub display_token_stat: bool,
    pub enable_drawing: bool,
    pub enable_task: bool,
    pub enable_data_export: bool,
    pub data_export_default_time: String,
    pub default_collapse_sidebar: bool,
    pub mj_notify_enabled: bool,
    pub check_in_enabled: bool,
    /// Alias of `check_in_enabled` used by some clients.
    pub checkin_enabled: bool,
    /// JSON list of `{name: link}` objects.
    pub chats: serde_json::Value,
    pub chat_link: String,
    pub chat_link2: String,
    pub docs_link: String,
    pub email_verification: bool,
    pub turnstile_check: bool,
    pub turnstile_site_key: String,
    pub github_oauth: bool,
    pub github_client_id: String,
    pub oidc_enabled: bool,
    pub oidc_client_id: String,
    pub oidc_authorization_endpoint: String,
    pub wechat_login: bool,
    pub wechat_qrcode: String,
    pub telegram_oauth: bool,
    pub telegram_bot_name: String,
    pub linuxdo_oauth: bool,
    pub linuxdo_client_id: String,
    pub register_enabled: bool,
    pub password_login_enabled: bool,
    pub password_register_enabled: bool,
    pub self_use_mode_enabled: bool,
    pub demo_site_enabled: bool,
    pub server_address: String,
    pub top_up_link: String,
    pub price: f64,
    pub min_topup: i64,
    pub enable_online_topup: bool,
}

#[utoipa::path(get, path = "/api/status", tag = "status",
    responses((status = 200, body = Envelope<StatusView>)))]
pub async fn get_status(State(state): State<AppState>) -> ApiResult<Json<Envelope<StatusView>>> {
    let options = state.options().await?;
    let setup = state.is_initialized().await?;
    Ok(ok(status_view(&options, setup, state.start_time())))
}

fn chat_link(chats: &serde_json::Value, index: usize) -> String {
    chats
        .as_array()
        .and_then(|list| list.get(index))
        .and_then(|entry| entry.as_object())
        .and_then(|entry| entry.values().next())
        .and_then(|link| link.as_str())
        .unwrap_or_default()
        .to_string()
}

fn status_view(o: &Options, setup: bool, start_time: i64) -> StatusView {
    let chats = match o.json("Chats") {
        serde_json::Value::Array(list) => serde_json::Value::Array(list),
        _ => serde_json::Value::Array(Vec::new()),
    };
    StatusView {
        version: env!("CARGO_PKG_VERSION").to_string(),
        start_time,
        setup,
        system_name: o.get("SystemName").to_string(),
        logo: o.get("Logo").to_string(),
        footer_html: o.get("Footer").to_string(),
        notice: o.get("Notice").to_string(),
        quota_per_unit: o.i64("QuotaPerUnit"),
        display_in_currency: o.bool("DisplayInCurrencyEnabled"),
        display_token_stat: o.bool("DisplayTokenStatEnabled"),
        enable_drawing: o.bool("DrawingEnabled"),
        enable_task: o.bool("TaskEnabled"),
        enable_data_export: o.bool("DataExportEnabled"),
        data_export_default_time: o.get("DataExportDefaultTime").to_string(),
        default_collapse_sidebar: o.bool("DefaultCollapseSidebar"),
        mj_notify_enabled: o.bool("MjNotifyEnabled"),
        check_in_enabled: o.bool("CheckInEnabled"),
        checkin_enabled: o.bool("CheckInEnabled"),
        chat_link: chat_link(&chats, 0),
        chat_link2: chat_link(&chats, 1),
        chats,
        docs_link: o.get("general_setting.docs_link").to_string(),
        email_verification: o.bool("EmailVerificationEnabled"),
        turnstile_check: o.bool("TurnstileCheckEnabled"),
        turnstile_site_key: o.get("TurnstileSiteKey").to_string(),
        github_oauth: o.bool("GitHubOAuthEnabled"),
        github_client_id: o.get("GitHubClientId").to_string(),
        oidc_enabled: o.bool("oidc.enabled"),
        oidc_client_id: o.get("oidc.client_id").to_string(),
        oidc_authorization_endpoint: o.get("oidc.authorization_endpoint").to_string(),
        wechat_login: o.bool("WeChatAuthEnabled"),
        wechat_qrcode: o.get("WeChatAccountQRCodeImageURL").to_string(),
        telegram_oauth: o.bool("TelegramOAuthEnabled"),
        telegram_bot_name: o.get("TelegramBotName").to_string(),
        linuxdo_oauth: o.bool("LinuxDOOAuthEnabled"),
        linuxdo_client_id: o.get("LinuxDOClientId").to_string(),
        register_enabled: o.bool("RegisterEnabled"),
        password_login_enabled: o.bool("PasswordLoginEnabled"),
        password_register_enabled: o.bool("PasswordRegisterEnabled"),
        self_use_mode_enabled: o.bool("SelfUseModeEnabled"),
        demo_site_enabled: o.bool("DemoSiteEnabled"),
        server_address: o.get("ServerAddress").to_string(),
        top_up_link: o.get("TopUpLink").to_string(),
        price: o.f64("Price"),
        min_topup: o.i64("MinTopUp"),
        enable_online_topup: ["PayAddress", "EpayId", "EpayKey"]
            .iter()
            .all(|k| !o.get(k).is_empty()),
    }
}
