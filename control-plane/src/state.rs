//! State shared by every request: the database, settings, and what is known about setup.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::domain::options::Options;
use crate::domain::secrets;
use crate::settings::Settings;
use crate::store::{self, Db};

/// Cheap to clone; every handler gets one.
#[derive(Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

struct Inner {
    db: Db,
    http: reqwest::Client,
    settings: Settings,
    setup_token: String,
    initialized: AtomicBool,
    start_time: i64,
}

impl AppState {
    /// Builds the state; the setup token comes from the settings or is generated.
    pub async fn new(db: Db, settings: Settings) -> Result<Self, StateError> {
        let initialized = store::setup::is_initialized(&db).await?;
        let setup_token = settings
            .setup_token
            .clone()
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| secrets::random_alphanumeric(32));
        Ok(AppState {
            inner: Arc::new(Inner {
                db,
                http: http_client()?,
                settings,
                setup_token,
                initialized: AtomicBool::new(initialized),
                start_time: store::now(),
            }),
        })
    }

    pub fn db(&self) -> &Db {
        &self.inner.db
    }

    /// Client for calls to outside services.
    pub fn http(&self) -> &reqwest::Client {
        &self.inner.http
    }

    pub fn settings(&self) -> &Settings {
        &self.inner.settings
    }

    /// The one-time token that lets a non-loopback client run setup.
    pub fn setup_token(&self) -> &str {
        &self.inner.setup_token
    }

    pub fn start_time(&self) -> i64 {
        self.inner.start_time
    }

    /// Whether setup is done. Once true it stays true; while false the database is asked again,
    /// so a setup finished through another replica is seen at once.
    pub async fn is_initialized(&self) -> Result<bool, sqlx::Error> {
        if self.inner.initialized.load(Ordering::Acquire) {
            return Ok(true);
        }
        let done = store::setup::is_initialized(&self.inner.db).await?;
        if done {
            self.inner.initialized.store(true, Ordering::Release);
        }
        Ok(done)
    }

    pub fn mark_initialized(&self) {
        self.inner.initialized.store(true, Ordering::Release);
    }

    /// The effective options: defaults overlaid with what is stored.
    pub async fn options(&self) -> Result<Options, sqlx::Error> {
        Ok(Options::from_stored(
            store::options::load_all(&self.inner.db).await?,
        ))
    }
}

/// Why the state could not be built.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error(transparent)]
    Db(#[from] sqlx::Error),
    #[error("building the HTTP client: {0}")]
    Http(#[from] reqwest::Error),
}

/// An HTTP client on rustls with the ring provider (one TLS stack for the whole workspace).
fn http_client() -> Result<reqwest::Client, reqwest::Error> {
    // Installing fails only when a provider is already installed, which is what we want.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .user_agent(concat!(
            "ai-gateway-control-plane/",
            env!("CARGO_PKG_VERSION")
        ))
        .build()
}
