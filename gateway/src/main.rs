//! `gateway`: serves the relay and the admin endpoints, with config from the control plane's
//! Watch stream (usage reported back to it) or from a snapshot file (standalone).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Parser;
use gateway::billing::fleet::Fleet;
use gateway::config::link::{self, LinkConfig};
use gateway::config::watch;
use gateway::server::DrainOnTerm;
use gateway::state::GatewayState;
use gateway::usage::report::{self, Spool};
use gateway::usage::{JsonLinesSink, NullSink, UsageSink};
use gateway::{ServeOptions, build_server, build_state, state_from};
use pingora::server::RunArgs;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// AI model API gateway: the data plane.
#[derive(Parser)]
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
    /// Control plane URL (e.g. http://127.0.0.1:3001): config arrives on its Watch stream and
    /// usage is reported to it.
    #[arg(long, env = "GATEWAY_CONTROL_PLANE", conflicts_with = "config_file")]
    control_plane: Option<String>,
    /// Name shown in the control plane's gateway list (default: host name and listen address).
    #[arg(long, env = "GATEWAY_ID")]
    gateway_id: Option<String>,
    /// Secret the control plane expects from gateways (its GATEWAY_SYNC_TOKEN). A gateway
    /// needs this, --sync-token-file or a client certificate.
    #[arg(long, env = "GATEWAY_SYNC_TOKEN", hide_env_values = true)]
    sync_token: Option<String>,
    /// File holding the sync token (the embedded control plane writes
    /// `<data-dir>/gateway-sync-token`); waited for up to 30 s at start.
    #[arg(long, env = "GATEWAY_SYNC_TOKEN_FILE", conflicts_with = "sync_token")]
    sync_token_file: Option<PathBuf>,
    /// PEM CA certificates that sign the control plane's certificate (https:// URLs; default:
    /// the public web roots).
    #[arg(long, env = "GATEWAY_CONTROL_PLANE_CA")]
    control_plane_ca: Option<PathBuf>,
    /// PEM client certificate presented to the control plane (mTLS).
    #[arg(long, env = "GATEWAY_CLIENT_CERT", requires = "client_key")]
    client_cert: Option<PathBuf>,
    /// PEM private key of --client-cert.
    #[arg(long, env = "GATEWAY_CLIENT_KEY", requires = "client_cert")]
    client_key: Option<PathBuf>,
    /// Folder of the on-disk spool of usage records not yet acknowledged.
    #[arg(long, env = "GATEWAY_SPOOL_DIR", default_value = "data/spool")]
    spool_dir: PathBuf,
    /// Proxy paths outside the relay (console, /api) to this address (the control plane's),
    /// so clients and the console share one port.
    #[arg(long, env = "GATEWAY_FORWARD_TO")]
    forward_to: Option<std::net::SocketAddr>,
    /// Usage records waiting in memory for the spool writer; past it they are dropped and
    /// counted (the most a SIGKILL can lose).
    #[arg(long, env = "GATEWAY_USAGE_QUEUE", default_value_t = 10_000)]
    usage_queue: usize,
    /// Bound on the spool's files in bytes; past it records are dropped and counted.
    #[arg(long, env = "GATEWAY_SPOOL_MAX_BYTES", default_value_t = gateway::usage::spool::DEFAULT_MAX_BYTES)]
    spool_max_bytes: u64,
    /// Load the tokenizer tables (about 60 MiB) at start instead of at the first request that
    /// needs them (an OpenAI model's prompt estimate), so that request does not wait for them.
    #[arg(long, env = "GATEWAY_PRELOAD_TOKENIZERS")]
    preload_tokenizers: bool,
    /// Append usage records as JSON lines to this file.
    #[arg(long, env = "GATEWAY_USAGE_FILE")]
    usage_file: Option<PathBuf>,
    /// Browser origins allowed to call the relay paths (CORS): `*`, or a comma-separated list
    /// of `scheme://host[:port]`; empty allows none.
    #[arg(long, env = "GATEWAY_CORS_ORIGINS", default_value = "*")]
    cors_origins: String,
    /// Proxies in front of the gateway whose `X-Forwarded-For` names the client: CIDRs or
    /// addresses, comma-separated (none by default: the TCP peer is the client).
    #[arg(long, env = "GATEWAY_TRUSTED_PROXIES", default_value = "")]
    trusted_proxies: String,
    /// Redis shared by the gateways of a fleet (`redis://[:password@]host:port[/db]`): rate
    /// limits, channel concurrency and leases of user and token balances are kept there, so
    /// they hold for the fleet. Without it each gateway enforces them on its own; while Redis
    /// is down or slow each gateway falls back to its own counts and figures.
    #[arg(long, env = "REDIS_URL", hide_env_values = true)]
    redis_url: Option<String>,
    /// Milliseconds a Redis call may take before this gateway counts limits and spends
    /// balances on its own instead (and tries Redis again a second later).
    #[arg(long, env = "GATEWAY_REDIS_TIMEOUT_MS", default_value_t = 50)]
    redis_timeout_ms: u64,
    /// Consecutive failed attempts (no answer, a 5xx, 401, 403 or 429) after which this
    /// gateway keeps a channel key out of routing for a cool-down, then lets one trial
    /// request through (0: never).
    #[arg(long, env = "GATEWAY_BREAKER_FAILURES", default_value_t = 5)]
    breaker_failures: u32,
    /// The first cool-down of an open circuit breaker, in milliseconds; each failed trial
    /// doubles it, up to five minutes.
    #[arg(long, env = "GATEWAY_BREAKER_COOLDOWN_MS", default_value_t = 10_000)]
    breaker_cooldown_ms: u64,
    /// `/readyz` answers 503 once the control plane's config stream has been lost for this
    /// many seconds (0: stay ready and serve on the last snapshot, the default).
    #[arg(long, env = "GATEWAY_READY_MAX_STALE_SECONDS", default_value_t = 0)]
    ready_max_stale_seconds: u64,
    /// Worker threads for the relay.
    #[arg(long, env = "GATEWAY_THREADS", default_value_t = 2)]
    threads: usize,
    /// On SIGTERM, at most this many seconds for in-flight requests (long streams) to finish;
    /// new requests are still served meanwhile.
    #[arg(long, env = "GATEWAY_DRAIN_SECONDS", default_value_t = 120)]
    drain_seconds: u64,
    /// Then, seconds to keep accepting before stopping (load balancers catch up).
    #[arg(long, env = "GATEWAY_GRACE_PERIOD_SECONDS", default_value_t = 5)]
    grace_period_seconds: u64,
    /// Then, seconds the runtimes get to stop.
    #[arg(long, env = "GATEWAY_SHUTDOWN_TIMEOUT_SECONDS", default_value_t = 5)]
    shutdown_timeout_seconds: u64,
    /// Seconds memory freed after a burst of requests is kept for the next one before it goes
    /// back to the system (0: at once; at most a day). Resident memory stays near the burst's
    /// peak meanwhile.
    #[arg(long, env = "GATEWAY_FREE_MEMORY_HOLD_SECONDS", default_value_t = 300)]
    free_memory_hold_seconds: u64,
}

