//! Calls to addresses that users or operators typed (webhooks): refused when they lead to a
//! private, loopback, link-local or otherwise internal address, checked on every address a
//! name resolves to (so DNS cannot smuggle one in) and on addresses written in the URL, unless
//! an operator allowed that network (`--outbound-allow-networks`). No redirects are followed;
//! every call has short timeouts.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

pub use adapters::client_ip::TrustedProxies as Networks;

/// How long a connection may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a whole call may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// Why an outbound call was not made or failed.
#[derive(Debug, thiserror::Error)]
pub enum OutboundError {
    #[error("invalid URL: {0}")]
    Url(String),
    #[error("only https:// addresses are called")]
    NotHttps,
    #[error("{0} is an internal address")]
    Internal(String),
    #[error("the outbound CA file: {0}")]
    CaFile(String),
    #[error("{0}")]
    Http(String),
    #[error("answered status {0}")]
    Status(u16),
}

/// Whether an address is on the public internet: none of the loopback, private, shared
/// (CGNAT), link-local (cloud metadata), unspecified, broadcast, multicast, documentation,
/// benchmarking or reserved ranges; IPv4-mapped IPv6 addresses are judged as IPv4.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => is_public_v4(v4),
            None => is_public_v6(v6),
        },
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_private()
        || ip.is_loopback()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0
        || (a == 100 && (64..128).contains(&b))
        || (a == 192 && b == 0 && c == 0)
        || (a == 198 && (b == 18 || b == 19))
        || a >= 240)
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let first = ip.segments()[0];
    !(ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || (first & 0xfe00) == 0xfc00
        || (first & 0xffc0) == 0xfe80
        || (first == 0x2001 && ip.segments()[1] == 0x0db8))
}

/// Which destinations calls may reach.
#[derive(Debug, Clone, Default)]
pub struct Guard {
    allow: Networks,
}

impl Guard {
    pub fn new(allow: Networks) -> Self {
        Guard { allow }
    }

    /// Public addresses, and those an operator allowed.
    pub fn permits(&self, ip: IpAddr) -> bool {
        is_public(ip) || self.allow.trusts(ip)
    }

    /// Addresses an operator allowed explicitly.
    pub fn allowed_internal(&self, ip: IpAddr) -> bool {
        self.allow.trusts(ip)
    }
}

/// Largest answer body read from a user-configured address.
const ANSWER_MAX: usize = 256 * 1024;

/// A JSON answer from a user-configured address, whatever its status.
#[derive(Debug)]
pub struct JsonAnswer {
    pub status: u16,
    pub body: serde_json::Value,
}

/// Resolves names and keeps only the addresses the guard permits.
struct GuardedResolver(Arc<Guard>);

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let guard = self.0.clone();
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let permitted: Vec<SocketAddr> = found
                .into_iter()
                .filter(|a| guard.permits(a.ip()))
                .collect();
            if permitted.is_empty() {
                let refused: Box<dyn std::error::Error + Send + Sync> =
                    Box::new(OutboundError::Internal(host));
                return Err(refused);
            }
            let addrs: Addrs = Box::new(permitted.into_iter());
            Ok(addrs)
        })
    }
}

/// The HTTP client for user-configured addresses.
#[derive(Clone)]
pub struct Outbound {
    client: reqwest::Client,
    guard: Arc<Guard>,
}

impl std::fmt::Debug for Outbound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outbound").finish_non_exhaustive()
    }
}

