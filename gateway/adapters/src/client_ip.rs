//! The client's address, for both planes: the TCP peer, unless the peer is a trusted proxy
//! (`--trusted-proxies`), in which case `X-Forwarded-For` is read from the right, past every
//! trusted proxy, to the first address that is not one. Nothing is trusted for being on
//! loopback: with no trusted proxy configured, the header is ignored.

use std::net::IpAddr;

use ipnet::IpNet;

/// Networks whose `X-Forwarded-For` is believed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// Parses a comma-separated list of CIDRs or addresses (empty: trust none).
    pub fn parse(raw: &str) -> Result<TrustedProxies, String> {
        raw.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| {
                s.parse::<IpNet>()
                    .or_else(|_| s.parse::<IpAddr>().map(IpNet::from))
                    .map_err(|_| format!("not a CIDR or an address: {s:?}"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(TrustedProxies)
    }

    fn contains(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        self.0.iter().any(|net| net.contains(&ip))
    }

    /// Whether `peer` is a trusted proxy.
    pub fn trusts(&self, peer: IpAddr) -> bool {
        self.contains(peer)
    }

    /// The client's address for a connection from `peer` whose `X-Forwarded-For` headers
    /// are `forwarded` (in order).
    pub fn client_ip<'a>(
        &self,
        peer: IpAddr,
        forwarded: impl IntoIterator<Item = &'a str>,
    ) -> IpAddr {
        let mut client = canonical(peer);
        if self.0.is_empty() || !self.contains(client) {
            return client;
        }
        let entries = forwarded
            .into_iter()
            .flat_map(|v| v.split(','))
            .collect::<Vec<_>>();
        for entry in entries.iter().rev() {
            if !self.contains(client) {
                break;
            }
            match parse_entry(entry) {
                Some(ip) => client = ip,
                // Garbage from a proxy we trust: stop at the last address we could read.
                None => break,
            }
        }
        client
    }
}

/// IPv4-mapped IPv6 addresses as IPv4.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// One `X-Forwarded-For` entry: an address, possibly `[v6]`, possibly with a port.
fn parse_entry(entry: &str) -> Option<IpAddr> {
    let e = entry.trim();
    if let Ok(ip) = e.parse::<IpAddr>() {
        return Some(canonical(ip));
    }
    if let Ok(sock) = e.parse::<std::net::SocketAddr>() {
        return Some(canonical(sock.ip()));
    }
    e.strip_prefix('[')
        .and_then(|r| r.split(']').next())
        .and_then(|v6| v6.parse::<IpAddr>().ok())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn xff(v: &str) -> [&str; 1] {
        [v]
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn forwarded_addresses_count_only_from_trusted_proxies() {
        let none = TrustedProxies::default();
        assert_eq!(
            none.client_ip(ip("127.0.0.1"), xff("203.0.113.9")),
            ip("127.0.0.1")
        );
        let lo = TrustedProxies::parse("127.0.0.0/8, ::1, 10.0.0.0/8").unwrap();
        // A remote client forging "127.0.0.1" through a local proxy that appends its peer.
        assert_eq!(
            lo.client_ip(ip("127.0.0.1"), xff("127.0.0.1, 203.0.113.9")),
            ip("203.0.113.9")
        );
        // Two trusted hops, then the client.
        assert_eq!(
            lo.client_ip(ip("10.1.1.1"), xff("198.51.100.7, 10.2.2.2")),
            ip("198.51.100.7")
        );
        // A local client through a local proxy stays local.
        assert_eq!(lo.client_ip(ip("::1"), xff("127.0.0.1")), ip("127.0.0.1"));
        // An untrusted peer's header is ignored.
        assert_eq!(
            lo.client_ip(ip("198.51.100.1"), xff("127.0.0.1")),
            ip("198.51.100.1")
        );
        assert_eq!(
            lo.client_ip(ip("127.0.0.1"), xff("[2001:db8::1]:443")),
            ip("2001:db8::1")
        );
        assert_eq!(lo.client_ip(ip("127.0.0.1"), xff("junk")), ip("127.0.0.1"));
        assert!(TrustedProxies::parse("nope").is_err());
    }
}
