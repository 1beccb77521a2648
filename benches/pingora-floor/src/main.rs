//! `pingora-floor`: a pass-through proxy with an empty `ProxyHttp` (every phase at its
//! default, one fixed upstream, pooled upstream connections). It does nothing a gateway must
//! do, so its CPU time per request is the floor for anything built on pingora.

use std::net::SocketAddr;

use async_trait::async_trait;
use clap::Parser;
use pingora::prelude::HttpPeer;
use pingora::proxy::{ProxyHttp, Session};
use pingora::server::Server;
use pingora::server::configuration::ServerConf;

/// Minimal pingora pass-through proxy (benchmark baseline).
#[derive(Parser, Debug)]
#[command(name = "pingora-floor", version)]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:3300")]
    listen: String,
    /// Upstream (plain HTTP) every request is passed to.
    #[arg(long)]
    upstream: SocketAddr,
    /// Worker threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
}

/// Sends every request, unchanged, to one upstream.
struct PassThrough {
    upstream: SocketAddr,
}

#[async_trait]
impl ProxyHttp for PassThrough {
    type CTX = ();

    fn new_ctx(&self) {}

    async fn upstream_peer(
        &self,
        _session: &mut Session,
        _ctx: &mut (),
    ) -> pingora::Result<Box<HttpPeer>> {
        Ok(Box::new(HttpPeer::new(self.upstream, false, String::new())))
    }
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let tmp = std::env::temp_dir();
    let pid = std::process::id();
    let conf = ServerConf {
        threads: args.threads.max(1),
        pid_file: tmp
            .join(format!("pingora-floor-{pid}.pid"))
            .display()
            .to_string(),
        upgrade_sock: tmp
            .join(format!("pingora-floor-{pid}.sock"))
            .display()
            .to_string(),
        grace_period_seconds: Some(0),
        graceful_shutdown_timeout_seconds: Some(1),
        ..ServerConf::default()
    };
    let mut server = Server::new_with_opt_and_conf(None, conf);
    server.bootstrap();
    let mut proxy = pingora::proxy::http_proxy_service(
        &server.configuration,
        PassThrough {
            upstream: args.upstream,
        },
    );
    proxy.add_tcp(&args.listen);
    server.add_service(proxy);
    println!("pingora-floor listening on {}", args.listen);
    server.run_forever()
}
