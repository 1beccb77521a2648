//! Bounded memory (issue 14, point 4), over real sockets: the peak resident memory of four
//! concurrent 28 MiB chat bodies, compressed bodies decoded under the same cap, compression
//! bombs refused at the cap, JSON limits.
//!
//! The bound: the issue asks that "peak memory of 4 concurrent 28 MiB JSON bodies stays under
//! 4 × their size". Each body must be held whole (routing needs `model`, billing the prompt
//! estimate, failover a copy to resend), so all four bodies alone already take 1 × their
//! summed size; "4 × their size" is read as the process's peak growth while the four are in
//! flight staying under 4 × the sum of the four sizes (the same as under 4 × each body's size
//! per request). The figures are printed (`--nocapture`) and the README quotes them.
//!
//! What is measured is this process's resident set (`VmHWM`, reset through
//! `/proc/self/clear_refs`), so the upstream here is a sink that reads each body through a
//! 64 KiB buffer and throws it away (the mock provider would keep whole bodies in this
//! process), and the client's bodies are built before the baseline is taken. Tests in this
//! file run one at a time (`SERIAL`) so that one's memory is not counted in another's.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::Write;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use common::*;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const MIB: usize = 1 << 20;
const BODY_BYTES: usize = 28 * MIB;
const UPSTREAM_MODEL: &str = "gpt-test-upstream";

/// What the sink saw of one request body.
#[derive(Debug, Clone, Default)]
struct Seen {
    len: usize,
    head: Vec<u8>,
    tail: Vec<u8>,
}