/// The circuit breakers' policy from the arguments.
fn breaker_policy(args: &Args) -> gateway::routing::BreakerPolicy {
    let cooldown = Duration::from_millis(args.breaker_cooldown_ms.max(1));
    gateway::routing::BreakerPolicy {
        failures_to_open: args.breaker_failures,
        cooldown,
        max_cooldown: Duration::from_secs(300).max(cooldown),
    }
}

/// Counts rate limits in Redis when a URL is given.
fn use_redis(
    state: &gateway::state::GatewayState,
    url: Option<&String>,
    timeout: Duration,
) -> anyhow::Result<()> {
    state.limits.set_redis_budget(timeout);
    if let Some(url) = url.filter(|u| !u.is_empty()) {
        state
            .limits
            .use_redis(url)
            .map_err(|e| anyhow::anyhow!("--redis-url: {e}"))?;
        tracing::info!("rate limits are shared through Redis");
    }
    Ok(())
}

fn main() -> anyhow::Result<()> {
    gateway::memory::no_transparent_huge_pages();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .init();
    let args = Args::parse();
    gateway::memory::hold_free_memory(Duration::from_secs(args.free_memory_hold_seconds));
    let opts = ServeOptions {
        threads: args.threads,
        grace_period_seconds: args.grace_period_seconds,
        shutdown_timeout_seconds: args.shutdown_timeout_seconds,
        forward_to: args.forward_to,
        cors: gateway::relay::CorsOrigins::parse(&args.cors_origins),
        trusted_proxies: gateway::edge::TrustedProxies::parse(&args.trusted_proxies)
            .map_err(anyhow::Error::msg)
            .context("--trusted-proxies")?,
        ..ServeOptions::new(args.listen.clone(), Some(args.admin_listen.clone()))
    };
    if let Some(url) = args.control_plane.clone() {
        return run_connected(&args, &url, &opts);
    }
    let Some(path) = args.config_file.clone() else {
        bail!("either --control-plane or --config-file is required");
    };
    let raw = gateway::config::load_file(&path)?;
    let sink: Arc<dyn UsageSink> = match &args.usage_file {
        Some(p) => {
            Arc::new(JsonLinesSink::open(p).with_context(|| format!("opening {}", p.display()))?)
        }
        None => Arc::new(NullSink),
    };
    let state = build_state(&raw, sink)?;
    preload_tokenizers(&args);
    state.breakers.set_policy(breaker_policy(&args));
    use_redis(
        &state,
        args.redis_url.as_ref(),
        Duration::from_millis(args.redis_timeout_ms),
    )?;
    // Traces (when the environment asks): a gRPC exporter needs a runtime of its own here.
    let export =
        telemetry::export_from(|key| std::env::var(key).ok()).map_err(anyhow::Error::msg)?;
    let otel_rt = if export == telemetry::Export::Off {
        None
    } else {
        Some(
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("otel-export")
                .on_thread_start(gateway::sched::background)
                .enable_all()
                .build()?,
        )
    };
    let otel = match &otel_rt {
        Some(rt) => {
            // Its threads starving (at idle priority) promotes the background threads.
            gateway::sched::governor().watch(Box::new(gateway::sched::RuntimePing::new(
                rt.handle().clone(),
            )));
            start_tracing(&state, rt.handle())?
        }
        None => None,
    };
    tracing::info!(listen = opts.listen, admin = ?opts.admin_listen, version = raw.version, "gateway starting");
    let drain = Duration::from_secs(args.drain_seconds);
    build_server(state.clone(), &opts).run(shutdown_args(state, drain));
    if let Some(otel) = otel {
        otel.shutdown();
    }
    Ok(())
}

