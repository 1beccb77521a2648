//! The trust boundary between the planes, over real sockets with both binaries: no client of
//! the public port reaches the gRPC services (HTTP/1.1 or h2c, odd paths and headers), gateways
//! are refused without their credential, TLS and mTLS connect while a wrong CA or a missing
//! client certificate is refused with a log line on both sides, and a control plane with a
//! connected gateway stops on SIGTERM while the gateway loses no record.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use bytes::Bytes;
use common::system::{ControlPlane, Gateway, PrivatePostgres, System};
use common::{send, send_h2_as};
use prost::Message;
use proto::config::v1::WatchRequest;
use proto::usage::v1::{ReportBatch, UsageRecord};
use serde_json::{Value, json};

/// A gRPC message frame: uncompressed flag, length, bytes.
fn frame(msg: &impl Message) -> Bytes {
    let body = msg.encode_to_vec();
    let mut out = vec![0u8];
    out.extend_from_slice(&u32::try_from(body.len()).unwrap().to_be_bytes());
    out.extend_from_slice(&body);
    Bytes::from(out)
}

async fn public_port_reaches_no_grpc(postgres: bool) {
    let Some(sys) = System::start(postgres).await else {
        eprintln!("DATABASE_URL not set: PostgreSQL variant skipped");
        return;
    };
    let gw = sys.gateway("gw-edge").await;
    assert_eq!(gw.chat(&sys.key, "gpt-4o-mini").await.status, 200);
    let before = sys.wait_logs(1, Duration::from_secs(10)).await;
    let balances = sys.balances().await;

    let watch = frame(&WatchRequest {
        have_version: 0,
        gateway_id: "attacker".into(),
    });
    let report = frame(&ReportBatch {
        batch_id: 1,
        gateway_id: "attacker".into(),
        records: vec![UsageRecord {
            request_id: "forged-credit".into(),
            created_at: 1_800_000_000,
            r#type: 2,
            user_id: sys.user_id,
            token_id: 1,
            quota: -500_000_000,
            ..Default::default()
        }],
    });
    let paths = [
        "/config.v1.ConfigService/Watch",
        "//config.v1.ConfigService/Watch",
        "/config.v1.ConfigService%2FWatch",
        "/%63onfig.v1.ConfigService/Watch",
        "/api/../config.v1.ConfigService/Watch",
        "/api/%2e%2e/config.v1.ConfigService/Watch",
        "/usage.v1.UsageService/Report",
        "//usage.v1.UsageService/Report",
        "/usage.v1.UsageService%2fReport",
        "/api/../usage.v1.UsageService/Report",
    ];
    let header_sets: [&[(&str, &str)]; 4] = [
        &[("content-type", "application/grpc"), ("te", "trailers")],
        &[("content-type", "application/grpc")],
        &[
            ("content-type", "application/grpc+proto"),
            ("te", "trailers"),
        ],
        &[("content-type", "application/json")],
    ];
    let mut tried = 0;
    for path in paths {
        let body = if path.contains("Usage") {
            &report
        } else {
            &watch
        };
        for headers in header_sets {
            for method in ["POST", "GET"] {
                let url = format!("http://{}{path}", gw.addr);
                let h1 = send(method, &url, headers, body.clone()).await;
                let h2 = send_h2_as(method, &url, headers, body.clone()).await;
                for (proto, reply) in [("HTTP/1.1", h1), ("h2c", h2)] {
                    tried += 1;
                    let text = reply.text();
                    assert!(
                        !text.contains("sk-up-1")
                            && !reply.body.windows(7).any(|w| w == b"sk-up-1"),
                        "{proto} {method} {path}: a channel key leaked"
                    );
                    assert!(
                        reply.headers.get("grpc-status").is_none(),
                        "{proto} {method} {path} {headers:?}: reached a gRPC service ({} {text})",
                        reply.status
                    );
                    assert_eq!(reply.status, 404, "{proto} {method} {path}: {text}");
                }
            }
        }
    }
    assert_eq!(tried, 10 * 4 * 2 * 2);
    // The console and its API still pass.
    let status = send(
        "GET",
        &format!("http://{}/api/status", gw.addr),
        &[],
        Bytes::new(),
    )
    .await;
    assert_eq!(status.json()["success"], json!(true));
    // Nothing moved: no balance, no log row, no rejected record (nothing reached ingest).
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(sys.balances().await, balances);
    assert_eq!(sys.consume_logs().await, before);
    let rejected = sys.cp.ok("GET", "/api/usage/rejected", Value::Null).await;
    assert_eq!(rejected["total"], json!(0), "{rejected}");
}

