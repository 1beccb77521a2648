//! The `control-plane` binary: serve the API (default), apply migrations, or print the OpenAPI
//! document.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};
use control_plane::settings::Settings;
use control_plane::state::AppState;
use control_plane::store::{self, Db};
use control_plane::sync::tls::{self, GrpcPeer, TlsListener};
use tracing_subscriber::EnvFilter;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Debug, Parser)]
#[command(
    name = "control-plane",
    version,
    about = "Control plane of the AI model API gateway"
)]
struct Cli {
    #[command(flatten)]
    settings: Settings,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the REST API and the console (the default).
    Serve,
    /// Apply database migrations and exit.
    Migrate,
    /// Print the OpenAPI document and exit.
    Openapi,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    control_plane::memory::keep_freed_pages();
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,tower_http=warn")),
        )
        .init();
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Serve) {
        Command::Openapi => {
            println!("{}", control_plane::api::openapi().to_pretty_json()?);
            Ok(())
        }
        Command::Migrate => {
            let db = open(&cli.settings).await?;
            tracing::info!(database = db.kind.name(), "migrations applied");
            Ok(())
        }
        Command::Serve => serve(cli.settings).await,
    }
}

async fn open(settings: &Settings) -> anyhow::Result<Db> {
    let db = Db::connect(
        settings.database_url.as_ref().map(|u| u.expose()),
        &settings.data_dir,
        settings.database_max_connections,
    )
    .await
    .context("opening the database")?;
    db.migrate().await.context("applying migrations")?;
    Ok(db)
}

async fn serve(settings: Settings) -> anyhow::Result<()> {
    if settings.grpc_tls_cert.is_some() && settings.grpc_listen.is_none() {
        anyhow::bail!("--grpc-tls-cert needs --grpc-listen: TLS is served on the gRPC listener");
    }
    let db = open(&settings).await?;
    control_plane::sync::ingest_sched::engage(&db);
    let listen = settings.listen;
    let grpc = grpc_listener(&settings).await?;
    let shutdown_timeout = Duration::from_secs(settings.shutdown_timeout);
    let state = AppState::new(db.clone(), settings).await?;
    let otel = telemetry::Tracing::from_env(
        "ai-gateway-control-plane",
        &tokio::runtime::Handle::current(),
    )
    .map_err(anyhow::Error::msg)?;
    if let Some(otel) = &otel {
        state.export_spans(otel.tracer().clone());
    }
    if let Some(path) = state.gateway_credentials().generated_token_file() {
        tracing::info!(
            path = %path.display(),
            "generated the gateway sync token: give this file to gateways (--sync-token-file)"
        );
    }
    if !state.is_initialized().await? {
        tracing::warn!(
            setup_token = state.setup_token(),
            "system not initialized: open /setup from this machine, or send this setup token from elsewhere"
        );
    }
    spawn_session_purge(state.clone());
    spawn_log_retention(state.clone());
    control_plane::health::spawn_jobs(state.clone(), replica_name());
    control_plane::task_poller::spawn(state.clone(), replica_name());
    // The admin listener first: once the public port answers, both are bound.
    let admin = match state.settings().admin_listen {
        Some(addr) => {
            let admin = tokio::net::TcpListener::bind(addr)
                .await
                .with_context(|| format!("binding the admin listener {addr}"))?;
            tracing::info!(address = %admin.local_addr()?, "admin listener (metrics, health)");
            Some(admin)
        }
        None => None,
    };
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .with_context(|| format!("binding {listen}"))?;
    tracing::info!(address = %listener.local_addr()?, "control plane listening");
    let rest_app = match grpc {
        Some(_) => control_plane::app(state.clone()),
        None => control_plane::app_with_grpc(state.clone()),
    };
    let rest = axum::serve(
        listener,
        rest_app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(state.shutting_down());
    let grpc = async {
        match grpc {
            Some(listener) => listener.serve(state.clone()).await,
            None => Ok(()),
        }
    };
    let admin = async {
        match admin {
            Some(listener) => axum::serve(listener, control_plane::admin::router(state.clone()))
                .with_graceful_shutdown(state.shutting_down())
                .await
                .map_err(anyhow::Error::from),
            None => Ok(()),
        }
    };
    let servers = async {
        tokio::try_join!(
            async { rest.await.map_err(anyhow::Error::from) },
            grpc,
            admin
        )
    };
    let stop = async {
        shutdown_signal().await;
        state.begin_shutdown();
        tokio::time::sleep(shutdown_timeout).await;
    };
    tokio::select! {
        done = servers => { done?; }
        () = stop => {
            tracing::warn!(
                timeout_s = shutdown_timeout.as_secs(),
                "shutdown timeout: exiting with connections still open"
            );
        }
    }
    if let Some(otel) = otel {
        let _ = tokio::task::spawn_blocking(move || otel.shutdown()).await;
    }
    tracing::info!("control plane stopped");
    Ok(())
}

/// The gateways' own gRPC listener (`--grpc-listen`), plain or TLS.
enum GrpcListener {
    Plain(tokio::net::TcpListener),
    Tls(TlsListener),
}

async fn grpc_listener(settings: &Settings) -> anyhow::Result<Option<GrpcListener>> {
    let Some(addr) = settings.grpc_listen else {
        return Ok(None);
    };
    let tcp = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("binding {addr}"))?;
    let local = tcp.local_addr()?;
    let listener = match (&settings.grpc_tls_cert, &settings.grpc_tls_key) {
        (Some(cert), Some(key)) => {
            let config = tls::server_config(cert, key, settings.grpc_client_ca.as_deref())
                .context("gRPC TLS")?;
            tracing::info!(
                address = %local,
                mtls = settings.grpc_client_ca.is_some(),
                "gateway gRPC listening (TLS)"
            );
            GrpcListener::Tls(TlsListener::new(tcp, config)?)
        }
        _ => {
            tracing::info!(address = %local, "gateway gRPC listening (plaintext)");
            GrpcListener::Plain(tcp)
        }
    };
    Ok(Some(listener))
}