/// Relay spans over OTLP when the environment asks (`OTEL_EXPORTER_OTLP_*`); a gRPC exporter
/// runs on `rt`.
fn start_tracing(
    state: &GatewayState,
    rt: &tokio::runtime::Handle,
) -> anyhow::Result<Option<telemetry::Tracing>> {
    let otel = telemetry::Tracing::from_env("ai-gateway", rt).map_err(anyhow::Error::msg)?;
    if let Some(otel) = &otel {
        let _ = state.tracer.set(otel.tracer().clone());
    }
    Ok(otel)
}

/// Shutdown on SIGTERM after in-flight requests finished (at most `drain`).
fn shutdown_args(state: Arc<GatewayState>, drain: Duration) -> RunArgs {
    RunArgs {
        shutdown_signal: Box::new(DrainOnTerm { state, drain }),
    }
}

/// Config from the control plane's Watch stream, usage to its Report stream (with a spool);
/// on SIGTERM, in-flight requests finish, then the usage queue is flushed.
fn run_connected(args: &Args, url: &str, opts: &ServeOptions) -> anyhow::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("control-plane-sync")
        .on_thread_start(gateway::sched::background)
        .enable_all()
        .build()?;
    // Its threads starving (at idle priority) promotes the background threads.
    gateway::sched::governor().watch(Box::new(gateway::sched::RuntimePing::new(
        rt.handle().clone(),
    )));
    let _guard = rt.enter();
    let token = match &args.sync_token_file {
        Some(path) => Some(link::read_token_file(path, Duration::from_secs(30))?),
        None => args.sync_token.clone(),
    };
    let (endpoint, auth) = link::endpoint(&LinkConfig {
        url: url.to_owned(),
        token,
        ca_file: args.control_plane_ca.clone(),
        client_cert: args.client_cert.clone().zip(args.client_key.clone()),
    })?;
    // Config and usage ride this channel, driven on the background runtime entered above.
    let channel = endpoint.connect_lazy();
    let gateway_id = args.gateway_id.clone().unwrap_or_else(|| {
        let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "gateway".to_owned());
        format!("{host}/{}", args.listen)
    });
    tracing::info!(
        control_plane = url,
        gateway_id,
        "waiting for the first config snapshot"
    );
    let first = rt.block_on(watch::first_snapshot(
        channel.clone(),
        auth.clone(),
        &gateway_id,
    ));
    let spool = Spool::bounded(&args.spool_dir, args.spool_max_bytes)?;
    let (sink, reporter) = report::start(
        channel.clone(),
        auth.clone(),
        gateway_id.clone(),
        spool,
        args.usage_queue,
    );
    let state = state_from(first.built, Arc::new(sink))?;
    preload_tokenizers(args);
    // The full message is not kept: deltas apply to the built snapshot.
    let version = first.raw.version;
    let rest = gateway::config::delta::RawRest::from_snapshot(&first.raw);
    drop(first.raw);
    gateway::memory::release_free_memory();
    let _ = state
        .tasks
        .set(gateway::tasks::TaskLookup::new(endpoint, auth.clone()));
    state.breakers.set_policy(breaker_policy(args));
    let otel = start_tracing(&state, rt.handle())?;
    state
        .readiness
        .set_max_stale_secs(args.ready_max_stale_seconds);
    use_redis(
        &state,
        args.redis_url.as_ref(),
        Duration::from_millis(args.redis_timeout_ms),
    )?;
    if let (Some(url), Some(carry)) = (
        args.redis_url.as_ref().filter(|u| !u.is_empty()),
        &state.carry,
    ) {
        let fleet = Fleet::new(
            url,
            &gateway_id,
            carry.clone(),
            state.metrics.fleet_metrics(),
            Duration::from_millis(args.redis_timeout_ms),
        )
        .map_err(|e| anyhow::anyhow!("--redis-url: {e}"))?;
        let fleet = Arc::new(fleet);
        let _ = state.fleet.set(fleet.clone());
        rt.spawn(fleet.run());
        tracing::info!("balances are shared by the fleet through Redis");
    }
    if let Some(carry) = &state.carry {
        carry.apply(
            version,
            &state.config.load(),
            &gateway::config::delta::Fresh::all(),
        );
    }
    tracing::info!(listen = opts.listen, admin = ?opts.admin_listen, version, "gateway starting");
    reporter.attach_spool_gauge(state.metrics.usage_spool.clone());
    reporter.attach_drop_counter(state.metrics.usage_dropped.clone());
    rt.spawn(watch::follow(
        state.clone(),
        channel,
        auth,
        gateway_id,
        rest,
        first.stream,
    ));
    let drain = Duration::from_secs(args.drain_seconds);
    build_server(state.clone(), opts).run(shutdown_args(state, drain));
    rt.block_on(reporter.flush_and_stop(Duration::from_secs(10)));
    if let Some(otel) = otel {
        otel.shutdown();
    }
    tracing::info!("gateway stopped");
    Ok(())
}

/// `--preload-tokenizers`: the tables load in the background while the gateway starts.
fn preload_tokenizers(args: &Args) {
    if args.preload_tokenizers {
        std::thread::spawn(gateway::adapters::tokens::warm_up);
    }
}
