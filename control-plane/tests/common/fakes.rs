//! Stand-ins for outside services, on loopback: an SMTP server that keeps what it receives, and a
//! Turnstile siteverify endpoint that accepts one token.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use base64::Engine;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// One received email: envelope recipient and the decoded message text.
#[derive(Debug, Clone)]
pub struct Received {
    pub to: String,
    pub text: String,
}

/// A minimal SMTP server (no TLS, no AUTH) that records messages.
pub struct FakeSmtp {
    pub port: u16,
    inbox: Arc<Mutex<Vec<Received>>>,
}

impl FakeSmtp {
    pub async fn start() -> FakeSmtp {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let inbox = Arc::new(Mutex::new(Vec::new()));
        let sink = inbox.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let sink = sink.clone();
                tokio::spawn(async move {
                    let (read, mut write) = stream.into_split();
                    let mut lines = BufReader::new(read).lines();
                    let _ = write.write_all(b"220 fake ESMTP\r\n").await;
                    let mut to = String::new();
                    while let Ok(Some(line)) = lines.next_line().await {
                        let upper = line.to_ascii_uppercase();
                        let reply: &[u8] = if upper.starts_with("EHLO") || upper.starts_with("HELO")
                        {
                            b"250-fake\r\n250 8BITMIME\r\n"
                        } else if upper.starts_with("RCPT TO:") {
                            to = line[8..].trim().trim_matches(['<', '>']).to_string();
                            b"250 OK\r\n"
                        } else if upper.starts_with("DATA") {
                            let _ = write.write_all(b"354 go ahead\r\n").await;
                            let mut raw = String::new();
                            while let Ok(Some(data)) = lines.next_line().await {
                                if data == "." {
                                    break;
                                }
                                raw.push_str(&data);
                                raw.push('\n');
                            }
                            sink.lock().unwrap().push(Received {
                                to: to.clone(),
                                text: decode(&raw),
                            });
                            b"250 queued\r\n"
                        } else if upper.starts_with("QUIT") {
                            let _ = write.write_all(b"221 bye\r\n").await;
                            break;
                        } else {
                            b"250 OK\r\n"
                        };
                        if write.write_all(reply).await.is_err() {
                            break;
                        }
                    }
                });
            }
        });
        FakeSmtp { port, inbox }
    }

    pub fn received(&self) -> Vec<Received> {
        self.inbox.lock().unwrap().clone()
    }

    /// What was received once at least `n` messages arrived (mail sent in the background), or
    /// after five seconds.
    pub async fn wait_for(&self, n: usize) -> Vec<Received> {
        for _ in 0..100 {
            let got = self.received();
            if got.len() >= n {
                return got;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        self.received()
    }
}

/// The message with its body decoded (quoted-printable or base64).
fn decode(raw: &str) -> String {
    let Some((head, body)) = raw.split_once("\n\n") else {
        return raw.to_string();
    };
    let lower = head.to_ascii_lowercase();
    let body = if lower.contains("content-transfer-encoding: base64") {
        let joined: String = body.split_whitespace().collect();
        String::from_utf8_lossy(
            &base64::engine::general_purpose::STANDARD
                .decode(joined)
                .unwrap_or_default(),
        )
        .into_owned()
    } else if lower.contains("content-transfer-encoding: quoted-printable") {
        decode_quoted_printable(body)
    } else {
        body.to_string()
    };
    format!("{head}\n\n{body}")
}

fn decode_quoted_printable(body: &str) -> String {
    let joined = body.replace("=\n", "");
    let bytes = joined.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'='
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(&joined[i + 1..i + 3], 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A siteverify endpoint accepting `response == token` with `secret == secret`.
pub async fn fake_turnstile(secret: &'static str, token: &'static str) -> String {
    use axum::routing::post;
    let app = axum::Router::new().route(
        "/siteverify",
        post(move |axum::Form(form): axum::Form<std::collections::HashMap<String, String>>| async move {
            let ok = form.get("secret").map(String::as_str) == Some(secret)
                && form.get("response").map(String::as_str) == Some(token);
            axum::Json(serde_json::json!({"success": ok}))
        }),
    );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}/siteverify")
}
