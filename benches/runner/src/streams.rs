//! Many long-lived SSE streams held open at once (plain HTTP/1.1 over tokio, one connection
//! per stream): time to the first event of each, how many were open together, how many ended
//! with `[DONE]`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::load::Req;
use crate::stats::percentile;

/// What a streams run saw.
#[derive(Debug, Clone, Copy, Default, serde::Serialize, serde::Deserialize)]
pub struct Streams {
    pub started: usize,
    pub completed: usize,
    /// Most streams open at the same time (connected, not yet ended).
    pub peak_open: usize,
    pub ttfb_p50_ms: f64,
    pub ttfb_p99_ms: f64,
}

/// Splits `http://host:port/path` into address and path.
pub fn split_url(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("http://")?;
    let i = rest.find('/')?;
    Some((&rest[..i], &rest[i..]))
}

fn raw_request(req: &Req) -> anyhow::Result<(String, Vec<u8>)> {
    let (addr, path) = split_url(&req.url).context("unsupported URL")?;
    let mut head = format!("POST {path} HTTP/1.1\r\nHost: {addr}\r\n");
    for (k, v) in &req.headers {
        head += &format!("{k}: {v}\r\n");
    }
    head += &format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n{}",
        req.body.len(),
        req.body
    );
    Ok((addr.to_owned(), head.into_bytes()))
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// One stream: time to its first `data:` line, and whether it reached `[DONE]`.
async fn one(addr: &str, raw: &[u8], open: &AtomicUsize) -> (Option<Duration>, bool) {
    let t0 = Instant::now();
    let Ok(mut s) = TcpStream::connect(addr).await else {
        return (None, false);
    };
    let (mut first, mut done) = (None, false);
    if s.write_all(raw).await.is_ok() {
        open.fetch_add(1, Ordering::Relaxed);
        let mut buf = vec![0u8; 8192];
        let mut window: Vec<u8> = Vec::with_capacity(8192 + 16);
        loop {
            let n = match s.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            let keep = window.len().saturating_sub(16);
            window.drain(..keep);
            window.extend_from_slice(&buf[..n]);
            if first.is_none() && contains(&window, b"data:") {
                first = Some(t0.elapsed());
            }
            if contains(&window, b"[DONE]") {
                done = true;
                break;
            }
        }
        open.fetch_sub(1, Ordering::Relaxed);
    }
    (first, done)
}

/// Opens `n` streams, `per_second` new ones a second, and waits (at most `limit`) for all.
pub fn run(req: &Req, n: usize, per_second: usize, limit: Duration) -> anyhow::Result<Streams> {
    let (addr, raw) = raw_request(req)?;
    let (addr, raw) = (Arc::new(addr), Arc::new(raw));
    let open = Arc::new(AtomicUsize::new(0));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let results = rt.block_on(async {
        let peak = {
            let open = open.clone();
            tokio::spawn(async move {
                let mut peak = 0;
                loop {
                    peak = peak.max(open.load(Ordering::Relaxed));
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    if Arc::strong_count(&open) == 1 {
                        return peak;
                    }
                }
            })
        };
        let start = tokio::time::Instant::now();
        let mut tasks = Vec::with_capacity(n);
        for i in 0..n {
            let at = start + Duration::from_secs_f64(i as f64 / per_second.max(1) as f64);
            let (addr, raw, open) = (addr.clone(), raw.clone(), open.clone());
            tasks.push(tokio::spawn(async move {
                tokio::time::sleep_until(at).await;
                tokio::time::timeout(limit, one(&addr, &raw, &open))
                    .await
                    .unwrap_or((None, false))
            }));
        }
        let mut out = Vec::with_capacity(n);
        for t in tasks {
            out.push(t.await.unwrap_or((None, false)));
        }
        drop(open);
        (out, peak.await.unwrap_or(0))
    });
    let (results, peak_open) = results;
    let mut ttfb: Vec<f64> = results
        .iter()
        .filter_map(|(t, _)| t.map(|d| d.as_secs_f64() * 1e3))
        .collect();
    ttfb.sort_by(f64::total_cmp);
    Ok(Streams {
        started: n,
        completed: results.iter().filter(|(_, done)| *done).count(),
        peak_open,
        ttfb_p50_ms: percentile(&ttfb, 50.0),
        ttfb_p99_ms: percentile(&ttfb, 99.0),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn builds_the_raw_request() {
        let req = Req {
            url: "http://127.0.0.1:9/s/x/v1/chat/completions".into(),
            headers: vec![("Authorization".into(), "Bearer k".into())],
            body: "{}".into(),
        };
        let (addr, raw) = raw_request(&req).unwrap();
        assert_eq!(addr, "127.0.0.1:9");
        let text = String::from_utf8(raw).unwrap();
        assert!(text.starts_with("POST /s/x/v1/chat/completions HTTP/1.1\r\n"));
        assert!(text.ends_with("Content-Length: 2\r\nConnection: close\r\n\r\n{}"));
        assert!(contains(b"xx data: y", b"data:"));
    }
}
