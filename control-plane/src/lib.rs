//! Control plane of the AI model API gateway: owns the database (PostgreSQL, or SQLite when
//! embedded), serves the console's REST API (`/api/*`), the built console and the gRPC services
//! gateways use (config push, usage reporting) on the same port; metrics and health on an admin
//! listener of their own.

pub mod admin;
pub mod api;
pub mod domain;
pub mod error;
pub mod hashing;
pub mod health;
pub mod i18n;
pub mod jobs;
pub mod memory;
pub mod metrics;
pub mod notify;
pub mod outbound;
pub mod settings;
pub mod spans;
pub mod state;
pub mod store;
pub mod sync;
pub mod task_poller;

use axum::middleware;
use axum::{Extension, Router};
use tower_http::trace::TraceLayer;

use crate::state::AppState;

/// The REST application merged with the gateways' gRPC services (which skip the setup gate).
pub fn app_with_grpc(state: AppState) -> Router {
    app(state.clone()).merge(sync::grpc_router(state))
}

/// The whole HTTP application for `state`: API, setup gate, localised errors, console.
pub fn app(state: AppState) -> Router {
    let console_dir = state.settings().console_dir.clone();
    api::console::attach(api::router(), console_dir)
        .layer(middleware::from_fn_with_state(
            state.clone(),
            api::gate::require_setup,
        ))
        .layer(middleware::from_fn(error::localize_errors))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            sync::note_writes,
        ))
        .layer(TraceLayer::new_for_http())
        .layer(middleware::from_fn_with_state(
            state.clone(),
            admin::count_requests,
        ))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            spans::trace_requests,
        ))
        .with_state(state.clone())
        .layer(middleware::map_response(api::security_headers::add))
        .layer(Extension(state.settings().trusted_proxies.clone()))
}