impl GrpcListener {
    async fn serve(self, state: AppState) -> anyhow::Result<()> {
        let app = control_plane::sync::grpc_router(state.clone());
        let stopping = state.shutting_down();
        match self {
            GrpcListener::Plain(l) => {
                axum::serve(l, app.into_make_service_with_connect_info::<GrpcPeer>())
                    .with_graceful_shutdown(stopping)
                    .await?
            }
            GrpcListener::Tls(l) => {
                axum::serve(l, app.into_make_service_with_connect_info::<GrpcPeer>())
                    .with_graceful_shutdown(stopping)
                    .await?
            }
        }
        Ok(())
    }
}

/// Deletes expired sessions every hour.
fn spawn_session_purge(state: AppState) {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(std::time::Duration::from_secs(3600));
        loop {
            tick.tick().await;
            let result = store::sessions::purge_expired(state.db(), store::now()).await;
            state.metrics().job_ran("session_purge", result.is_ok());
            match result {
                Ok(n) if n > 0 => tracing::info!(removed = n, "expired sessions purged"),
                Ok(_) => {}
                Err(err) => tracing::warn!(error = %err, "session purge failed"),
            }
        }
    });
}

/// This replica's name in job claims: the host and a random suffix (several replicas may run
/// on one host).
fn replica_name() -> String {
    let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "control-plane".to_owned());
    format!("{host}-{:08x}", rand::random::<u32>())
}

/// Every hour: prepares the coming months' log partitions, deletes logs older than
/// `LogRetentionDays` (when set) and expired attempt counters.
fn spawn_log_retention(state: AppState) {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(std::time::Duration::from_secs(3600));
        loop {
            tick.tick().await;
            let partitions = control_plane::jobs::prepare_log_partitions(&state).await;
            let retention = control_plane::jobs::apply_log_retention(&state).await;
            let purge = control_plane::jobs::purge_auth_attempts(&state).await;
            state.metrics().job_ran(
                "log_retention",
                partitions.is_ok() && retention.is_ok() && purge.is_ok(),
            );
            if let Err(err) = partitions {
                tracing::warn!(error = %err, "preparing log partitions failed");
            }
            match retention {
                Ok(n) if n > 0 => tracing::info!(removed = n, "old logs deleted"),
                Ok(_) => {}
                Err(err) => tracing::warn!(error = %err, "log retention failed"),
            }
            if let Err(err) = purge {
                tracing::warn!(error = %err, "purging attempt counters failed");
            }
        }
    });
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    tracing::info!("shutting down");
}