/// An OpenAI-compatible upstream that keeps no body: reads it through a small buffer
/// (remembering its length, first and last bytes) and answers a fixed completion.
struct Sink {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Sink {
    async fn start() -> Sink {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let keep = seen.clone();
        tokio::spawn(async move {
            while let Ok((s, _)) = listener.accept().await {
                tokio::spawn(sink_connection(s, keep.clone()));
            }
        });
        Sink { addr, seen }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

const ANSWER: &str = r#"{"id":"chatcmpl-sink","object":"chat.completion","created":1,"model":"gpt-test","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}}"#;

async fn sink_connection(mut s: TcpStream, seen: Arc<Mutex<Vec<Seen>>>) {
    let mut buf = vec![0u8; 64 << 10];
    let mut have = 0;
    loop {
        let head_end = loop {
            if let Some(p) = buf[..have].windows(4).position(|w| w == b"\r\n\r\n") {
                break p + 4;
            }
            if have == buf.len() {
                return;
            }
            match s.read(&mut buf[have..]).await {
                Ok(0) | Err(_) => return,
                Ok(n) => have += n,
            }
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
        let len: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        let mut body = Seen {
            len,
            ..Seen::default()
        };
        let note = |chunk: &[u8], body: &mut Seen| {
            if body.head.len() < 256 {
                let take = (256 - body.head.len()).min(chunk.len());
                body.head.extend_from_slice(&chunk[..take]);
            }
            body.tail.extend_from_slice(chunk);
            if body.tail.len() > 256 {
                body.tail.drain(..body.tail.len() - 256);
            }
        };
        let first = (have - head_end).min(len);
        note(&buf[head_end..head_end + first], &mut body);
        buf.copy_within(head_end + first..have, 0);
        have -= head_end + first;
        let mut got = first;
        while got < len {
            let want = (len - got).min(buf.len());
            match s.read(&mut buf[..want]).await {
                Ok(0) | Err(_) => return,
                Ok(n) => {
                    note(&buf[..n], &mut body);
                    got += n;
                }
            }
        }
        seen.lock().unwrap().push(body);
        let answer = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{ANSWER}",
            ANSWER.len()
        );
        if s.write_all(answer.as_bytes()).await.is_err() {
            return;
        }
    }
}

/// A field of `/proc/self/status`, in bytes.
fn status_bytes(field: &str) -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with(field))
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"));
    let kib: usize = line
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap();
    kib * 1024
}

/// Returns freed memory to the system and resets the peak (`VmHWM`) to the current resident
/// set; the resident set is the baseline.
fn baseline() -> usize {
    // SAFETY: malloc_trim only releases free memory of the allocator's arenas.
    unsafe {
        libc::malloc_trim(0);
    }
    std::fs::write("/proc/self/clear_refs", "5").expect("reset VmHWM");
    status_bytes("VmRSS:")
}

/// Peak growth above `base` since [`baseline`].
fn peak_growth(base: usize) -> usize {
    status_bytes("VmHWM:").saturating_sub(base)
}

const LINE: &str = "The gateway reads the whole body, finds the model, estimates the prompt and passes the rest on untouched.\n";

/// Prose for message contents: words, punctuation and newlines (escaped in JSON).
fn prose(len: usize) -> String {
    LINE.repeat(len / LINE.len() + 1)[..len].to_owned()
}

/// A chat body of about `BODY_BYTES` with one user message.
fn one_huge_message() -> Bytes {
    // Each line's newline takes two bytes in JSON.
    let chars = (BODY_BYTES - 200) / (LINE.len() + 1) * LINE.len();
    let body = json!({"model": "gpt-test", "max_tokens": 16,
        "messages": [{"role": "user", "content": prose(chars)}]});
    Bytes::from(body.to_string())
}

/// A chat body of about `BODY_BYTES` made of ~600-byte messages.
fn many_small_messages() -> Bytes {
    let text = prose(520);
    let n = BODY_BYTES / (text.len() + 60);
    let messages: Vec<Value> = (0..n)
        .map(|i| {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            json!({"role": role, "content": text, "name": format!("p{}", i % 7)})
        })
        .collect();
    let body = json!({"model": "gpt-test", "max_tokens": 16, "messages": messages});
    Bytes::from(body.to_string())
}

fn mapped_snapshot(upstream: &str) -> Value {
    let mut ch = channel(1, upstream, &["gpt-test"], 0, 1);
    ch["model_mapping"] = json!({"gpt-test": UPSTREAM_MODEL});
    snapshot(vec![ch])
}

async fn post_raw(gw: &Gw, headers: &[(&str, &str)], body: Bytes) -> Reply {
    let mut all = vec![
        ("authorization", "Bearer sk-alice"),
        ("content-type", "application/json"),
    ];
    all.extend_from_slice(headers);
    send("POST", &gw.url("/v1/chat/completions"), &all, body).await
}

/// Sends `body` four times at once through a gateway to the sink; returns the peak growth.
async fn four_at_once(name: &str, body: Bytes) -> usize {
    let sink = Sink::start().await;
    let gw = Gw::start(mapped_snapshot(&sink.url())).await;
    // Warm: connection pools, tokenizer tables, the usage path.
    let r = gw.chat("alice", chat_body("gpt-test", false)).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let base = baseline();
    let started = Instant::now();
    let replies =
        futures_util::future::join_all((0..4).map(|_| post_raw(&gw, &[], body.clone()))).await;
    let elapsed = started.elapsed();
    let growth = peak_growth(base);
    for r in &replies {
        assert_eq!(r.status, 200, "{}", r.text());
    }
    let seen = sink.seen();
    assert_eq!(
        seen.len(),
        5,
        "the warm-up and four bodies reached the upstream"
    );
    let want = format!(r#""model":"{UPSTREAM_MODEL}""#);
    for s in &seen[1..] {
        // The model was rewritten in place: the rest of the body is the client's.
        assert_eq!(s.len, body.len() + UPSTREAM_MODEL.len() - "gpt-test".len());
        let ends = [s.head.as_slice(), s.tail.as_slice()].concat();
        assert!(
            String::from_utf8_lossy(&ends).contains(&want),
            "model rewritten: {}",
            String::from_utf8_lossy(&ends)
        );
    }
    let total = 4 * body.len();
    eprintln!(
        "memory: {name}: 4 × {:.1} MiB in {:.1} s, peak growth {:.1} MiB = {:.2} × the bodies' total ({:.1} MiB)",
        body.len() as f64 / MIB as f64,
        elapsed.as_secs_f64(),
        growth as f64 / MIB as f64,
        growth as f64 / total as f64,
        total as f64 / MIB as f64,
    );
    growth
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn four_concurrent_28_mib_bodies_stay_under_four_times_their_size() {
    let _serial = SERIAL.lock().await;
    for (name, body) in [
        ("one huge message", one_huge_message()),
        ("many small messages", many_small_messages()),
    ] {
        assert!(body.len() > 27 * MIB && body.len() <= BODY_BYTES, "{name}");
        let total = 4 * body.len();
        let growth = four_at_once(name, body).await;
        assert!(
            growth < 4 * total,
            "{name}: peak growth {growth} bytes is not under 4 × {total}"
        );
        // The design's own bound: each body is held once (parsed without a value tree or a
        // copy of its text, sent as slices of itself around the new model): about 1 ×,
        // with room for the allocator and a busy machine (measured 0.9–1.05 ×).
        assert!(
            growth < 2 * total,
            "{name}: peak growth {growth} bytes is not under 2 × {total}"
        );
    }
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn deflate(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn brotli(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut e = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
        e.write_all(data).unwrap();
    }
    out
}

fn zstd(data: &[u8]) -> Vec<u8> {
    zstd::encode_all(data, 3).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn compressed_bodies_are_decoded_and_relayed() {
    let _serial = SERIAL.lock().await;
    let m = mock_provider::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let gw = Gw::start(snapshot(vec![channel(1, &m.url(), &["gpt-test"], 0, 1)])).await;
    // Large enough to arrive in many chunks.
    let body =
        json!({"model": "gpt-test", "messages": [{"role": "user", "content": prose(3 * MIB)}]});
    let plain = body.to_string().into_bytes();
    for (encoding, packed) in [
        ("gzip", gzip(&plain)),
        ("x-gzip", gzip(&plain)),
        ("deflate", deflate(&plain)),
        ("br", brotli(&plain)),
        ("zstd", zstd(&plain)),
        ("GZip", gzip(&plain)),
        ("identity", plain.clone()),
    ] {
        let r = post_raw(&gw, &[("content-encoding", encoding)], Bytes::from(packed)).await;
        assert_eq!(r.status, 200, "{encoding}: {}", r.text());
        let last = m.with_stats(|s| s.requests.last().unwrap().body_len);
        assert_eq!(
            last,
            plain.len(),
            "{encoding}: the upstream got the decoded body"
        );
    }
    // The answer is in the client's dialect: Anthropic's error shape on /v1/messages.
    let r = send(
        "POST",
        &gw.url("/v1/messages"),
        &[
            ("x-api-key", "sk-alice"),
            ("content-type", "application/json"),
            ("content-encoding", "compress"),
        ],
        Bytes::from_static(b"{}"),
    )
    .await;
    assert_eq!(r.status, 415, "{}", r.text());
    assert_eq!(r.json()["type"], "error", "{}", r.text());
    // Unknown or stacked encodings: 415, before the body is read.
    for encoding in ["compress", "gzip, br", "snappy"] {
        let r = post_raw(
            &gw,
            &[("content-encoding", encoding)],
            Bytes::from_static(b"{}"),
        )
        .await;
        r.assert_error(415, "unsupported_content_encoding");
    }
    // A corrupt or truncated stream: 400.
    let packed = gzip(&plain);
    for (encoding, bad) in [
        ("gzip", packed[..packed.len() / 2].to_vec()),
        ("gzip", b"not gzip at all".to_vec()),
        ("br", b"\xff\xff\xff\xff not brotli".to_vec()),
        ("zstd", b"not zstd".to_vec()),
        ("deflate", b"not zlib".to_vec()),
    ] {
        let r = post_raw(&gw, &[("content-encoding", encoding)], Bytes::from(bad)).await;
        r.assert_error(400, "bad_request_body");
    }
    assert_eq!(
        m.with_stats(|s| s.requests.len()),
        7,
        "nothing bad was relayed"
    );
}

/// Sends a request head and `body` over a raw socket (ignoring write errors: the gateway may
/// answer and close before all is sent) and returns whatever answer arrives.
async fn raw_exchange(addr: SocketAddr, head: String, body: Vec<u8>) -> String {
    let s = TcpStream::connect(addr).await.unwrap();
    let (mut rd, mut wr) = s.into_split();
    let writer = tokio::spawn(async move {
        if wr.write_all(head.as_bytes()).await.is_err() {
            return;
        }
        for chunk in body.chunks(64 << 10) {
            if wr.write_all(chunk).await.is_err() {
                return;
            }
        }
    });
    let mut got = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match tokio::time::timeout(Duration::from_secs(20), rd.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => break,
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
            Err(_) => panic!("no answer in time: {}", String::from_utf8_lossy(&got)),
        }
        if let Some(p) = got.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&got[..p]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            if got.len() >= p + 4 + len {
                break;
            }
        }
    }
    writer.abort();
    String::from_utf8_lossy(&got).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_compression_bomb_is_refused_at_the_cap() {
    let _serial = SERIAL.lock().await;
    let sink = Sink::start().await;
    let gw = Gw::start(snapshot(vec![channel(1, &sink.url(), &["gpt-test"], 0, 1)])).await;
    let r = gw.chat("alice", chat_body("gpt-test", false)).await;
    assert_eq!(r.status, 200, "{}", r.text());
    // 10 MB of gzip (one member, no end) that would expand to about 10 GB of a valid-looking
    // JSON string: a deflate segment of zeros, flushed to a byte boundary, repeated.
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(br#"{"model":"gpt-test","messages":[{"role":"user","content":""#)
        .unwrap();
    let zeros = vec![b'0'; MIB];
    e.write_all(&zeros).unwrap();
    e.flush().unwrap();
    let first = std::mem::take(e.get_mut());
    e.write_all(&zeros).unwrap();
    e.flush().unwrap();
    let segment = std::mem::take(e.get_mut());
    let mut bomb = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    bomb.extend_from_slice(&first);
    while bomb.len() < 10_000_000 {
        bomb.extend_from_slice(&segment);
    }
    let cap = 32 * MIB;
    let base = baseline();
    let started = Instant::now();
    let head = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer sk-alice\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: {}\r\n\r\n",
        bomb.len()
    );
    let answer = raw_exchange(gw.addr, head, bomb).await;
    let elapsed = started.elapsed();
    let growth = peak_growth(base);
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    let body: Value = serde_json::from_str(answer.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(body["error"]["code"], "read_request_body_failed");
    eprintln!(
        "memory: gzip bomb: refused in {:.2} s, peak growth {:.1} MiB (cap {} MiB)",
        elapsed.as_secs_f64(),
        growth as f64 / MIB as f64,
        cap / MIB
    );
    assert!(
        growth < 3 * cap,
        "peak growth {growth} bytes for a refused bomb"
    );
    assert!(elapsed < Duration::from_secs(15), "took {elapsed:?}");
    assert_eq!(sink.seen().len(), 1, "nothing of the bomb was relayed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn json_limits_are_answered_with_400_in_the_dialect() {
    let _serial = SERIAL.lock().await;
    let sink = Sink::start().await;
    let gw = Gw::start(snapshot(vec![channel(1, &sink.url(), &["gpt-test"], 0, 1)])).await;
    // Too deep.
    let deep = format!(
        r#"{{"model":"gpt-test","messages":[{{"role":"user","content":"hi"}}],"x":{}{}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    let r = post_raw(&gw, &[], Bytes::from(deep.clone())).await;
    let err = r.assert_error(400, "invalid_request");
    assert!(err["message"].as_str().unwrap().contains("nested"), "{err}");
    // Too many elements: two million numbers in a 4 MB body.
    let many = format!(
        r#"{{"model":"gpt-test","messages":[{{"role":"user","content":"hi"}}],"x":[{}0]}}"#,
        "0,".repeat(2_000_000)
    );
    let r = post_raw(&gw, &[], Bytes::from(many)).await;
    let err = r.assert_error(400, "invalid_request");
    assert!(
        err["message"].as_str().unwrap().contains("elements"),
        "{err}"
    );
    // Too many objects.
    let objects = format!(
        r#"{{"model":"gpt-test","messages":[{{"role":"user","content":"hi"}}],"x":[{}{{}}]}}"#,
        "{\"a\":0},".repeat(150_000)
    );
    let r = post_raw(&gw, &[], Bytes::from(objects)).await;
    let err = r.assert_error(400, "invalid_request");
    assert!(
        err["message"].as_str().unwrap().contains("objects"),
        "{err}"
    );
    // The same limit in Anthropic's shape on /v1/messages.
    let r = send(
        "POST",
        &gw.url("/v1/messages"),
        &[
            ("x-api-key", "sk-alice"),
            ("content-type", "application/json"),
        ],
        Bytes::from(deep),
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.text());
    let v = r.json();
    assert_eq!(v["type"], "error", "{v}");
    assert!(
        v["error"]["message"].as_str().unwrap().contains("nested"),
        "{v}"
    );
    assert_eq!(sink.seen().len(), 0, "nothing was relayed");
}

/// Size of the blocks the mimalloc test allocates.
const BLOCK: usize = 16 << 10;

/// Allocates `blocks` of [`BLOCK`] bytes from mimalloc (the gateway's allocator), writes every
/// byte and frees them; where they were.
fn touch_and_free_in_mimalloc(blocks: usize) -> Vec<usize> {
    let held: Vec<*mut u8> = (0..blocks)
        .map(|_| {
            // SAFETY: a plain allocation, checked for null before it is written.
            let p = unsafe { libmimalloc_sys::mi_malloc(BLOCK) }.cast::<u8>();
            assert!(!p.is_null(), "mimalloc out of memory");
            // SAFETY: `p` points to BLOCK writable bytes just allocated.
            unsafe { std::ptr::write_bytes(p, 1, BLOCK) };
            p
        })
        .collect();
    let at = held.iter().map(|p| *p as usize).collect();
    for p in held {
        // SAFETY: each pointer came from mi_malloc above and is freed once.
        unsafe { libmimalloc_sys::mi_free(p.cast()) };
    }
    at
}

/// The share of the pages under `blocks` that are resident (`mincore`: what this process's
/// other threads allocate meanwhile does not count). The blocks were freed, not unmapped:
/// mimalloc keeps its arenas' address space and gives back only the pages.
fn resident_share(blocks: &[usize]) -> f64 {
    // SAFETY: sysconf has no preconditions.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap();
    let (mut resident, mut total) = (0usize, 0usize);
    for &start in blocks {
        let first = start / page * page;
        let len = (start + BLOCK).div_ceil(page) * page - first;
        let mut flags = vec![0u8; len / page];
        // SAFETY: the range lies in mimalloc's arena, which stays mapped; `flags` has one byte
        // per page of it.
        let rc = unsafe { libc::mincore(first as *mut libc::c_void, len, flags.as_mut_ptr()) };
        assert_eq!(rc, 0, "mincore: {}", std::io::Error::last_os_error());
        resident += flags.iter().filter(|f| *f & 1 == 1).count();
        total += flags.len();
    }
    resident as f64 / total as f64
}

/// mimalloc's ordinary collection on this thread: empty pages go back to its arenas, and
/// whatever has been free for longer than the hold goes back to the system.
fn collect_expired() {
    // Empty pages are first retired on the thread for a few collections, then handed to the
    // arena, whose purge clock starts then.
    for _ in 0..20 {
        // SAFETY: mi_collect only frees memory the allocator holds and no longer hands out.
        unsafe { libmimalloc_sys::mi_collect(false) };
    }
}

/// `--free-memory-hold-seconds`: memory freed after a burst stays resident while the hold
/// lasts and is handed back by `release_free_memory`; with a hold of zero the same memory goes
/// back at once (so the option set is mimalloc's purge delay). That the hold outlasts the gap
/// between bursts is measured by `benches/run` (streams at scale), not timed here.
#[tokio::test]
async fn freed_memory_is_held_for_the_next_burst_then_released() {
    let _serial = SERIAL.lock().await;
    const BLOCKS: usize = 4096; // 64 MiB

    gateway::memory::hold_free_memory(Duration::from_secs(300));
    assert_eq!(
        gateway::memory::free_memory_hold(),
        Duration::from_secs(300)
    );
    let blocks = touch_and_free_in_mimalloc(BLOCKS);
    collect_expired();
    let held = resident_share(&blocks);
    assert!(
        held >= 0.9,
        "freed memory held: {held:.3} of its pages resident"
    );
    gateway::memory::release_free_memory();
    let released = resident_share(&blocks);
    assert!(
        released <= 0.1,
        "released on demand: {released:.3} of its pages still resident"
    );

    // A hold past the bound is cut to it.
    gateway::memory::hold_free_memory(Duration::MAX);
    assert_eq!(
        gateway::memory::free_memory_hold(),
        gateway::memory::MAX_HOLD
    );
    gateway::memory::hold_free_memory(Duration::ZERO);
    let blocks = touch_and_free_in_mimalloc(BLOCKS);
    collect_expired();
    let after = resident_share(&blocks);
    assert!(
        after <= 0.1,
        "no hold: {after:.3} of the freed pages still resident"
    );
}
