//! State shared by every request: the database, settings, and what is known about setup.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::domain::crypto::Cipher;
use crate::domain::options::Options;
use crate::domain::secrets;
use crate::settings::Settings;
use crate::store::{self, Db};
use crate::sync::credentials::{CredentialsError, GatewayCredentials};

/// Cheap to clone; every handler gets one.
#[derive(Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

struct Inner {
    cipher: Cipher,
    db: Db,
    http: reqwest::Client,
    /// The client for user-configured addresses (webhooks), behind the SSRF guard.
    outbound: crate::outbound::guard::Outbound,
    settings: Settings,
    setup_token: String,
    initialized: AtomicBool,
    start_time: i64,
    gateway_credentials: GatewayCredentials,
    metrics: crate::metrics::Metrics,
    passwords: crate::hashing::PasswordPool,
    /// Set to true once the process is stopping: gateway streams end.
    shutdown: tokio::sync::watch::Sender<bool>,
    /// Poked after a write that may have changed the config (an API call that is not a read,
    /// an ingested usage batch): the config feed looks for a new version at once instead of at
    /// its next poll.
    wrote: tokio::sync::Notify,
    /// Where spans go (while traces are exported).
    tracer: std::sync::OnceLock<telemetry::SdkTracer>,
}

impl AppState {
    /// Builds the state; the setup token comes from the settings or is generated.
    pub async fn new(db: Db, settings: Settings) -> Result<Self, StateError> {
        let initialized = store::setup::is_initialized(&db).await?;
        let setup_token = settings
            .setup_token
            .as_ref()
            .map(|t| t.expose().to_owned())
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| secrets::random_alphanumeric(32));
        let gateway_credentials = GatewayCredentials::resolve(&settings)?;
        let metrics = crate::metrics::Metrics::new()?;
        Ok(AppState {
            inner: Arc::new(Inner {
                gateway_credentials,
                passwords: crate::hashing::PasswordPool::new(
                    settings.auth.hash_concurrency(),
                    settings.auth.hash_wait(),
                    metrics.password_hashes.clone(),
                ),
                metrics,
                shutdown: tokio::sync::watch::Sender::new(false),
                wrote: tokio::sync::Notify::new(),
                cipher: load_cipher(&settings)?,
                db,
                http: http_client()?,
                outbound: crate::outbound::guard::Outbound::new(
                    settings.outbound_allow_networks.clone(),
                    settings.outbound_ca_file.as_deref(),
                )?,
                settings,
                setup_token,
                initialized: AtomicBool::new(initialized),
                start_time: store::now(),
                tracer: std::sync::OnceLock::new(),
            }),
        })
    }

    /// Spans go to `tracer` from now on (set once, at start).
    pub fn export_spans(&self, tracer: telemetry::SdkTracer) {
        let _ = self.inner.tracer.set(tracer);
    }

    /// The tracer, while traces are exported.
    pub fn tracer(&self) -> Option<&telemetry::SdkTracer> {
        self.inner.tracer.get()
    }

    pub fn db(&self) -> &Db {
        &self.inner.db
    }

    /// Encrypts and decrypts secrets stored in the database.
    pub fn cipher(&self) -> &Cipher {
        &self.inner.cipher
    }

    /// Client for calls to outside services.
    /// The client for user-configured addresses (webhooks): internal destinations refused.
    pub fn outbound(&self) -> &crate::outbound::guard::Outbound {
        &self.inner.outbound
    }

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

    /// What gateways must present on the gRPC services.
    pub fn gateway_credentials(&self) -> &GatewayCredentials {
        &self.inner.gateway_credentials
    }

    pub fn metrics(&self) -> &crate::metrics::Metrics {
        &self.inner.metrics
    }

    /// The bounded pool that hashes and checks passwords.
    pub fn passwords(&self) -> &crate::hashing::PasswordPool {
        &self.inner.passwords
    }

    /// Says that a write which may have changed the config has committed.
    pub fn note_write(&self) {
        self.inner.wrote.notify_one();
    }

    /// Resolves at the next [`AppState::note_write`] (or at once when one came unawaited).
    pub async fn next_write(&self) {
        self.inner.wrote.notified().await;
    }

    /// Starts stopping: gateways' Watch and Report streams end (they reconnect elsewhere).
    pub fn begin_shutdown(&self) {
        self.inner.shutdown.send_replace(true);
    }

    /// Resolves once [`AppState::begin_shutdown`] was called.
    pub fn shutting_down(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut rx = self.inner.shutdown.subscribe();
        async move {
            let _ = rx.wait_for(|stopping| *stopping).await;
        }
    }

    /// Whether the process is stopping.
    pub fn is_shutting_down(&self) -> bool {
        *self.inner.shutdown.borrow()
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

    /// The effective values of `keys` alone (see [`Options::only`]).
    pub async fn options_of(&self, keys: &[&'static str]) -> Result<Options, sqlx::Error> {
        Ok(Options::only(
            keys,
            store::options::load_keys(&self.inner.db, keys).await?,
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
    #[error(transparent)]
    GatewayCredentials(#[from] CredentialsError),
    #[error("metrics: {0}")]
    Metrics(#[from] prometheus::Error),
    #[error("outbound client: {0}")]
    Outbound(#[from] crate::outbound::guard::OutboundError),
    #[error("encryption key file {path}: {source}")]
    KeyFile {
        path: String,
        source: std::io::Error,
    },
}

/// Name of the key file kept in the data folder when no encryption key is configured.
pub const KEY_FILE: &str = "encryption.key";

/// The cipher for secrets: from `--encryption-key`, else from the data folder's key file, which
/// is created with a random secret on first start.
fn load_cipher(settings: &Settings) -> Result<Cipher, StateError> {
    if let Some(secret) = settings
        .encryption_key
        .as_ref()
        .map(|k| k.expose())
        .filter(|s| !s.is_empty())
    {
        return Ok(Cipher::from_secret(secret));
    }
    let path = settings.data_dir.join(KEY_FILE);
    let key_error = |source| StateError::KeyFile {
        path: path.display().to_string(),
        source,
    };
    match std::fs::read_to_string(&path) {
        Ok(secret) if !secret.trim().is_empty() => Ok(Cipher::from_secret(secret.trim())),
        Ok(_) => Err(key_error(std::io::Error::other("the file is empty"))),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(&settings.data_dir).map_err(key_error)?;
            let secret = secrets::random_alphanumeric(48);
            write_private(&path, &secret).map_err(key_error)?;
            if settings.database_url.is_some() {
                tracing::warn!(
                    path = %path.display(),
                    "no ENCRYPTION_KEY set: generated a key file; every control-plane replica must use the same key"
                );
            }
            Ok(Cipher::from_secret(&secret))
        }
        Err(err) => Err(key_error(err)),
    }
}

/// Writes a new file readable by its owner only.
pub(crate) fn write_private(path: &std::path::Path, contents: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)?.write_all(contents.as_bytes())
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
