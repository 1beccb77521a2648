//! Runtime settings of the control plane, read from flags and environment variables.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::domain::secrets::Secret;
pub use adapters::client_ip::TrustedProxies;

fn parse_trusted_proxies(raw: &str) -> Result<TrustedProxies, String> {
    TrustedProxies::parse(raw)
}

mod auth;
mod oauth;
pub use auth::{AuthSettings, SecureCookies};
pub use oauth::OAuthEndpoints;

/// How the server runs: where it listens, which database it owns, how sessions behave. Secrets
/// are [`Secret`]s (redacted in `Debug`) and their environment values are hidden from `--help`.
#[derive(Debug, Clone, Args)]
pub struct Settings {
    /// Address for the REST API, the console and (unless `--grpc-listen` is set) the gateways'
    /// gRPC services.
    #[arg(long, env = "LISTEN", default_value = "127.0.0.1:3000")]
    pub listen: SocketAddr,

    /// PostgreSQL URL (`postgres://…`). Without it, SQLite in the data folder is used.
    #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<Secret>,

    /// Folder for the embedded SQLite database and other local state.
    #[arg(long, env = "DATA_DIR", default_value = "./data")]
    pub data_dir: PathBuf,

    /// Lifetime of a console session, in hours.
    #[arg(long, env = "SESSION_TTL_HOURS", default_value_t = 720)]
    pub session_ttl_hours: u64,

    /// Sign-in protection: attempt limits, the password-hashing pool, `Secure` cookies.
    #[command(flatten, next_help_heading = "Sign-in protection")]
    pub auth: AuthSettings,

    /// Addresses of the GitHub and LinuxDO sign-in endpoints.
    #[command(flatten, next_help_heading = "Third-party sign-in")]
    pub oauth: OAuthEndpoints,

    /// Proxies in front of the control plane whose `X-Forwarded-For` / `X-Forwarded-Proto`
    /// are believed: CIDRs or addresses, comma-separated. None by default; `make run` trusts
    /// loopback, where its gateway (which appends each client's address) forwards from.
    #[arg(long, env = "TRUSTED_PROXIES", default_value = "", value_parser = parse_trusted_proxies)]
    pub trusted_proxies: TrustedProxies,

    /// Folder of the built console (`console/dist`); served with an SPA fallback when present.
    #[arg(long, env = "CONSOLE_DIR")]
    pub console_dir: Option<PathBuf>,

    /// One-time token accepted by `POST /api/setup` from non-loopback clients. A random one is
    /// generated and logged at start when unset and the system is not initialized.
    #[arg(long, env = "SETUP_TOKEN", hide_env_values = true)]
    pub setup_token: Option<Secret>,

    /// Secret from which the key that encrypts channel and token keys at rest is derived. Every
    /// control-plane replica needs the same value. When unset, a random one is kept in
    /// `<data-dir>/encryption.key` (created on first start).
    #[arg(long, env = "ENCRYPTION_KEY", hide_env_values = true)]
    pub encryption_key: Option<Secret>,

    /// Turnstile siteverify endpoint used when human verification is on.
    #[arg(long, env = "TURNSTILE_VERIFY_URL", default_value = crate::outbound::turnstile::DEFAULT_VERIFY_URL)]
    pub turnstile_verify_url: String,

    /// Largest number of database connections (on PostgreSQL, a quarter of them, at least one,
    /// are kept for usage ingest).
    #[arg(long, env = "DATABASE_MAX_CONNECTIONS", default_value_t = 16)]
    pub database_max_connections: u32,

    /// Secret gateways present (`authorization: Bearer …`) on the gRPC services. When unset and
    /// no client CA is configured, one is generated into `<data-dir>/gateway-sync-token` (hand
    /// that file to the gateways with `--sync-token-file`). Every replica needs the same value.
    #[arg(long, env = "GATEWAY_SYNC_TOKEN", hide_env_values = true)]
    pub gateway_sync_token: Option<Secret>,

    /// Networks that calls to user-configured addresses (webhooks) may reach although they are
    /// internal (private, loopback, link-local): CIDRs or addresses, comma-separated. None by
    /// default, so a webhook cannot reach the cluster or the cloud's metadata service.
    #[arg(long, env = "OUTBOUND_ALLOW_NETWORKS", default_value = "", value_parser = parse_trusted_proxies)]
    pub outbound_allow_networks: TrustedProxies,

    /// PEM CA certificates trusted, besides the system's roots, by calls to user-configured
    /// addresses (an enterprise CA in front of internal webhook receivers).
    #[arg(long, env = "OUTBOUND_CA_FILE")]
    pub outbound_ca_file: Option<PathBuf>,

    /// Address of the admin listener: Prometheus `/metrics`, `/healthz` and `/readyz`, kept off
    /// the public port. Unset: no metrics are served.
    #[arg(long, env = "ADMIN_LISTEN")]
    pub admin_listen: Option<SocketAddr>,

    /// Serve the gateways' gRPC services on this address only (not on `--listen`). Needed for
    /// TLS between the planes.
    #[arg(long, env = "GRPC_LISTEN")]
    pub grpc_listen: Option<SocketAddr>,

    /// PEM certificate chain of the gRPC listener (TLS; needs `--grpc-listen`).
    #[arg(long, env = "GRPC_TLS_CERT", requires = "grpc_tls_key")]
    pub grpc_tls_cert: Option<PathBuf>,

    /// PEM private key of the gRPC listener.
    #[arg(long, env = "GRPC_TLS_KEY", requires = "grpc_tls_cert")]
    pub grpc_tls_key: Option<PathBuf>,

    /// PEM CA certificates that sign gateways' client certificates (mTLS): with it, a gateway
    /// must present a certificate it signed, which is then the gateway's credential.
    #[arg(long, env = "GRPC_CLIENT_CA", requires = "grpc_tls_cert")]
    pub grpc_client_ca: Option<PathBuf>,

    /// Seconds a SIGTERM waits for gateways' streams and in-flight batches before exiting.
    #[arg(long, env = "SHUTDOWN_TIMEOUT", default_value_t = 10)]
    pub shutdown_timeout: u64,
}

impl Settings {
    /// Session lifetime as a duration.
    pub fn session_ttl(&self) -> Duration {
        Duration::from_secs(self.session_ttl_hours.saturating_mul(3600))
    }

    /// Settings for tests: SQLite (or `database_url`) in `data_dir`, one-hour sessions.
    pub fn for_tests(data_dir: PathBuf, database_url: Option<String>) -> Self {
        Settings {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            database_url: database_url.map(Secret::from),
            data_dir,
            session_ttl_hours: 1,
            auth: AuthSettings::default(),
            oauth: OAuthEndpoints::default(),
            console_dir: None,
            setup_token: None,
            encryption_key: Some("test-encryption-key".into()),
            turnstile_verify_url: "http://127.0.0.1:9/unreachable".into(),
            database_max_connections: 8,
            gateway_sync_token: Some("test-sync-token".into()),
            admin_listen: None,
            outbound_allow_networks: TrustedProxies::default(),
            outbound_ca_file: None,
            grpc_listen: None,
            grpc_tls_cert: None,
            grpc_tls_key: None,
            grpc_client_ca: None,
            shutdown_timeout: 10,
            // Tests play the local proxy (the embedded gateway's place) from loopback.
            trusted_proxies: TrustedProxies::parse("127.0.0.1/32, ::1").unwrap_or_default(),
        }
    }
}