impl Outbound {
    /// A client reaching public addresses and `allow`; `extra_ca` (PEM) is trusted besides
    /// the system's roots (an enterprise CA).
    pub fn new(allow: Networks, extra_ca: Option<&Path>) -> Result<Self, OutboundError> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let guard = Arc::new(Guard::new(allow));
        let mut builder = reqwest::Client::builder()
            .user_agent(concat!(
                "ai-gateway-control-plane/",
                env!("CARGO_PKG_VERSION")
            ))
            .dns_resolver(Arc::new(GuardedResolver(guard.clone())))
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(CALL_TIMEOUT);
        if let Some(path) = extra_ca {
            let pem = std::fs::read(path)
                .map_err(|e| OutboundError::CaFile(format!("{}: {e}", path.display())))?;
            for cert in reqwest::Certificate::from_pem_bundle(&pem)
                .map_err(|e| OutboundError::CaFile(e.to_string()))?
            {
                builder = builder.add_root_certificate(cert);
            }
        }
        let client = builder
            .build()
            .map_err(|e| OutboundError::Http(e.to_string()))?;
        Ok(Outbound { client, guard })
    }

    /// Checks a URL before any call: https, and an address written in it must be permitted
    /// (names are checked when they resolve).
    pub fn check(&self, url: &str) -> Result<reqwest::Url, OutboundError> {
        let parsed = reqwest::Url::parse(url).map_err(|e| OutboundError::Url(e.to_string()))?;
        if parsed.scheme() != "https" {
            return Err(OutboundError::NotHttps);
        }
        let Some(host) = parsed.host_str() else {
            return Err(OutboundError::Url("no host".to_owned()));
        };
        let literal = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
            .ok();
        if let Some(ip) = literal
            && !self.guard.permits(ip)
        {
            return Err(OutboundError::Internal(ip.to_string()));
        }
        Ok(parsed)
    }

    /// Checks a URL of a sign-in provider or service an operator configured: like [`check`],
    /// and plain `http://` is also accepted when the host is written as an address inside a
    /// network the operator allowed (a provider on the private network without TLS).
    ///
    /// [`check`]: Outbound::check
    pub fn check_endpoint(&self, url: &str) -> Result<reqwest::Url, OutboundError> {
        let parsed = reqwest::Url::parse(url).map_err(|e| OutboundError::Url(e.to_string()))?;
        if parsed.scheme() == "http" {
            let literal = parsed.host_str().and_then(|h| {
                h.trim_start_matches('[')
                    .trim_end_matches(']')
                    .parse::<IpAddr>()
                    .ok()
            });
            return match literal {
                Some(ip) if self.guard.allowed_internal(ip) => Ok(parsed),
                _ => Err(OutboundError::NotHttps),
            };
        }
        self.check(url)
    }

    /// Sends a request built on the guarded client to a URL [`check_endpoint`] accepted, and
    /// reads a JSON answer of at most 256 KiB (non-JSON answers read as `null`).
    ///
    /// [`check_endpoint`]: Outbound::check_endpoint
    pub async fn call_json(
        &self,
        build: impl FnOnce(&reqwest::Client) -> reqwest::RequestBuilder,
    ) -> Result<JsonAnswer, OutboundError> {
        let mut response = build(&self.client)
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| OutboundError::Http(error_chain(&e)))?;
        let status = response.status().as_u16();
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| OutboundError::Http(error_chain(&e)))?
        {
            if body.len() + chunk.len() > ANSWER_MAX {
                return Err(OutboundError::Http("answer too large".to_owned()));
            }
            body.extend_from_slice(&chunk);
        }
        let body = serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null);
        Ok(JsonAnswer { status, body })
    }

    /// POSTs `body` as JSON to `url`, with `bearer` as `Authorization: Bearer …` when given;
    /// a 2xx answer is success.
    pub async fn post_json(
        &self,
        url: &str,
        bearer: Option<&str>,
        body: &serde_json::Value,
    ) -> Result<(), OutboundError> {
        let url = self.check(url)?;
        let mut request = self.client.post(url).json(body);
        if let Some(token) = bearer.filter(|t| !t.is_empty()) {
            request = request.bearer_auth(token);
        }
        let response = request
            .send()
            .await
            .map_err(|e| OutboundError::Http(error_chain(&e)))?;
        let status = response.status().as_u16();
        if !(200..300).contains(&status) {
            return Err(OutboundError::Status(status));
        }
        Ok(())
    }
}

/// An error and its causes on one line.
fn error_chain(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text = format!("{text}: {s}");
        source = s.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_addresses_are_refused_unless_allowed() {
        for internal in [
            "127.0.0.1",
            "10.0.0.1",
            "172.16.5.4",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
        ] {
            let ip: IpAddr = internal.parse().unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
            assert!(!is_public(ip), "{internal}");
        }
        for public in ["1.1.1.1", "93.184.216.34", "2606:4700:4700::1111"] {
            let ip: IpAddr = public.parse().unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
            assert!(is_public(ip), "{public}");
        }
        let allow = Networks::parse("10.1.0.0/16").unwrap_or_default();
        let guard = Guard::new(allow);
        assert!(
            guard.permits(
                "10.1.2.3"
                    .parse()
                    .unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST))
            )
        );
        assert!(
            !guard.permits(
                "10.2.0.1"
                    .parse()
                    .unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST))
            )
        );
    }
}
