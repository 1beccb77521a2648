//! Plain-HTTP/1.1 upstream calls (no TLS, no channel proxy) made by the request's own task on
//! pooled connections: the request written in one piece, the answer's head and body read by
//! [`super::answer`], with no connection task, channel or wake-up between the relay and the
//! socket. Host names are resolved at most once a minute.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use http::{HeaderValue, Method, Request, Response};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use super::Chunks;
use super::answer::{self, AnswerError, BodyReader};
use super::idle::IdlePool;
use crate::error::UpstreamError;

/// How long an idle pooled connection is kept (as the hyper client's pool does).
const IDLE: Duration = Duration::from_secs(90);
/// Most idle connections kept, over all upstreams.
const IDLE_CONNECTIONS: usize = 1024;
/// How often idle connections are looked over for ones past their time or closed.
const SWEEP_EVERY: Duration = Duration::from_secs(10);
/// Bodies up to this size leave in the same write as the request's head.
const ONE_WRITE_BODY: u64 = 64 * 1024;
/// How long a resolved name is used before it is resolved again.
const NAME_TTL: Duration = Duration::from_secs(60);
/// Most names kept resolved; past this the cache starts over.
const MAX_NAMES: usize = 1024;
/// Most times a request goes out again after a pooled connection turned out closed.
const ATTEMPTS: usize = 3;

/// The pooled connections of plain-HTTP upstreams and the names they were reached by.
pub struct Direct {
    pool: Arc<IdlePool>,
    connect_timeout: Duration,
    names: Mutex<HashMap<(String, u16), (SocketAddr, Instant)>>,
}

/// Where a plain-HTTP request goes: the server's name or address and port.
pub struct Target {
    host: String,
    port: u16,
}

impl Target {
    /// The target of `request` when it can go this way: plain HTTP, and not a HEAD (whose
    /// answer's length a reader of the answer alone would misjudge).
    pub fn of<B>(request: &Request<B>) -> Option<Target> {
        let uri = request.uri();
        if uri.scheme_str() != Some("http") || request.method() == Method::HEAD {
            return None;
        }
        let host = uri.host()?;
        let host = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host);
        Some(Target {
            host: host.to_owned(),
            port: uri.port_u16().unwrap_or(80),
        })
    }
}

impl Direct {
    pub fn new(connect_timeout: Duration) -> Direct {
        Direct {
            pool: IdlePool::start(IDLE, IDLE_CONNECTIONS, SWEEP_EVERY),
            connect_timeout,
            names: Mutex::new(HashMap::new()),
        }
    }

    /// Sends `request` to `target`; the answer's head is back when this returns.
    pub async fn send(
        &self,
        target: &Target,
        request: Request<Chunks>,
    ) -> Result<Response<DirectBody>, UpstreamError> {
        let address = self.address(target).await?;
        let (parts, body) = request.into_parts();
        let wire = request_wire(parts, target, &body)?;
        // A pooled connection the server closed meanwhile fails before any answer: the request
        // is sent again on another one (at most twice), and on a new one as the last resort.
        let mut attempts = 0;
        let (stream, buf, head) = loop {
            attempts += 1;
            let pooled = if attempts < ATTEMPTS {
                self.pool.take(address)
            } else {
                None
            };
            let (mut stream, reused, sent) = match pooled {
                Some(stream) => (stream, true, 0),
                None => {
                    let (stream, sent) = self.connect_sending(address, &wire).await?;
                    (stream, false, sent)
                }
            };
            let mut buf = BytesMut::new();
            match exchange(&mut stream, &mut buf, &wire[sent..], &body).await {
                Ok(head) => break (stream, buf, head),
                Err(Exchange::Unsent(_) | Exchange::Answer(AnswerError::ClosedBeforeAnswer))
                    if reused =>
                {
                    continue;
                }
                Err(Exchange::Unsent(e)) => {
                    return Err(UpstreamError::Broken(format!("writing the request: {e}")));
                }
                Err(Exchange::Answer(e)) => return Err(UpstreamError::Broken(e.to_string())),
            }
        };
        let reader = BodyReader::new(head.body);
        let open = if reader.done() {
            // No body to read: the connection is free at once.
            give_back(&self.pool, address, stream, head.reusable, &buf);
            None
        } else {
            Some(Box::new(Open {
                stream,
                buf,
                reader,
                reusable: head.reusable,
                address,
                pool: self.pool.clone(),
            }))
        };
        let mut response = Response::new(DirectBody { open });
        *response.status_mut() = head.status;
        *response.headers_mut() = head.headers;
        Ok(response)
    }

