//! Which requests of the public port may be forwarded to the control plane: an allow list of
//! the console and its REST API (`/api`), nothing else. The control plane also serves the
//! gateways' gRPC services, which no client of this port may reach, whatever the path,
//! method, content type or protocol version.

use http::header::{CONTENT_LENGTH, CONTENT_TYPE, TRANSFER_ENCODING};
use http::{HeaderMap, Method};

/// Longest path forwarded.
const MAX_PATH: usize = 2048;
/// Paths of the control plane that are for operators, not for clients of this port.
const PRIVATE: &[&str] = &["/metrics"];

/// Whether the request may go to the control plane.
pub fn allowed(method: &Method, path: &str, headers: &HeaderMap) -> bool {
    if !is_clean(path) || looks_like_grpc(headers) {
        return false;
    }
    if path == "/api" || path.starts_with("/api/") {
        return true;
    }
    is_console_asset(path)
        && (method == Method::GET || method == Method::HEAD)
        && !has_body(headers)
        && !PRIVATE.contains(&path)
}

/// An absolute path with no empty, `.` or `..` segment, no backslash and no encoded slash,
/// dot or backslash: what is checked here is what the control plane routes on.
fn is_clean(path: &str) -> bool {
    if !path.starts_with('/') || path.len() > MAX_PATH || path.contains('\\') {
        return false;
    }
    let lower = path.to_ascii_lowercase();
    if ["%2f", "%2e", "%5c", "%00"]
        .iter()
        .any(|e| lower.contains(e))
    {
        return false;
    }
    let rest = &path[1..];
    !rest.contains("//") && rest.split('/').all(|seg| seg != "." && seg != "..")
}

/// A console page or static file: segments of letters, digits, `-`, `_`, `:` and `%`; only
/// the last one may hold a dot (a file name), so `/pkg.Service/Method` never qualifies.
fn is_console_asset(path: &str) -> bool {
    let segments: Vec<&str> = path[1..].split('/').collect();
    let last = segments.len() - 1;
    segments.iter().enumerate().all(|(i, seg)| {
        seg.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(c, '-' | '_' | ':' | '%')
                || (c == '.' && i == last)
        })
    })
}

/// gRPC (and gRPC-web) requests, in any protocol version.
fn looks_like_grpc(headers: &HeaderMap) -> bool {
    let grpc_type = headers.get_all(CONTENT_TYPE).iter().any(|v| {
        v.as_bytes()
            .to_ascii_lowercase()
            .windows(4)
            .any(|w| w == b"grpc")
    });
    let trailers = headers.get_all("te").iter().any(|v| {
        v.as_bytes()
            .to_ascii_lowercase()
            .windows(8)
            .any(|w| w == b"trailers")
    });
    grpc_type || trailers || headers.contains_key("grpc-timeout")
}

fn has_body(headers: &HeaderMap) -> bool {
    headers.contains_key(TRANSFER_ENCODING)
        || headers
            .get(CONTENT_LENGTH)
            .is_some_and(|v| v.as_bytes() != b"0")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        h
    }

    #[test]
    fn the_console_and_its_api_pass() {
        let none = HeaderMap::new();
        let json = headers(&[
            ("content-type", "application/json"),
            ("content-length", "12"),
        ]);
        for (method, path, h) in [
            (Method::GET, "/", &none),
            (Method::GET, "/login", &none),
            (Method::GET, "/channel/edit/12", &none),
            (Method::GET, "/assets/index-a1b2.js", &none),
            (Method::HEAD, "/favicon.ico", &none),
            (Method::GET, "/api/status", &none),
            (Method::POST, "/api/user/login", &json),
            (Method::PUT, "/api/channel/", &json),
            (Method::DELETE, "/api/token/5", &none),
            (Method::GET, "/api/user/search?keyword=a", &none),
        ] {
            let p = path.split('?').next().unwrap();
            assert!(allowed(&method, p, h), "{method} {path}");
        }
    }

    #[test]
    fn grpc_and_everything_else_is_refused() {
        let none = HeaderMap::new();
        let grpc = headers(&[("content-type", "application/grpc")]);
        let grpc_proto = headers(&[("content-type", "Application/GRPC+proto")]);
        let te = headers(&[("te", "trailers")]);
        let body = headers(&[("content-length", "5")]);
        let chunked = headers(&[("transfer-encoding", "chunked")]);
        for (method, path, h) in [
            (Method::POST, "/config.v1.ConfigService/Watch", &grpc),
            (Method::POST, "/config.v1.ConfigService/Watch", &none),
            (Method::GET, "/config.v1.ConfigService/Watch", &none),
            (Method::POST, "/usage.v1.UsageService/Report", &grpc_proto),
            (Method::POST, "//config.v1.ConfigService/Watch", &grpc),
            (Method::GET, "//config.v1.ConfigService/Watch", &none),
            (Method::POST, "/config.v1.ConfigService%2FWatch", &none),
            (Method::GET, "/config%2Ev1.ConfigService/Watch", &none),
            (Method::POST, "/api/../config.v1.ConfigService/Watch", &none),
            (
                Method::POST,
                "/api/%2e%2e/config.v1.ConfigService/Watch",
                &none,
            ),
            (Method::POST, "/api/x", &grpc),
            (Method::POST, "/api/x", &te),
            (Method::GET, "/login", &body),
            (Method::GET, "/login", &chunked),
            (Method::POST, "/login", &none),
            (Method::GET, "/metrics", &none),
            (Method::GET, "/a\\b", &none),
            (Method::GET, "relative", &none),
        ] {
            assert!(!allowed(&method, path, h), "{method} {path} {h:?}");
        }
    }
}
