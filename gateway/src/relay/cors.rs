//! CORS on the relay paths, so browser apps can call the gateway with the official SDKs:
//! `OPTIONS` preflights are answered here, and answers carry `Access-Control-Allow-Origin`
//! for allowed origins (`*` by default: relay calls authenticate with a key, never a cookie).

use http::HeaderMap;

/// Which browser origins may call the relay.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum CorsOrigins {
    /// Any origin (`Access-Control-Allow-Origin: *`).
    #[default]
    Any,
    /// Only these (exact `scheme://host[:port]`); others get no CORS headers.
    List(Vec<String>),
}

impl CorsOrigins {
    /// Parses `*`, an empty string (no origin allowed) or a comma-separated list of origins.
    pub fn parse(raw: &str) -> CorsOrigins {
        let list: Vec<String> = raw
            .split(',')
            .map(|s| s.trim().trim_end_matches('/').to_owned())
            .filter(|s| !s.is_empty())
            .collect();
        if list.iter().any(|s| s == "*") {
            CorsOrigins::Any
        } else {
            CorsOrigins::List(list)
        }
    }

    /// The `Access-Control-Allow-Origin` value for a request, if any.
    pub fn allow(&self, headers: &HeaderMap) -> Option<String> {
        let origin = headers.get(http::header::ORIGIN)?.to_str().ok()?;
        match self {
            CorsOrigins::Any => Some("*".to_owned()),
            CorsOrigins::List(list) => list
                .iter()
                .any(|o| o.eq_ignore_ascii_case(origin))
                .then(|| origin.to_owned()),
        }
    }
}

/// Headers a browser may send on relay calls when the preflight names none we can echo.
const DEFAULT_ALLOWED_HEADERS: &str = "authorization, content-type, x-api-key, x-goog-api-key, \
     anthropic-version, anthropic-beta, anthropic-dangerous-direct-browser-access, \
     openai-organization, openai-project, x-stainless-os, x-stainless-lang, \
     x-stainless-package-version, x-stainless-runtime, x-stainless-runtime-version, \
     x-stainless-arch, x-stainless-retry-count, x-stainless-timeout, x-goog-api-client";

/// The headers of a preflight answer (`allow_origin` from [`CorsOrigins::allow`]).
pub fn preflight_headers(allow_origin: &str, request: &HeaderMap) -> Vec<(&'static str, String)> {
    let requested = request
        .get("access-control-request-headers")
        .and_then(|v| v.to_str().ok())
        .filter(|v| v.len() <= 4096 && v.bytes().all(|b| b.is_ascii_graphic() || b == b' '))
        .map_or_else(|| DEFAULT_ALLOWED_HEADERS.to_owned(), str::to_owned);
    let mut h = vec![
        ("access-control-allow-origin", allow_origin.to_owned()),
        (
            "access-control-allow-methods",
            "GET, POST, OPTIONS".to_owned(),
        ),
        ("access-control-allow-headers", requested),
        ("access-control-max-age", "86400".to_owned()),
    ];
    if allow_origin != "*" {
        h.push(("vary", "Origin".to_owned()));
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn with_origin(o: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            http::header::ORIGIN,
            HeaderValue::from_str(o).unwrap_or(HeaderValue::from_static("x")),
        );
        h
    }

    #[test]
    fn origins_are_matched() {
        assert_eq!(CorsOrigins::parse(" * "), CorsOrigins::Any);
        assert_eq!(
            CorsOrigins::Any
                .allow(&with_origin("https://a.example"))
                .as_deref(),
            Some("*")
        );
        assert_eq!(CorsOrigins::Any.allow(&HeaderMap::new()), None);
        let list = CorsOrigins::parse("https://a.example/, https://b.example");
        assert_eq!(
            list.allow(&with_origin("https://a.example")).as_deref(),
            Some("https://a.example")
        );
        assert_eq!(list.allow(&with_origin("https://evil.example")), None);
        assert_eq!(
            CorsOrigins::parse("").allow(&with_origin("https://a.example")),
            None
        );
    }

    #[test]
    fn preflight_echoes_requested_headers() {
        let mut h = with_origin("https://a.example");
        h.insert(
            "access-control-request-headers",
            HeaderValue::from_static("authorization, x-stainless-os"),
        );
        let p = preflight_headers("https://a.example", &h);
        assert!(p.contains(&(
            "access-control-allow-headers",
            "authorization, x-stainless-os".to_owned()
        )));
        assert!(p.contains(&("vary", "Origin".to_owned())));
    }
}