    /// A new connection to `address`, and how many bytes of `first` already left on it
    /// ([`super::connect`]).
    async fn connect_sending(
        &self,
        address: SocketAddr,
        first: &[u8],
    ) -> Result<(TcpStream, usize), UpstreamError> {
        super::connect::open(address, first, self.connect_timeout)
            .await
            .map_err(|e| {
                UpstreamError::Connect(match e {
                    Some(e) => format!("connecting to {address}: {e}"),
                    None => format!("connecting to {address} timed out"),
                })
            })
    }

    /// The address of `target`: as written, or its name resolved (at most once a minute).
    async fn address(&self, target: &Target) -> Result<SocketAddr, UpstreamError> {
        if let Ok(ip) = target.host.parse::<IpAddr>() {
            return Ok(SocketAddr::new(ip, target.port));
        }
        let key = (target.host.clone(), target.port);
        let now = Instant::now();
        if let Some((addr, at)) = self.names_locked().get(&key)
            && now.duration_since(*at) < NAME_TTL
        {
            return Ok(*addr);
        }
        let addr = tokio::time::timeout(
            self.connect_timeout,
            tokio::net::lookup_host((target.host.as_str(), target.port)),
        )
        .await
        .map_err(|_| UpstreamError::Connect(format!("resolving {} timed out", target.host)))?
        .map_err(|e| UpstreamError::Connect(format!("resolving {}: {e}", target.host)))?
        .next()
        .ok_or_else(|| UpstreamError::Connect(format!("{} has no address", target.host)))?;
        let mut names = self.names_locked();
        if names.len() >= MAX_NAMES {
            names.clear();
        }
        names.insert(key, (addr, now));
        Ok(addr)
    }

