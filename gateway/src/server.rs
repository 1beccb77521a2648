//! Assembling and running the pingora server: the relay service on the client address and
//! the admin service (metrics, health) on the admin address.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use pingora::apps::HttpServerOptions;
use pingora::listeners::{L4BufferSettings, ListenerConfig};
use pingora::server::configuration::ServerConf;
use pingora::server::{RunArgs, Server, ShutdownSignal, ShutdownSignalWatch};
use pingora::services::listening::Service;
use proto::config::v1 as pb;
use tokio::sync::watch;

use crate::admin::AdminApp;
use crate::config::{ConfigError, ConfigStore, Snapshot};
use crate::error::UpstreamError;
use crate::metrics::Metrics;
use crate::relay::Relay;
use crate::state::GatewayState;
use crate::upstream::Upstream;
use crate::usage::UsageSink;

/// Why a gateway could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("metrics: {0}")]
    Metrics(#[from] prometheus::Error),
    #[error("upstream client: {0}")]
    Upstream(#[from] UpstreamError),
}

/// Where and how to serve.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub listen: String,
    pub admin_listen: Option<String>,
    /// Worker threads of the relay service.
    pub threads: usize,
    /// On SIGTERM: seconds to keep accepting before stopping (load balancers catch up).
    pub grace_period_seconds: u64,
    /// Then: seconds in-flight requests (streams) get to finish.
    pub shutdown_timeout_seconds: u64,
    /// Non-relay paths (console, `/api`) are proxied here (the control plane), when set.
    pub forward_to: Option<std::net::SocketAddr>,
    /// Browser origins allowed to call the relay (CORS).
    pub cors: crate::relay::CorsOrigins,
    /// Proxies whose `X-Forwarded-For` is believed (none by default).
    pub trusted_proxies: crate::edge::TrustedProxies,
}

impl ServeOptions {
    /// Options for tests and embedding: quick shutdown.
    pub fn new(listen: String, admin_listen: Option<String>) -> Self {
        ServeOptions {
            listen,
            admin_listen,
            threads: 2,
            grace_period_seconds: 0,
            shutdown_timeout_seconds: 1,
            forward_to: None,
            cors: crate::relay::CorsOrigins::Any,
            trusted_proxies: crate::edge::TrustedProxies::default(),
        }
    }
}

/// Builds the shared state from a raw snapshot.
pub fn build_state(
    raw: &pb::Snapshot,
    sink: Arc<dyn UsageSink>,
) -> Result<Arc<GatewayState>, StartError> {
    state_from(Snapshot::build(raw)?, sink)
}

/// The shared state around a snapshot already built (a gateway's first config is built once,
/// when it arrives).
pub fn state_from(
    snapshot: Snapshot,
    sink: Arc<dyn UsageSink>,
) -> Result<Arc<GatewayState>, StartError> {
    let upstream = Upstream::new(snapshot.options.connect_timeout)?;
    let metrics = Metrics::new()?;
    metrics.config_applied(snapshot.version);
    Ok(Arc::new(GatewayState {
        in_flight: std::sync::atomic::AtomicUsize::new(0),
        carry: sink.carry(),
        concurrency: Arc::default(),
        limits: Arc::new(crate::limits::Limits::new(Some(metrics.limit_metrics()))),
        fleet: std::sync::OnceLock::new(),
        tracer: std::sync::OnceLock::new(),
        breakers: crate::routing::Breakers::new(crate::routing::BreakerPolicy::default()),
        readiness: crate::state::Readiness::default(),
        vertex_tokens: crate::credentials::VertexTokens::default(),
        tasks: std::sync::OnceLock::new(),
        config: ConfigStore::new(snapshot),
        sink,
        metrics,
        upstream,
    }))
}

