//! `gateway`: serves the relay and the admin endpoints from a config snapshot file.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, bail};
use clap::Parser;
use gateway::usage::{JsonLinesSink, NullSink, UsageSink};
use gateway::{ServeOptions, build_server, build_state};
use pingora::server::RunArgs;

/// AI model API gateway: the data plane.
#[derive(Parser, Debug)]
#[command(name = "gateway", version)]
struct Args {
    /// Address for client traffic.
    #[arg(long, env = "GATEWAY_LISTEN", default_value = "0.0.0.0:3000")]
    listen: String,
    /// Address for /metrics, /healthz and /readyz.
    #[arg(long, env = "GATEWAY_ADMIN_LISTEN", default_value = "127.0.0.1:9090")]
    admin_listen: String,
    /// Standalone mode: a config.v1 Snapshot as JSON (.json) or YAML.
    #[arg(long, env = "GATEWAY_CONFIG_FILE")]
    config_file: Option<PathBuf>,
    /// Control plane URL (config Watch stream); not implemented in this version.
    #[arg(long, env = "GATEWAY_CONTROL_PLANE")]
    control_plane: Option<String>,
    /// Append usage records as JSON lines to this file.
    #[arg(long, env = "GATEWAY_USAGE_FILE")]
    usage_file: Option<PathBuf>,
    /// Worker threads for the relay.
    #[arg(long, env = "GATEWAY_THREADS", default_value_t = 2)]
    threads: usize,
    /// On SIGTERM, seconds to keep serving new requests before stopping.
    #[arg(long, env = "GATEWAY_GRACE_PERIOD_SECONDS", default_value_t = 5)]
    grace_period_seconds: u64,
    /// Then, seconds in-flight requests (long streams) get to finish.
    #[arg(long, env = "GATEWAY_SHUTDOWN_TIMEOUT_SECONDS", default_value_t = 60)]
    shutdown_timeout_seconds: u64,
}

fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .init();
    let args = Args::parse();
    if args.control_plane.is_some() {
        bail!("--control-plane is not supported yet; use --config-file");
    }
    let Some(path) = args.config_file else {
        bail!("--config-file is required (standalone mode)");
    };
    let raw = gateway::config::load_file(&path)?;
    let sink: Arc<dyn UsageSink> = match &args.usage_file {
        Some(p) => {
            Arc::new(JsonLinesSink::open(p).with_context(|| format!("opening {}", p.display()))?)
        }
        None => Arc::new(NullSink),
    };
    let state = build_state(&raw, sink)?;
    let opts = ServeOptions {
        threads: args.threads,
        grace_period_seconds: args.grace_period_seconds,
        shutdown_timeout_seconds: args.shutdown_timeout_seconds,
        ..ServeOptions::new(args.listen, Some(args.admin_listen))
    };
    tracing::info!(listen = opts.listen, admin = ?opts.admin_listen, version = raw.version, "gateway starting");
    build_server(state, &opts).run(RunArgs::default());
    Ok(())
}