    fn names_locked(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<(String, u16), (SocketAddr, Instant)>> {
        match self.names.lock() {
            Ok(names) => names,
            Err(poisoned) => poisoned.into_inner(),
        }
    }
}

/// The request as written on the wire: the request line with the origin-form path, the
/// headers with the `Host` of the URL and the body's exact length, and the body too when it is
/// small (so that head and body leave in one write, and the server wakes once). Written
/// straight from the request's parts; names in the canonical form `Content-Type`.
fn request_wire(
    parts: http::request::Parts,
    target: &Target,
    body: &Chunks,
) -> Result<BytesMut, UpstreamError> {
    let bad = |what: &str| UpstreamError::Build(format!("upstream request: invalid {what}"));
    let has_body = parts.method != Method::GET || !body.is_empty();
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    if path
        .bytes()
        .any(|b| matches!(b, 0x00 | b'\n' | b'\r' | b' '))
    {
        return Err(bad("path"));
    }
    let headers: usize = parts
        .headers
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum();
    let small = body.len() <= ONE_WRITE_BODY;
    let body_bytes = if small {
        usize::try_from(body.len()).unwrap_or(0)
    } else {
        0
    };
    let mut wire =
        BytesMut::with_capacity(64 + path.len() + target.host.len() + headers + body_bytes);
    wire.extend_from_slice(parts.method.as_str().as_bytes());
    wire.extend_from_slice(b" ");
    wire.extend_from_slice(path.as_bytes());
    wire.extend_from_slice(b" HTTP/1.1\r\nHost: ");
    let host_at = wire.len();
    let bracketed = target.host.contains(':');
    if bracketed {
        wire.extend_from_slice(b"[");
    }
    wire.extend_from_slice(target.host.as_bytes());
    if bracketed {
        wire.extend_from_slice(b"]");
    }
    if let Some(port) = parts.uri.port_u16() {
        wire.extend_from_slice(b":");
        wire.extend_from_slice(itoa::Buffer::new().format(port).as_bytes());
    }
    if HeaderValue::from_bytes(&wire[host_at..]).is_err() {
        return Err(bad("host"));
    }
    wire.extend_from_slice(b"\r\n");
    for (name, value) in &parts.headers {
        if name == http::header::HOST || name == http::header::CONTENT_LENGTH {
            continue;
        }
        canonical_name(name.as_str(), &mut wire);
        wire.extend_from_slice(b": ");
        wire.extend_from_slice(value.as_bytes());
        wire.extend_from_slice(b"\r\n");
    }
    if has_body {
        wire.extend_from_slice(b"Content-Length: ");
        wire.extend_from_slice(itoa::Buffer::new().format(body.len()).as_bytes());
        wire.extend_from_slice(b"\r\n");
    }
    wire.extend_from_slice(b"\r\n");
    if small {
        for piece in body.pieces() {
            wire.extend_from_slice(piece);
        }
    }
    Ok(wire)
}

/// `name` (lower case, as `http` keeps names) with the first letter and each letter after a
/// `-` in upper case, as most HTTP/1.1 clients write names (`x-api-key` → `X-Api-Key`).
fn canonical_name(name: &str, wire: &mut BytesMut) {
    let at = wire.len();
    wire.extend_from_slice(name.as_bytes());
    let mut upper = true;
    for b in &mut wire[at..] {
        if upper {
            b.make_ascii_uppercase();
        }
        upper = *b == b'-';
    }
}

/// Pools `stream` after an answer read to its end, when the answer allows it and nothing
/// beyond it arrived; otherwise the connection is closed.
fn give_back(
    pool: &IdlePool,
    address: SocketAddr,
    stream: TcpStream,
    reusable: bool,
    leftover: &BytesMut,
) {
    if reusable && leftover.is_empty() {
        pool.put(address, stream);
    }
}

/// How an exchange failed: before the whole request was written, or while reading the answer.
enum Exchange {
    Unsent(std::io::Error),
    Answer(AnswerError),
}

/// Writes the request on `stream` and reads the answer's head (past any informational
/// answers) into `buf`. `wire` holds the body as well unless the body is large.
async fn exchange(
    stream: &mut TcpStream,
    buf: &mut BytesMut,
    wire: &[u8],
    body: &Chunks,
) -> Result<answer::Head, Exchange> {
    let sent = async {
        stream.write_all(wire).await?;
        if body.len() > ONE_WRITE_BODY {
            for piece in body.pieces() {
                stream.write_all(piece).await?;
            }
        }
        stream.flush().await
    };
    sent.await.map_err(Exchange::Unsent)?;
    answer::read_head(stream, buf)
        .await
        .map_err(Exchange::Answer)
}

/// The body of a plain-HTTP answer, read from the connection as the caller asks for it; the
/// connection goes back to the pool once the body has been read to its end (when the answer
/// allows it), and is closed if the body is dropped before.
pub struct DirectBody {
    open: Option<Box<Open>>,
}

/// A body still being read.
struct Open {
    stream: TcpStream,
    buf: BytesMut,
    reader: BodyReader,
    reusable: bool,
    address: SocketAddr,
    pool: Arc<IdlePool>,
}

impl DirectBody {
    /// The next piece of the body; `None` at its end.
    pub async fn chunk(&mut self) -> Option<Result<Bytes, UpstreamError>> {
        let open = self.open.as_mut()?;
        match open.reader.next(&mut open.stream, &mut open.buf).await {
            Ok(Some(piece)) => Some(Ok(piece)),
            Ok(None) => {
                if let Some(open) = self.open.take() {
                    give_back(
                        &open.pool,
                        open.address,
                        open.stream,
                        open.reusable,
                        &open.buf,
                    );
                }
                None
            }
            Err(e) => {
                // Dropping the connection closes it.
                self.open = None;
                Some(Err(UpstreamError::Broken(e.to_string())))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::sync::atomic::{AtomicUsize, Ordering};

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    use super::*;

    /// A server that answers every request on a connection with `answer`, keeping what each
    /// read received; counts the connections it accepted.
    async fn server(answer: &'static [u8]) -> (u16, Arc<AtomicUsize>, Arc<Mutex<Vec<Vec<u8>>>>) {
        server_closing(answer, false).await
    }

    /// [`server`], closing each connection after its first answer when `close` (without
    /// saying so in the answer, as a server whose keep-alive time ran out does).
    async fn server_closing(
        answer: &'static [u8],
        close: bool,
    ) -> (u16, Arc<AtomicUsize>, Arc<Mutex<Vec<Vec<u8>>>>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (accepted, seen) = (
            Arc::new(AtomicUsize::new(0)),
            Arc::new(Mutex::new(Vec::new())),
        );
        let (count, log) = (accepted.clone(), seen.clone());
        tokio::spawn(async move {
            while let Ok((mut conn, _)) = listener.accept().await {
                count.fetch_add(1, Ordering::SeqCst);
                let log = log.clone();
                tokio::spawn(async move {
                    let (mut buf, mut request) = (vec![0; 4096], Vec::new());
                    while let Ok(n) = conn.read(&mut buf).await {
                        if n == 0 {
                            break;
                        }
                        log.lock().unwrap().push(buf[..n].to_vec());
                        request.extend_from_slice(&buf[..n]);
                        // Every test request's body ends with "hello".
                        if request.ends_with(b"hello") {
                            request.clear();
                            conn.write_all(answer).await.unwrap();
                            if close {
                                break;
                            }
                        }
                    }
                });
            }
        });
        (port, accepted, seen)
    }

    fn request(port: u16) -> Request<Chunks> {
        Request::builder()
            .method(Method::POST)
            .uri(format!("http://localhost:{port}/v1/chat?x=1"))
            .header("authorization", "Bearer k")
            .body(Chunks::new([
                Bytes::from_static(b"hel"),
                Bytes::from_static(b"lo"),
            ]))
            .unwrap()
    }

    async fn whole(body: &mut DirectBody) -> Vec<u8> {
        let mut all = Vec::new();
        while let Some(piece) = body.chunk().await {
            all.extend_from_slice(&piece.unwrap());
        }
        all
    }

    #[tokio::test]
    async fn requests_are_written_whole_and_connections_are_reused() {
        let (port, accepted, seen) = server(
            b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}",
        )
        .await;
        let direct = Direct::new(Duration::from_secs(5));
        let target = Target::of(&request(port)).unwrap();
        for _ in 0..3 {
            let mut answer = direct.send(&target, request(port)).await.unwrap();
            assert_eq!(answer.status(), 200);
            assert_eq!(answer.headers()["content-type"], "application/json");
            assert_eq!(whole(answer.body_mut()).await, b"{}");
        }
        assert_eq!(accepted.load(Ordering::SeqCst), 1, "one pooled connection");
        // Each request arrived in one read: its head and its small body left in one write.
        let reads = seen.lock().unwrap().clone();
        assert_eq!(reads.len(), 3, "{reads:?}");
        let port_line = format!("host: localhost:{port}\r\n");
        for read in reads {
            let text = String::from_utf8(read).unwrap().to_ascii_lowercase();
            assert!(text.starts_with("post /v1/chat?x=1 http/1.1\r\n"), "{text}");
            assert!(text.ends_with("\r\n\r\nhello"), "{text}");
            for line in [
                port_line.as_str(),
                "content-length: 5\r\n",
                "authorization: bearer k\r\n",
            ] {
                assert!(text.contains(line), "{line:?} in {text}");
            }
        }
    }

    #[tokio::test]
    async fn a_whole_answer_in_one_piece_or_several_is_read_within_the_cap() {
        let (one_piece, _, _) = server(b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nabcde").await;
        let (three_pieces, _, _) = server(
            b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n\
              2\r\nab\r\n3\r\ncde\r\n1\r\nf\r\n0\r\n\r\n",
        )
        .await;
        let direct = Direct::new(Duration::from_secs(5));
        let idle = Duration::from_secs(5);
        for (port, whole) in [(one_piece, "abcde"), (three_pieces, "abcdef")] {
            let target = Target::of(&request(port)).unwrap();
            for (cap, fits) in [(64, true), (6, true), (5, port == one_piece), (4, false)] {
                let answer = direct.send(&target, request(port)).await.unwrap();
                let mut body = crate::upstream::UpstreamBody::Direct(Box::new(answer.into_body()));
                let read = crate::relay::read_upstream(&mut body, cap, idle).await;
                match read {
                    Ok(bytes) => assert!(fits && bytes == whole.as_bytes(), "{cap}: {bytes:?}"),
                    Err(e) => assert!(
                        !fits && matches!(e, UpstreamError::BadBody(_)),
                        "{cap}: {e}"
                    ),
                }
            }
        }
    }

    #[tokio::test]
    async fn chunked_answers_are_read_whole_and_their_connections_reused() {
        let (port, accepted, _) = server(
            b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\ndat\r\n2\r\na!\r\n0\r\n\r\n",
        )
        .await;
        let direct = Direct::new(Duration::from_secs(5));
        let target = Target::of(&request(port)).unwrap();
        for _ in 0..3 {
            let mut answer = direct.send(&target, request(port)).await.unwrap();
            assert_eq!(whole(answer.body_mut()).await, b"data!");
        }
        assert_eq!(accepted.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_pooled_connection_the_server_closed_is_replaced() {
        let (port, accepted, _) =
            server_closing(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}", true).await;
        let direct = Direct::new(Duration::from_secs(5));
        let target = Target::of(&request(port)).unwrap();
        for round in 0..4 {
            let mut answer = direct.send(&target, request(port)).await.unwrap();
            assert_eq!(whole(answer.body_mut()).await, b"{}");
            // Every other time the close has been seen before the next request.
            if round % 2 == 0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
        assert_eq!(accepted.load(Ordering::SeqCst), 4);
    }

    #[tokio::test]
    async fn a_large_body_is_sent_whole_after_the_head() {
        let (port, _, seen) = server(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}").await;
        let direct = Direct::new(Duration::from_secs(5));
        let mut big = vec![b'a'; 100_000];
        big.extend_from_slice(b"hello");
        let request = Request::builder()
            .method(Method::POST)
            .uri(format!("http://127.0.0.1:{port}/big"))
            .body(Chunks::new([Bytes::from(big.clone())]))
            .unwrap();
        let target = Target::of(&request).unwrap();
        let mut answer = direct.send(&target, request).await.unwrap();
        assert_eq!(whole(answer.body_mut()).await, b"{}");
        let received: Vec<u8> = seen.lock().unwrap().concat();
        let text = String::from_utf8_lossy(&received).to_ascii_lowercase();
        assert!(text.contains("content-length: 100005\r\n"), "{text:.200}");
        assert!(received.ends_with(&big));
    }

    #[test]
    fn the_wire_form_has_the_request_line_host_canonical_names_and_the_exact_length() {
        let request = Request::builder()
            .method(Method::POST)
            .uri("http://[::1]:8080/v1/messages?beta=true")
            .header("x-api-key", "k")
            .header("anthropic-version", "2023-06-01")
            .header("content-length", "999")
            .header("host", "elsewhere")
            .body(Chunks::new([Bytes::from_static(b"{}")]))
            .unwrap();
        let target = Target::of(&request).unwrap();
        let (parts, body) = request.into_parts();
        let wire = request_wire(parts, &target, &body).unwrap();
        assert_eq!(
            String::from_utf8(wire.to_vec()).unwrap(),
            concat!(
                "POST /v1/messages?beta=true HTTP/1.1\r\n",
                "Host: [::1]:8080\r\n",
                "X-Api-Key: k\r\n",
                "Anthropic-Version: 2023-06-01\r\n",
                "Content-Length: 2\r\n",
                "\r\n",
                "{}"
            )
        );
        let get = Request::builder()
            .uri("http://example.com/v1/models")
            .body(Chunks::new([]))
            .unwrap();
        let target = Target::of(&get).unwrap();
        let (parts, body) = get.into_parts();
        let wire = request_wire(parts, &target, &body).unwrap();
        assert_eq!(
            &wire[..],
            b"GET /v1/models HTTP/1.1\r\nHost: example.com\r\n\r\n"
        );
    }

    #[tokio::test]
    async fn a_close_delimited_answer_is_never_pooled() {
        let (port, accepted, _) =
            server(b"HTTP/1.1 200 OK\r\nconnection: close\r\n\r\npartial").await;
        let direct = Direct::new(Duration::from_secs(5));
        let target = Target::of(&request(port)).unwrap();
        let mut answer = direct.send(&target, request(port)).await.unwrap();
        assert_eq!(answer.status(), 200);
        // The server keeps the socket open: the body ends only at its close, so the bytes so
        // far are read and the answer dropped; its connection cannot be pooled.
        let first = answer.body_mut().chunk().await.unwrap().unwrap();
        assert_eq!(&first[..], b"partial");
        drop(answer);
        let _ = direct.send(&target, request(port)).await.unwrap();
        assert_eq!(accepted.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn unreachable_and_unknown_servers_fail_to_connect_and_https_and_head_go_elsewhere() {
        let direct = Direct::new(Duration::from_secs(5));
        let closed = TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let refused = direct
            .send(&Target::of(&request(closed)).unwrap(), request(closed))
            .await;
        assert!(
            matches!(refused, Err(UpstreamError::Connect(_))),
            "{:?}",
            refused.err()
        );
        let to = |method: Method, url: &str| {
            Request::builder()
                .method(method)
                .uri(url)
                .body(Chunks::default())
                .unwrap()
        };
        let unknown = to(Method::GET, "http://no-such-host.invalid/");
        let unknown = direct.send(&Target::of(&unknown).unwrap(), unknown).await;
        assert!(
            matches!(unknown, Err(UpstreamError::Connect(_))),
            "{:?}",
            unknown.err()
        );
        // HTTPS and HEAD go through the hyper client.
        assert!(Target::of(&to(Method::POST, "https://example.com/")).is_none());
        assert!(Target::of(&to(Method::HEAD, "http://example.com/")).is_none());
    }
}
