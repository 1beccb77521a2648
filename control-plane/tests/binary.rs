//! The real binary: `--help` (without secret environment values), `migrate`, `openapi`, and
//! `serve` answering `GET /api/status` over a socket with SQLite in a fresh data folder, and
//! its admin listener (metrics and health, kept off the public port).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_control-plane");

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn http_get(port: u16, path: &str) -> Option<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut out = String::new();
    stream.read_to_string(&mut out).ok()?;
    Some(out)
}

#[test]
fn help_lists_the_flags() {
    let out = Command::new(BIN).arg("--help").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--listen",
        "--database-url",
        "--data-dir",
        "--session-ttl-hours",
        "--console-dir",
        "--setup-token",
    ] {
        assert!(text.contains(flag), "--help lacks {flag}");
    }
    for command in ["serve", "migrate", "openapi"] {
        assert!(text.contains(command), "--help lacks {command}");
    }
}

/// Secrets set in the environment never appear in `--help` (clap shows other env values).
#[test]
fn help_never_shows_secret_environment_values() {
    const MARKER: &str = "s3cret-marker-7f3a";
    let secrets = [
        (
            "DATABASE_URL",
            format!("postgres://root:{MARKER}@127.0.0.1:1/x"),
        ),
        ("ENCRYPTION_KEY", MARKER.to_string()),
        ("GATEWAY_SYNC_TOKEN", MARKER.to_string()),
        ("SETUP_TOKEN", MARKER.to_string()),
    ];
    for args in [["--help"], ["-h"]] {
        let out = Command::new(BIN)
            .args(args)
            .envs(secrets.iter().map(|(k, v)| (k, v)))
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("--database-url"), "{args:?}: {text}");
        assert!(!text.contains(MARKER), "{args:?} shows a secret: {text}");
    }
    // The check can fail: a plain setting's environment value is shown.
    let out = Command::new(BIN)
        .arg("--help")
        .env("DATA_DIR", MARKER)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains(MARKER));
}

#[test]
fn migrate_creates_the_sqlite_file() {
    let dir = tempfile::tempdir().unwrap();
    let status = Command::new(BIN)
        .args(["--data-dir", dir.path().to_str().unwrap(), "migrate"])
        .env_remove("DATABASE_URL")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    assert!(dir.path().join("gateway.db").is_file());
}

#[test]
fn serve_answers_status_over_a_socket() {
    let dir = tempfile::tempdir().unwrap();
    let (port, admin) = (free_port(), free_port());
    let _server = Running(
        Command::new(BIN)
            .args([
                "--listen",
                &format!("127.0.0.1:{port}"),
                "--admin-listen",
                &format!("127.0.0.1:{admin}"),
                "--data-dir",
                dir.path().to_str().unwrap(),
            ])
            .env_remove("DATABASE_URL")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    let reply = loop {
        if let Some(reply) = http_get(port, "/api/status") {
            break reply;
        }
        assert!(
            Instant::now() < deadline,
            "control plane did not answer in time"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    let body = reply.split("\r\n\r\n").nth(1).unwrap();
    let json: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(json["success"], serde_json::json!(true));
    assert_eq!(json["data"]["setup"], serde_json::json!(false));

    // The admin listener: health, readiness, and metrics that counted the request by route.
    for (path, body) in [("/healthz", "ok"), ("/readyz", "ready")] {
        let reply = http_get(admin, path).unwrap_or_default();
        assert!(reply.starts_with("HTTP/1.1 200"), "{path}: {reply}");
        assert!(reply.ends_with(body), "{path}: {reply}");
    }
    let metrics = http_get(admin, "/metrics").unwrap_or_default();
    assert!(
        metrics.contains(
            r#"control_plane_http_requests_total{method="GET",route="/api/status",status="2xx"} 1"#
        ),
        "{metrics}"
    );
    assert!(metrics.contains("control_plane_http_request_duration_seconds_bucket"));
    // Unknown paths share one label, whatever they are.
    let _ = http_get(port, "/api/no-such-thing/12345");
    let _ = http_get(port, "/no-such-page-12345");
    let metrics = http_get(admin, "/metrics").unwrap_or_default();
    assert!(metrics.contains(r#"route="other""#), "{metrics}");
    assert!(!metrics.contains("12345"));
    // The public port serves none of it.
    let public = http_get(port, "/metrics").unwrap_or_default();
    assert!(!public.contains("control_plane_"), "{public}");
}
