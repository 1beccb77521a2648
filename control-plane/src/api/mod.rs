//! The REST API (`/api/*`): one module per resource, the shared envelope and extractors, auth,
//! the setup gate, console serving, and the OpenAPI document generated from the handlers.

pub mod account;
pub mod auth;
pub mod channel_copy;
pub mod channel_keys;
pub mod channel_ops;
pub mod channels;
pub mod console;
pub mod content;
pub mod data;
pub mod envelope;
pub mod extract;
pub mod gate;
pub mod gateways;
pub mod logs;
pub mod me;
pub mod oauth;
pub mod options;
pub mod pricing;
pub mod redemptions;
pub mod security_headers;
pub mod setup;
pub mod status;
pub mod tasks;
pub mod throttle;
pub mod tokens;
pub mod topup;
pub mod usage_rejections;
pub mod users;
pub mod verification;
pub mod views;
pub mod wallet;

use axum::Router;
use axum::routing::get;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::state::AppState;

#[derive(OpenApi)]
#[openapi(
    info(title = "AI gateway control plane", description = "REST API of the console. Every reply is the envelope {success, message, data}."),
    tags(
        (name = "setup"), (name = "status"), (name = "account"), (name = "self"),
        (name = "users"), (name = "options"), (name = "tokens"),
        (name = "redemptions"), (name = "wallet"), (name = "channels"), (name = "logs"),
        (name = "dashboard"), (name = "pricing"), (name = "tasks")
    )
)]
struct ApiDoc;

/// Every API route with its OpenAPI description.
fn api_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(setup::get_setup, setup::post_setup))
        .routes(routes!(status::get_status))
        .routes(routes!(content::get_about))
        .routes(routes!(content::get_home_page_content))
        .routes(routes!(account::login))
        .routes(routes!(account::logout))
        .routes(routes!(account::register))
        .routes(routes!(me::get_self, me::update_self, me::delete_self))
        .routes(routes!(me::generate_access_token))
        .routes(routes!(me::get_aff_code))
        .routes(routes!(me::get_models))
        .routes(routes!(me::get_self_groups))
        .routes(routes!(
            users::list_users,
            users::create_user,
            users::update_user
        ))
        .routes(routes!(users::search_users))
        .routes(routes!(users::get_user))
        .routes(routes!(users::manage_user))
        .routes(routes!(users::list_groups))
        .routes(routes!(options::list_options, options::update_option))
        .routes(routes!(
            tokens::list_tokens,
            tokens::create_token,
            tokens::update_token
        ))
        .routes(routes!(tokens::search_tokens))
        .routes(routes!(tokens::get_token))
        .routes(routes!(tokens::reveal_key))
        .routes(routes!(tokens::delete_token))
        .routes(routes!(
            channels::list_channels,
            channels::create_channel,
            channels::update_channel
        ))
        .routes(routes!(channel_ops::test_channel))
        .routes(routes!(channel_ops::test_all))
        .routes(routes!(channel_keys::manage_keys))
        .routes(routes!(channel_ops::update_balance))
        .routes(routes!(channel_ops::update_all_balances))
        .routes(routes!(channel_ops::fetch_saved_models))
        .routes(routes!(channel_ops::fetch_unsaved_models))
        .routes(routes!(logs::list_logs, logs::delete_logs))
        .routes(routes!(logs::list_own_logs))
        .routes(routes!(logs::log_stats))
        .routes(routes!(logs::own_log_stats))
        .routes(routes!(tasks::list_drawings))
        .routes(routes!(tasks::list_own_drawings))
        .routes(routes!(tasks::list_tasks))
        .routes(routes!(tasks::list_own_tasks))
        .routes(routes!(data::all_by_model))
        .routes(routes!(data::all_by_user))
        .routes(routes!(data::own_by_model))
        .routes(routes!(pricing::get_pricing))
        .routes(routes!(pricing::models_by_type))
        .routes(routes!(pricing::unset_models))
        .routes(routes!(pricing::reset_model_ratios))
        .routes(routes!(topup::amount_quote))
        .routes(routes!(topup::pay))
        .routes(routes!(topup::epay_notify))
        .routes(routes!(topup::own_topups))
        .routes(routes!(channels::search_channels))
        .routes(routes!(channels::get_channel))
        .routes(routes!(channels::delete_channel))
        .routes(routes!(channel_copy::copy_channel))
        .routes(routes!(channels::delete_disabled))
        .routes(routes!(channels::batch_delete))
        .routes(routes!(channels::fix_abilities))
        .routes(routes!(channels::batch_tag))
        .routes(routes!(channels::edit_tag))
        .routes(routes!(channels::enable_tag))
        .routes(routes!(channels::disable_tag))
        .routes(routes!(channels::models_enabled))
        .routes(routes!(channels::all_models))
        .routes(routes!(
            redemptions::list_codes,
            redemptions::create_codes,
            redemptions::update_code
        ))
        .routes(routes!(redemptions::search_codes))
        .routes(routes!(redemptions::get_code))
        .routes(routes!(redemptions::delete_code))
        .routes(routes!(redemptions::batch_disable))
        .routes(routes!(redemptions::delete_disabled))
        .routes(routes!(redemptions::count_by_name))
        .routes(routes!(redemptions::delete_by_name))
        .routes(routes!(wallet::redeem, topup::all_topups))
        .routes(routes!(wallet::check_in_status))
        .routes(routes!(wallet::check_in))
        .routes(routes!(wallet::aff_transfer))
        .routes(routes!(wallet::update_setting))
        .routes(routes!(verification::send_verification_code))
        .routes(routes!(verification::bind_email))
        .routes(routes!(oauth::get_state))
        .routes(routes!(oauth::callback))
        .routes(routes!(oauth::wechat_login))
        .routes(routes!(oauth::wechat_bind))
        .routes(routes!(oauth::telegram_login))
        .routes(routes!(oauth::telegram_bind))
        .routes(routes!(oauth::unbind))
        .routes(routes!(verification::send_reset_link))
        .routes(routes!(verification::reset_password))
        .routes(routes!(gateways::list_gateways))
        .routes(routes!(usage_rejections::list_rejections))
}

/// The OpenAPI document of the API.
pub fn openapi() -> utoipa::openapi::OpenApi {
    let (_, mut doc) = api_routes().split_for_parts();
    doc.paths.paths.insert(
        "/api/openapi.json".to_string(),
        utoipa::openapi::path::PathItem::new(
            utoipa::openapi::HttpMethod::Get,
            utoipa::openapi::path::OperationBuilder::new()
                .tag("status")
                .summary(Some("This document"))
                .response(
                    "200",
                    utoipa::openapi::Response::new("the OpenAPI document"),
                ),
        ),
    );
    doc
}

/// The API router (without state, middleware or console).
pub fn router() -> Router<AppState> {
    let (router, _) = api_routes().split_for_parts();
    let doc = openapi();
    router.route(
        "/api/openapi.json",
        get(move || async move { axum::Json(doc) }),
    )
}
