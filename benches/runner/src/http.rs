//! A small blocking HTTP/1.1 client over one kept-alive connection (std sockets, no
//! dependencies): for the scenarios that send many small requests in a row (tokens created in
//! bulk, balance churn, polling the gateway for a new token), where a curl process per request
//! would cost more than the request.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

use anyhow::{Context, bail};

/// One answer: status, headers (names lower-cased) and body.
#[derive(Debug, Clone, Default)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    /// The first header named `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// A connection to one `host:port`, opened on first use and again after the server closes it.
pub struct Conn {
    addr: String,
    timeout: Duration,
    stream: Option<BufReader<TcpStream>>,
}

impl Conn {
    pub fn new(addr: &str, timeout: Duration) -> Conn {
        Conn {
            addr: addr.to_owned(),
            timeout,
            stream: None,
        }
    }

    fn connect(&self) -> anyhow::Result<BufReader<TcpStream>> {
        let s = TcpStream::connect(&self.addr)
            .with_context(|| format!("connecting to {}", self.addr))?;
        s.set_nodelay(true)?;
        s.set_read_timeout(Some(self.timeout))?;
        s.set_write_timeout(Some(self.timeout))?;
        Ok(BufReader::new(s))
    }

    /// Sends one request and reads the whole answer. A kept connection the server has closed
    /// in the meantime is replaced once (nothing of the answer was read then).
    pub fn send(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> anyhow::Result<Answer> {
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\n",
            self.addr,
            body.len()
        );
        for (k, v) in headers {
            head += &format!("{k}: {v}\r\n");
        }
        head += "\r\n";
        let reused = self.stream.is_some();
        match self.exchange(head.as_bytes(), body) {
            Err(Failure::BeforeAnswer(_)) if reused => {
                self.stream = None;
                self.exchange(head.as_bytes(), body)
                    .map_err(Failure::into_error)
            }
            other => other.map_err(Failure::into_error),
        }
    }

    fn exchange(&mut self, head: &[u8], body: &[u8]) -> Result<Answer, Failure> {
        let mut stream = match self.stream.take() {
            Some(s) => s,
            None => self.connect().map_err(Failure::Other)?,
        };
        let sent = stream
            .get_mut()
            .write_all(head)
            .and_then(|()| stream.get_mut().write_all(body));
        if let Err(e) = sent {
            return Err(Failure::BeforeAnswer(e.into()));
        }
        let mut status_line = String::new();
        match stream.read_line(&mut status_line) {
            Ok(0) => return Err(Failure::BeforeAnswer(anyhow::anyhow!("connection closed"))),
            Err(e) => return Err(Failure::BeforeAnswer(e.into())),
            Ok(_) => {}
        }
        let answer = read_rest(&mut stream, &status_line).map_err(Failure::Other)?;
        let close = answer
            .header("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"));
        if !close {
            self.stream = Some(stream);
        }
        Ok(answer)
    }
}

enum Failure {
    /// Nothing of an answer arrived: the request may be sent again on a new connection.
    BeforeAnswer(anyhow::Error),
    Other(anyhow::Error),
}

impl Failure {
    fn into_error(self) -> anyhow::Error {
        match self {
            Failure::BeforeAnswer(e) | Failure::Other(e) => e,
        }
    }
}

/// Reads the headers and body that follow `status_line`.
fn read_rest(r: &mut impl BufRead, status_line: &str) -> anyhow::Result<Answer> {
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .with_context(|| format!("bad status line {status_line:?}"))?;
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if r.read_line(&mut line)? == 0 {
            bail!("connection closed in the headers");
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
        }
    }
    let mut answer = Answer {
        status,
        headers,
        body: Vec::new(),
    };
    let chunked = answer
        .header("transfer-encoding")
        .is_some_and(|v| v.eq_ignore_ascii_case("chunked"));
    let length = answer
        .header("content-length")
        .and_then(|v| v.parse::<usize>().ok());
    if chunked {
        answer.body = read_chunked(r)?;
    } else if let Some(n) = length {
        answer.body = vec![0; n];
        r.read_exact(&mut answer.body)?;
    } else if !(status == 204 || status == 304 || (100..200).contains(&status)) {
        r.read_to_end(&mut answer.body)?;
        answer.headers.push(("connection".into(), "close".into()));
    }
    Ok(answer)
}

fn read_chunked(r: &mut impl BufRead) -> anyhow::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut line = String::new();
        if r.read_line(&mut line)? == 0 {
            bail!("connection closed in a chunked body");
        }
        let size = line.trim().split(';').next().unwrap_or("");
        let size =
            usize::from_str_radix(size, 16).with_context(|| format!("chunk size {line:?}"))?;
        if size == 0 {
            // Trailers, up to the empty line.
            loop {
                let mut t = String::new();
                if r.read_line(&mut t)? == 0 || t.trim_end().is_empty() {
                    return Ok(body);
                }
            }
        }
        let start = body.len();
        body.resize(start + size, 0);
        r.read_exact(&mut body[start..])?;
        let mut crlf = [0u8; 2];
        r.read_exact(&mut crlf)?;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::io::Read;

    fn parse(raw: &str) -> Answer {
        let mut r = BufReader::new(raw.as_bytes());
        let mut status = String::new();
        r.read_line(&mut status).unwrap();
        read_rest(&mut r, &status).unwrap()
    }

    #[test]
    fn reads_sized_and_chunked_bodies() {
        let a = parse(
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nSet-Cookie: s=1; Path=/\r\n\r\nhelloextra",
        );
        assert_eq!((a.status, a.text().as_str()), (200, "hello"));
        assert_eq!(a.header("set-cookie"), Some("s=1; Path=/"));
        let a = parse(
            "HTTP/1.1 401 Unauthorized\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n",
        );
        assert_eq!((a.status, a.text().as_str()), (401, "abcde"));
        let a = parse("HTTP/1.1 204 No Content\r\n\r\n");
        assert!(a.body.is_empty() && a.header("connection").is_none());
    }

    #[test]
    fn keeps_the_connection_between_requests() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let server = std::thread::spawn(move || {
            let (s, _) = listener.accept().unwrap();
            let mut r = BufReader::new(s);
            for body in ["one", "two"] {
                let mut len = 0;
                loop {
                    let mut line = String::new();
                    r.read_line(&mut line).unwrap();
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        len = v.trim().parse().unwrap();
                    }
                    if line == "\r\n" {
                        break;
                    }
                }
                let mut got = vec![0; len];
                r.read_exact(&mut got).unwrap();
                let out = format!("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n{body}");
                r.get_mut().write_all(out.as_bytes()).unwrap();
            }
        });
        let mut c = Conn::new(&addr, Duration::from_secs(5));
        assert_eq!(c.send("POST", "/", &[], b"{}").unwrap().text(), "one");
        assert_eq!(c.send("GET", "/x", &[], b"").unwrap().text(), "two");
        server.join().unwrap();
    }
}
