//! Serving the built console: files from its folder, `index.html` for client-side routes, and a
//! plain 404 for missing `/assets/*` files; unknown `/api/*` paths get a 404 envelope.

use std::path::PathBuf;

use axum::Router;
use axum::http::Uri;
use axum::response::{IntoResponse, Response};
use tower_http::services::{ServeDir, ServeFile};

use crate::error::ApiError;
use crate::state::AppState;

/// Adds console serving (when a folder is configured) and the API 404 to `router`.
pub fn attach(router: Router<AppState>, console_dir: Option<PathBuf>) -> Router<AppState> {
    let router = router.route("/api", axum::routing::any(api_not_found));
    let router = router.route("/api/{*rest}", axum::routing::any(api_not_found));
    match console_dir.filter(|dir| dir.join("index.html").is_file()) {
        Some(dir) => {
            let index = ServeFile::new(dir.join("index.html"));
            router
                .nest_service("/assets", ServeDir::new(dir.join("assets")))
                .fallback_service(ServeDir::new(&dir).fallback(index))
        }
        None => router.fallback(no_console),
    }
}

async fn api_not_found() -> Response {
    ApiError::NotFound.into_response()
}

async fn no_console(uri: Uri) -> Response {
    tracing::debug!(path = %uri.path(), "no console folder configured");
    (
        axum::http::StatusCode::NOT_FOUND,
        "The console is not built. Build it with `npm --prefix console ci && npm --prefix console run build` and start the control plane with --console-dir console/dist.",
    )
        .into_response()
}