/// Polls `f` until it is true (at most `limit`); whether it became true.
async fn eventually(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while !f() {
        if start.elapsed() > limit {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    true
}

async fn gateways_need_their_credential(postgres: bool) {
    let Some(sys) = System::start(postgres).await else {
        eprintln!("DATABASE_URL not set: PostgreSQL variant skipped");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // No credential at all: the gateway says so and stops.
    let mut bare = Gateway::spawn(
        sys.cp.port,
        &sys.cp.url(),
        &dir.path().join("bare"),
        "bare",
        &[],
    );
    let status = bare.proc.wait_exit(Duration::from_secs(10));
    assert!(!status.success());
    assert!(
        bare.log().contains("no credential for the control plane"),
        "{}",
        bare.log()
    );
    // A wrong token: refused by the control plane, said on both sides, never serves.
    let wrong = Gateway::spawn(
        sys.cp.port,
        &sys.cp.url(),
        &dir.path().join("wrong"),
        "wrong",
        &["--sync-token".into(), "not-the-token".into()],
    );
    let refused = eventually(Duration::from_secs(10), || {
        wrong.log().contains("gateway credentials required")
            && sys.cp.log().contains("wrong sync token")
    })
    .await;
    assert!(
        refused,
        "gateway: {}\ncontrol plane: {}",
        wrong.log(),
        sys.cp.log()
    );
    assert!(
        tokio::net::TcpStream::connect(wrong.addr).await.is_err(),
        "no config, no serving"
    );
    // The generated token works (the control plane wrote it, owner-only).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(sys.cp.token_file())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0);
    }
    let good = sys.gateway("good").await;
    assert_eq!(good.chat(&sys.key, "gpt-4o-mini").await.status, 200);
}

/// A CA, a server certificate for localhost signed by it, a client certificate signed by it,
/// and an unrelated CA.
struct Pki {
    dir: tempfile::TempDir,
}

impl Pki {
    fn new() -> Pki {
        use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: String| std::fs::write(dir.path().join(name), text).unwrap();
        let ca = |name: &str| {
            let key = KeyPair::generate().unwrap();
            let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
            params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
            params
                .distinguished_name
                .push(rcgen::DnType::CommonName, name);
            let cert = params.self_signed(&key).unwrap();
            (cert, params, key)
        };
        let (ca_cert, ca_params, ca_key) = ca("planes test CA");
        let issuer = rcgen::Issuer::new(ca_params, ca_key);
        let leaf = |names: Vec<String>, file: &str| {
            let key = KeyPair::generate().unwrap();
            let params = CertificateParams::new(names).unwrap();
            let cert = params.signed_by(&key, &issuer).unwrap();
            write(&format!("{file}.pem"), cert.pem());
            write(&format!("{file}.key"), key.serialize_pem());
        };
        leaf(vec!["localhost".into()], "server");
        leaf(vec!["gateway-1".into()], "client");
        write("ca.pem", ca_cert.pem());
        let (other, _, _) = ca("some other CA");
        write("other-ca.pem", other.pem());
        Pki { dir }
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    /// A control plane serving gRPC over TLS on its own port, requiring client certificates
    /// when `mtls`.
    fn control_plane_args(&self, grpc_port: u16, mtls: bool) -> Vec<String> {
        let mut args = vec![
            "--grpc-listen".to_string(),
            format!("127.0.0.1:{grpc_port}"),
            "--grpc-tls-cert".into(),
            self.path("server.pem"),
            "--grpc-tls-key".into(),
            self.path("server.key"),
        ];
        if mtls {
            args.extend(["--grpc-client-ca".into(), self.path("ca.pem")]);
        }
        args
    }
}

fn spawn_tls_gateway(sys: &System, grpc_port: u16, name: &str, args: &[String]) -> Gateway {
    Gateway::spawn(
        sys.cp.port,
        &format!("https://localhost:{grpc_port}"),
        &sys.dir.path().join(name),
        name,
        args,
    )
}

async fn tls_and_mtls_between_the_planes(postgres: bool) {
    let pki = Pki::new();
    let grpc_port = common::free_port();
    // mTLS: the client certificate is the gateway's credential (no token is generated).
    let cp_args = pki.control_plane_args(grpc_port, true);
    let Some(sys) = System::start_with(postgres, cp_args).await else {
        eprintln!("DATABASE_URL not set: PostgreSQL variant skipped");
        return;
    };
    assert!(
        !sys.cp.token_file().exists(),
        "mTLS needs no generated token"
    );
    let identity = |ca: &str| {
        vec![
            "--control-plane-ca".to_string(),
            pki.path(ca),
            "--client-cert".into(),
            pki.path("client.pem"),
            "--client-key".into(),
            pki.path("client.key"),
        ]
    };
    let good = spawn_tls_gateway(&sys, grpc_port, "mtls", &identity("ca.pem"));
    common::wait_listening(good.addr).await;
    assert_eq!(good.chat(&sys.key, "gpt-4o-mini").await.status, 200);
    sys.wait_logs(1, Duration::from_secs(10)).await;
    assert_eq!(sys.consume_logs().await.0, 1, "usage reported over mTLS");

    // A gateway that does not trust the control plane's CA refuses it.
    let wrong_ca = spawn_tls_gateway(&sys, grpc_port, "wrong-ca", &identity("other-ca.pem"));
    let refused = eventually(Duration::from_secs(10), || {
        wrong_ca.log().contains("invalid peer certificate")
            && sys.cp.log().contains("gateway TLS handshake refused")
    })
    .await;
    assert!(
        refused,
        "gateway: {}\ncontrol plane: {}",
        wrong_ca.log(),
        sys.cp.log()
    );
    // A gateway without a client certificate is refused by the control plane.
    let no_cert = spawn_tls_gateway(
        &sys,
        grpc_port,
        "no-cert",
        &[
            "--control-plane-ca".into(),
            pki.path("ca.pem"),
            "--sync-token".into(),
            "a-token-is-not-a-certificate".into(),
        ],
    );
    let refused = eventually(Duration::from_secs(10), || {
        sys.cp.log().contains("peer sent no certificates") && no_cert.log().contains("no config")
    })
    .await;
    assert!(
        refused,
        "gateway: {}\ncontrol plane: {}",
        no_cert.log(),
        sys.cp.log()
    );
    for gw in [&wrong_ca, &no_cert] {
        assert!(tokio::net::TcpStream::connect(gw.addr).await.is_err());
    }
    // The REST port serves no gRPC when it has its own listener.
    let plain = send(
        "POST",
        &format!("{}/config.v1.ConfigService/Watch", sys.cp.url()),
        &[("content-type", "application/grpc")],
        Bytes::new(),
    )
    .await;
    assert!(plain.headers.get("grpc-status").is_none() || plain.status != 200);
    assert!(!plain.text().contains("sk-up-1"));
}

async fn tls_with_a_sync_token(postgres: bool) {
    let pki = Pki::new();
    let grpc_port = common::free_port();
    let cp_args = pki.control_plane_args(grpc_port, false);
    let Some(sys) = System::start_with(postgres, cp_args).await else {
        eprintln!("DATABASE_URL not set: PostgreSQL variant skipped");
        return;
    };
    let gw = spawn_tls_gateway(
        &sys,
        grpc_port,
        "tls",
        &[
            "--control-plane-ca".into(),
            pki.path("ca.pem"),
            "--sync-token-file".into(),
            sys.cp.token_file().display().to_string(),
        ],
    );
    common::wait_listening(gw.addr).await;
    assert_eq!(gw.chat(&sys.key, "gpt-4o-mini").await.status, 200);
    // Plain HTTP to the TLS listener gets nothing.
    let channel = tonic::transport::Endpoint::from_shared(format!("http://127.0.0.1:{grpc_port}"))
        .unwrap()
        .connect()
        .await;
    if let Ok(channel) = channel {
        let mut client =
            proto::config::v1::config_service_client::ConfigServiceClient::new(channel);
        assert!(client.watch(WatchRequest::default()).await.is_err());
    }
}

async fn control_plane_stops_on_sigterm_and_nothing_is_lost(postgres: bool) {
    let Some(mut sys) = System::start(postgres).await else {
        eprintln!("DATABASE_URL not set: PostgreSQL variant skipped");
        return;
    };
    let gw = sys.gateway("gw-stay").await;
    let mut ok = 0;
    for _ in 0..20 {
        if gw.chat(&sys.key, "gpt-4o-mini").await.status == 200 {
            ok += 1;
        }
    }
    // The gateway holds its Watch and Report streams open; SIGTERM still ends the process.
    gw.wait_metric("gateway_config_stream_up", 1, Duration::from_secs(5))
        .await;
    let proc = sys.cp.proc.as_mut().unwrap();
    let start = Instant::now();
    proc.signal("TERM");
    let status = proc.wait_exit(Duration::from_secs(10));
    assert!(status.success(), "{status:?}");
    eprintln!("control plane exited {:?} after SIGTERM", start.elapsed());
    sys.cp.proc = None;
    // The gateway keeps serving from its snapshot while the control plane is away...
    for _ in 0..20 {
        if gw.chat(&sys.key, "gpt-4o-mini").await.status == 200 {
            ok += 1;
        }
    }
    // ...and resumes against a new control plane with no record lost or doubled.
    sys.cp.launch().await;
    gw.wait_metric("gateway_config_stream_up", 1, Duration::from_secs(15))
        .await;
    let (rows, _) = sys.wait_logs(ok, Duration::from_secs(20)).await;
    assert_eq!(rows, ok);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(sys.consume_logs().await.0, ok, "nothing doubled");
    assert_eq!(ok, 40);
}

/// Config writers racing each other while the PostgreSQL server restarts (every connection,
/// the control plane's LISTEN included, is lost): both gateways end with every token in the
/// state the database holds, as seen by answering requests with each token.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gateways_converge_across_a_database_restart() {
    let Some(pg) = PrivatePostgres::start() else {
        assert!(
            std::env::var("CI").is_err(),
            "PostgreSQL's server binaries are needed in CI"
        );
        eprintln!("no PostgreSQL server binaries: skipped");
        return;
    };
    let sys = System::start_on(Some(pg.url()), Vec::new()).await.unwrap();
    let gws = [sys.gateway("gw-r1").await, sys.gateway("gw-r2").await];
    let mut tokens = Vec::new();
    for i in 0..8 {
        let reply = sys
            .cp
            .call_as(
                &sys.user_session,
                "POST",
                "/api/token/",
                json!({"name": format!("race{i}"), "remain_quota": 0, "unlimited_quota": true, "expired_time": -1}),
            )
            .await;
        let t = &reply["data"][0];
        tokens.push((
            t["id"].as_i64().unwrap(),
            t["key"].as_str().unwrap().to_string(),
        ));
    }
    let writers: Vec<_> = (0..4usize)
        .map(|w| {
            let (url, session) = (sys.cp.url(), sys.user_session.clone());
            let ids: Vec<i64> = tokens.iter().map(|(id, _)| *id).collect();
            tokio::spawn(async move {
                for i in 0..40usize {
                    let id = ids[(w * 3 + i * 5) % ids.len()];
                    let status = if (w + i) % 3 == 0 { 1 } else { 2 };
                    let id_text = session.1.to_string();
                    let headers = [
                        ("cookie", session.0.as_str()),
                        ("new-api-user", id_text.as_str()),
                    ];
                    // Writes fail while the database restarts; that is part of the test.
                    let _ = common::system::send_json(
                        "PUT",
                        &format!("{url}/api/token/?status_only=true"),
                        &headers,
                        json!({"id": id, "status": status}),
                    )
                    .await;
                    tokio::time::sleep(Duration::from_millis(25)).await;
                }
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(700)).await;
    pg.restart();
    for w in writers {
        w.await.unwrap();
    }
    // What the database holds now (read after the writers ended).
    let mut want = std::collections::HashMap::new();
    let start = Instant::now();
    while want.len() < tokens.len() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the control plane did not recover"
        );
        let listed = sys
            .cp
            .call_as(
                &sys.user_session,
                "GET",
                "/api/token/?p=1&page_size=100",
                Value::Null,
            )
            .await;
        if let Some(items) = listed["data"]["items"].as_array() {
            for t in items {
                want.insert(
                    t["id"].as_i64().unwrap(),
                    t["status"].as_i64().unwrap() == 1,
                );
            }
        } else {
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    let start = Instant::now();
    loop {
        let mut wrong = Vec::new();
        for gw in &gws {
            for (id, key) in &tokens {
                let served = gw.chat(key, "gpt-4o-mini").await.status == 200;
                if served != want[id] {
                    wrong.push((gw.addr, *id, want[id]));
                }
            }
        }
        if wrong.is_empty() {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "gateways disagree with the database: {wrong:?}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

on_both_databases!(
    public_port_reaches_no_grpc,
    gateways_need_their_credential,
    tls_and_mtls_between_the_planes,
    tls_with_a_sync_token,
    control_plane_stops_on_sigterm_and_nothing_is_lost,
);

/// A network namespace joined to this machine by a veth pair: a client in it is a real
/// non-loopback peer (`10.x.y.2`) of whatever listens on the host end (`10.x.y.1`). Removed on
/// drop (which removes the pair too). Needs CAP_NET_ADMIN.
struct Netns {
    name: String,
    host_ip: String,
}

impl Netns {
    fn ip(args: &[&str]) -> Result<(), String> {
        let out = std::process::Command::new("ip")
            .args(args)
            .output()
            .map_err(|e| format!("ip: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "ip {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            ))
        }
    }

    /// `None` (with the reason printed) where namespaces cannot be made, e.g. without root.
    fn create() -> Option<Netns> {
        let pid = std::process::id();
        let name = format!("aigw{pid}");
        let (host_if, ns_if) = (format!("aigwh{pid}"), format!("aigwn{pid}"));
        let subnet = format!("10.{}.{}", 200 + pid % 50, (pid / 50) % 250);
        let host_ip = format!("{subnet}.1");
        let made = Self::ip(&["netns", "add", &name]).map(|()| Netns {
            name: name.clone(),
            host_ip: host_ip.clone(),
        });
        let ns = match made {
            Ok(ns) => ns,
            Err(e) => {
                eprintln!("SKIPPED: no network namespace could be created ({e})");
                return None;
            }
        };
        let steps: [&[&str]; 6] = [
            &[
                "link", "add", &host_if, "type", "veth", "peer", "name", &ns_if, "netns", &name,
            ],
            &["addr", "add", &format!("{host_ip}/30"), "dev", &host_if],
            &["link", "set", &host_if, "up"],
            &[
                "-n",
                &name,
                "addr",
                "add",
                &format!("{subnet}.2/30"),
                "dev",
                &ns_if,
            ],
            &["-n", &name, "link", "set", &ns_if, "up"],
            &["-n", &name, "link", "set", "lo", "up"],
        ];
        for step in steps {
            Self::ip(step).unwrap();
        }
        Some(ns)
    }

    /// `curl` run inside the namespace: (status, body).
    fn curl(&self, method: &str, url: &str, headers: &[(&str, &str)], body: &str) -> (u16, Value) {
        let mut cmd = std::process::Command::new("ip");
        cmd.args([
            "netns",
            "exec",
            &self.name,
            "curl",
            "-sS",
            "--max-time",
            "20",
        ])
        .args(["-X", method, url, "-w", "\n%{http_code}"])
        .args([
            "-H",
            "content-type: application/json",
            "--data-binary",
            body,
        ]);
        for (name, value) in headers {
            cmd.args(["-H", &format!("{name}: {value}")]);
        }
        let out = cmd.output().expect("curl runs");
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let (body, status) = text.rsplit_once('\n').unwrap_or(("", &text));
        (
            status.trim().parse().unwrap_or(0),
            serde_json::from_str(body).unwrap_or(Value::Null),
        )
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = Self::ip(&["netns", "del", &self.name]);
    }
}

/// First-time setup without the setup token is refused to a remote client that reaches the
/// control plane through the gateway's console forwarder, whatever it forges
/// (`X-Forwarded-For: 127.0.0.1`, `Forwarded`, `X-Real-IP`), both when the control plane
/// trusts the gateway as a proxy (`make run`) and when it trusts no proxy (the default); the
/// setup token from the control plane's log lets the same client in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remote_setup_through_the_gateway_needs_the_setup_token() {
    let Some(ns) = Netns::create() else { return };
    for trusted in [Some("127.0.0.1,::1"), None] {
        let mut args = vec![
            "--setup-token".to_string(),
            "the-setup-token-42".to_string(),
        ];
        if let Some(proxies) = trusted {
            args.extend(["--trusted-proxies".to_string(), proxies.to_string()]);
        }
        let mut cp = ControlPlane::start_uninitialized(None, args).await;
        let spool = tempfile::tempdir().unwrap();
        let addr = format!("{}:{}", ns.host_ip, common::free_port())
            .parse()
            .unwrap();
        let token_args = [
            "--sync-token-file".to_string(),
            cp.token_file().display().to_string(),
        ];
        let gw = Gateway::spawn_on(
            addr,
            cp.port,
            &cp.url(),
            spool.path(),
            "gw-setup",
            &token_args,
        );
        common::wait_listening(addr).await;

        let url = format!("http://{addr}/api/setup");
        let form = json!({"username": "root", "password": "remote-pass-1", "confirmPassword": "remote-pass-1"})
            .to_string();
        let forgeries: [&[(&str, &str)]; 5] = [
            &[],
            &[("x-forwarded-for", "127.0.0.1")],
            &[("x-forwarded-for", "::1, 127.0.0.1")],
            &[("forwarded", "for=127.0.0.1"), ("x-real-ip", "127.0.0.1")],
            &[("x-setup-token", "a-wrong-token")],
        ];
        for headers in forgeries {
            let (status, body) = ns.curl("POST", &url, headers, &form);
            assert_eq!(status, 403, "trusted {trusted:?}, {headers:?}: {body}");
            assert_eq!(body["success"], json!(false), "{body}");
        }
        let state = cp.call("GET", "/api/setup", json!(null)).await;
        assert_eq!(state["data"]["status"], json!(false), "{state}");
        assert_eq!(state["data"]["root_init"], json!(false), "{state}");

        let (status, body) = ns.curl(
            "POST",
            &url,
            &[("x-setup-token", "the-setup-token-42")],
            &form,
        );
        assert_eq!(status, 200, "trusted {trusted:?}: {body}");
        assert_eq!(body["success"], json!(true), "{body}");
        cp.login("root", "remote-pass-1").await;
        drop(gw);
        cp.kill();
    }
}
