//! The edge's reading of a request before any lookup: the key from headers or query, the
//! token checks on it (`sk-KEY-CHANNELID` included), the trusted-proxy list and the client
//! address from `X-Forwarded-For`. Nothing may panic.
//!
//! Input, line by line: the trusted-proxy list, the peer address, then `?query` lines and
//! `name: value` header lines (lines that are not a valid header are skipped).

#![no_main]

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::OnceLock;

use adapters::client_ip::TrustedProxies;
use gateway::config::Snapshot;
use gateway::edge;
use http::{HeaderMap, HeaderName, HeaderValue};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut lines = data.split(|b| *b == b'\n');
    let proxies = String::from_utf8_lossy(lines.next().unwrap_or_default());
    let peer_line = lines.next().unwrap_or_default();
    let peer = String::from_utf8_lossy(peer_line)
        .trim()
        .parse::<IpAddr>()
        .unwrap_or_else(|_| peer_from_bytes(peer_line));

    let mut headers = HeaderMap::new();
    let mut query: Option<&str> = None;
    for line in lines {
        if let Some(q) = line.strip_prefix(b"?") {
            query = std::str::from_utf8(q).ok();
            continue;
        }
        let Some(colon) = line.iter().position(|b| *b == b':') else {
            continue;
        };
        let (name, value) = (&line[..colon], &line[colon + 1..]);
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name),
            HeaderValue::from_bytes(value.trim_ascii()),
        ) {
            headers.append(name, value);
        }
    }

    let key = edge::extract_key(&headers, query);
    if let Some(k) = key {
        let _ = edge::key_hash(k);
    }

    let everyone = TrustedProxies::parse("0.0.0.0/0, ::/0").unwrap_or_default();
    let parsed = TrustedProxies::parse(&proxies).ok();
    let mut client = None;
    for trusted in [Some(&everyone), parsed.as_ref()].into_iter().flatten() {
        let _ = trusted.trusts(peer);
        client = Some(trusted.client_ip(peer, edge::forwarded_for(&headers)));
    }
    let _ = edge::authenticate(snapshot(), key, client, 1_700_000_000);
    let _ = edge::authenticate(snapshot(), key, None, 1_700_000_000);
});

/// A peer address made of the line's bytes (IPv6 when there are 16 or more).
fn peer_from_bytes(b: &[u8]) -> IpAddr {
    if let Some(v6) = b.first_chunk::<16>() {
        IpAddr::V6(Ipv6Addr::from(*v6))
    } else {
        let mut v4 = [0u8; 4];
        for (d, s) in v4.iter_mut().zip(b) {
            *d = *s;
        }
        IpAddr::V4(Ipv4Addr::from(v4))
    }
}

/// A small snapshot whose keys the fuzzer can find through the corpus: `good` (limited,
/// IP-restricted), `admin` (may pin a channel), `banned` (its user is disabled).
fn snapshot() -> &'static Snapshot {
    static SNAP: OnceLock<Snapshot> = OnceLock::new();
    SNAP.get_or_init(|| {
        let raw: proto::config::v1::Snapshot = serde_json::from_value(serde_json::json!({
            "users": [{"id": 1, "status": 1, "group": "default", "quota": 10},
                      {"id": 2, "status": 2, "group": "default", "quota": 10},
                      {"id": 3, "status": 1, "group": "default", "quota": 10, "role": 10}],
            "tokens": [
                {"id": 1, "user_id": 1, "key_hash": edge::key_hash("good"), "status": 1,
                 "remain_quota": 5, "allow_ips": ["10.0.0.0/8", "127.0.0.1", "::1"]},
                {"id": 2, "user_id": 2, "key_hash": edge::key_hash("banned"), "status": 1,
                 "unlimited_quota": true},
                {"id": 3, "user_id": 3, "key_hash": edge::key_hash("admin"), "status": 1,
                 "unlimited_quota": true, "group": "vip"}
            ],
            "pricing": {"group_ratio": {"default": 1, "vip": 2}, "user_usable_groups": {"vip": "VIP"}}
        }))
        .expect("the fixed snapshot parses");
        Snapshot::build(&raw).expect("the fixed snapshot builds")
    })
}