/// Builds the pingora server with both services; `run` it to serve.
pub fn build_server(state: Arc<GatewayState>, opts: &ServeOptions) -> Server {
    static INSTANCE: AtomicU64 = AtomicU64::new(0);
    let n = INSTANCE.fetch_add(1, Ordering::Relaxed);
    let tmp = std::env::temp_dir();
    let pid = std::process::id();
    let conf = ServerConf {
        threads: opts.threads.max(1),
        pid_file: tmp
            .join(format!("gateway-{pid}-{n}.pid"))
            .display()
            .to_string(),
        upgrade_sock: tmp
            .join(format!("gateway-{pid}-{n}.sock"))
            .display()
            .to_string(),
        grace_period_seconds: Some(opts.grace_period_seconds),
        graceful_shutdown_timeout_seconds: Some(opts.shutdown_timeout_seconds),
        ..ServerConf::default()
    };
    let mut server = Server::new_with_opt_and_conf(None, conf);
    server.bootstrap();
    let mut relay = pingora::proxy::http_proxy_service_with_name(
        &server.configuration,
        Relay {
            state: state.clone(),
            forward_to: opts.forward_to,
            cors: opts.cors.clone(),
            trusted_proxies: opts.trusted_proxies.clone(),
        },
        "relay",
    );
    if let Some(proxy) = relay.app_logic_mut() {
        // Plaintext HTTP/2 (prior knowledge) next to HTTP/1.1 on the same port.
        let mut http = HttpServerOptions::default();
        http.h2c = true;
        proxy.server_options = Some(http);
    }
    // No L4 read buffer on client connections: pingora's HTTP layer reads into its own header
    // and body buffers, and the default 64 KiB buffer in front of them added about 12 KiB of
    // touched memory to every request held open, for no fewer reads.
    relay.add_listener(
        ListenerConfig::tcp(opts.listen.clone()).l4_buffer(L4BufferSettings::default().read(0)),
    );
    server.add_service(relay);
    if let Some(admin) = &opts.admin_listen {
        let mut svc = Service::new("admin".to_owned(), AdminApp { state });
        svc.add_tcp(admin);
        server.add_service(svc);
    }
    server
}

/// SIGTERM: wait until no relay request is in flight (at most `drain`), then shut down
/// gracefully; SIGINT: shut down at once. (Long streams thus finish before the runtimes stop.)
pub struct DrainOnTerm {
    pub state: Arc<GatewayState>,
    pub drain: std::time::Duration,
}

#[async_trait]
impl ShutdownSignalWatch for DrainOnTerm {
    async fn recv(&self) -> ShutdownSignal {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut term), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) else {
            tracing::error!("cannot listen for signals; stopping");
            return ShutdownSignal::FastShutdown;
        };
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => return ShutdownSignal::FastShutdown,
        }
        self.state.readiness.start_draining();
        let start = std::time::Instant::now();
        let count = || self.state.in_flight.load(Ordering::Acquire);
        tracing::info!(
            in_flight = count(),
            "SIGTERM: waiting for in-flight requests"
        );
        while count() > 0 && start.elapsed() < self.drain {
            tokio::select! {
                _ = tokio::time::sleep(std::time::Duration::from_millis(50)) => {}
                _ = int.recv() => return ShutdownSignal::FastShutdown,
            }
        }
        if count() > 0 {
            tracing::warn!(
                in_flight = count(),
                "drain timeout: stopping with requests in flight"
            );
        }
        ShutdownSignal::GracefulTerminate
    }
}

struct StopSignal(watch::Receiver<bool>);

#[async_trait]
impl ShutdownSignalWatch for StopSignal {
    async fn recv(&self) -> ShutdownSignal {
        let mut rx = self.0.clone();
        let _ = rx.wait_for(|stop| *stop).await;
        ShutdownSignal::FastShutdown
    }
}

/// A gateway running on its own thread (tests, embedding).
pub struct RunningGateway {
    pub state: Arc<GatewayState>,
    stop: watch::Sender<bool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl RunningGateway {
    /// Starts serving in the background; the listeners are bound shortly after return.
    pub fn spawn(state: Arc<GatewayState>, opts: &ServeOptions) -> RunningGateway {
        let server = build_server(state.clone(), opts);
        let (stop, rx) = watch::channel(false);
        let thread = std::thread::spawn(move || {
            server.run(RunArgs {
                shutdown_signal: Box::new(StopSignal(rx)),
            })
        });
        RunningGateway {
            state,
            stop,
            thread: Some(thread),
        }
    }

    /// Stops the server and waits for its thread.
    pub fn shutdown(mut self) {
        self.stop_and_join();
    }

    fn stop_and_join(&mut self) {
        let _ = self.stop.send(true);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for RunningGateway {
    fn drop(&mut self) {
        self.stop_and_join();
    }
}
