//! `GET /api/about` and `GET /api/home_page_content`: the operator's About and home page
//! (options `About` and `HomePageContent`), public. Markdown, HTML or a URL, as saved; the
//! console renders markdown and HTML sanitized and a URL in a sandboxed frame.

use axum::Json;
use axum::extract::State;

use super::envelope::{Envelope, ok};
use crate::error::ApiResult;
use crate::state::AppState;

#[utoipa::path(get, path = "/api/about", tag = "status",
    responses((status = 200, body = Envelope<String>)))]
pub async fn get_about(State(state): State<AppState>) -> ApiResult<Json<Envelope<String>>> {
    let options = state.options().await?;
    Ok(ok(options.get("About").to_string()))
}

#[utoipa::path(get, path = "/api/home_page_content", tag = "status",
    responses((status = 200, body = Envelope<String>)))]
pub async fn get_home_page_content(
    State(state): State<AppState>,
) -> ApiResult<Json<Envelope<String>>> {
    let options = state.options().await?;
    Ok(ok(options.get("HomePageContent").to_string()))
}
