//! Micro-benchmarks of the gateway's per-request work outside the protocol code: key lookup
//! and the token/user checks, channel selection, and the billing arithmetic (price, reserve,
//! settle), over a snapshot sized like a busy deployment.

use std::collections::HashSet;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use gateway::adapters::openai::Usage;
use gateway::config::Snapshot;
use gateway::{billing, edge, routing};
use http::HeaderMap;
use serde_json::{Value, json};

const TOKENS: usize = 10_000;

/// 10 000 tokens over 1 000 users; `gpt-4o-mini` served by three priority tiers of four
/// channels each, plus 40 other models.
fn snapshot() -> Snapshot {
    let users: Vec<Value> = (1..=1000)
        .map(|id| json!({"id": id, "username": format!("u{id}"), "status": 1, "group": "default", "quota": 1_000_000_000_000_i64, "role": 1}))
        .collect();
    let tokens: Vec<Value> = (0..TOKENS)
        .map(|i| json!({"id": i + 1, "user_id": i % 1000 + 1, "name": "t", "key_hash": edge::key_hash(&key(i)),
            "status": 1, "expired_time": -1, "unlimited_quota": true}))
        .collect();
    let mut channels: Vec<Value> = (0..12)
        .map(|i| json!({"id": i + 1, "type": 1, "name": format!("c{i}"), "base_url": "http://127.0.0.1:9",
            "key": "sk-upstream", "models": ["gpt-4o-mini"], "groups": ["default"], "status": 1,
            "priority": 10 * (i / 4), "weight": 1 + i % 4}))
        .collect();
    channels.extend((0..40).map(|i| {
        json!({"id": 100 + i, "type": 1, "name": format!("o{i}"),
        "base_url": "http://127.0.0.1:9", "key": "sk-upstream", "models": [format!("model-{i}")],
        "groups": ["default"], "status": 1})
    }));
    let raw = json!({
        "version": 1, "users": users, "tokens": tokens, "channels": channels,
        "pricing": {"model_ratio": {"gpt-4o-mini": 0.075}, "completion_ratio": {"gpt-4o-mini": 4}, "group_ratio": {"default": 1}},
    });
    let raw = serde_json::from_value(raw).unwrap_or_default();
    match Snapshot::build(&raw) {
        Ok(s) => s,
        Err(e) => panic!("benchmark snapshot is invalid: {e}"),
    }
}

fn key(i: usize) -> String {
    format!("bench{i:043}")
}

fn bench(c: &mut Criterion) {
    let snap = snapshot();
    let mut headers = HeaderMap::new();
    let bearer = format!("Bearer sk-{}", key(TOKENS / 2));
    headers.insert(
        http::header::AUTHORIZATION,
        http::HeaderValue::from_str(&bearer).unwrap_or(http::HeaderValue::from_static("")),
    );
    let ip = Some(std::net::IpAddr::from([127, 0, 0, 1]));
    c.bench_function("edge: extract key + authenticate (10k tokens)", |b| {
        b.iter(|| {
            let key = edge::extract_key(black_box(&headers), None);
            black_box(edge::authenticate(&snap, key, ip, 1_700_000_000).is_ok())
        })
    });
    c.bench_function("edge: key hash (SHA-256 hex)", |b| {
        b.iter(|| {
            black_box(edge::key_hash(black_box(
                "bench0000000000000000000000000000000000000005000",
            )))
        })
    });

    let mut rng = rand::rng();
    let none = HashSet::new();
    c.bench_function("routing: next channel (3 tiers of 4, weighted)", |b| {
        b.iter(|| {
            black_box(routing::next_channel(
                &snap,
                "default",
                "gpt-4o-mini",
                &none,
                |_| true,
                &mut rng,
            ))
        })
    });
    let top_tier: HashSet<i64> = (9..=12).collect();
    c.bench_function("routing: next channel after the top tier failed", |b| {
        b.iter(|| {
            black_box(routing::next_channel(
                &snap,
                "default",
                "gpt-4o-mini",
                &top_tier,
                |_| true,
                &mut rng,
            ))
        })
    });

    let caller = match edge::authenticate(&snap, Some(&format!("sk-{}", key(7))), ip, 0) {
        Ok(c) => c,
        Err(e) => panic!("benchmark token rejected: {e}"),
    };
    let usage = Usage {
        prompt_tokens: 12,
        completion_tokens: 20,
        cached_tokens: 0,
        cache_creation_tokens: 0,
    };
    c.bench_function(
        "billing: price + pre-quota + reserve + quota + settle",
        |b| {
            b.iter(|| {
                let Ok(price) =
                    billing::price_for(&snap.pricing, "gpt-4o-mini", "default", "default")
                else {
                    return 0;
                };
                let pre = billing::pre_quota(&price, 12, Some(256), 0, 500_000);
                let Ok(reservation) = billing::reserve(&caller.user, &caller.token, pre) else {
                    return 0;
                };
                let q = billing::quota(&price, black_box(&usage), 500_000);
                reservation.settle(q);
                black_box(q)
            })
        },
    );
}

/// Sensitive-word check of a prompt: 2 000 words and 20 regular expressions, over chat bodies
/// of 1 KiB and 16 KiB of ASCII text and 16 KiB of CJK text (no word present: the full scan).
fn sensitive_words(c: &mut Criterion) {
    let mut lines: Vec<String> = (0..2000).map(|i| format!("blocked-term-{i:04}")).collect();
    lines.extend((0..20).map(|i| format!("regex:secret-{i}-\\d{{6}}")));
    let words = gateway::edge::content::SensitiveWords::compile(&lines);
    let ascii = "the quick brown fox jumps over the lazy dog. ";
    let cjk = "敏捷的棕色狐狸跳过了懒狗。";
    for (name, unit, kib) in [("ascii", ascii, 1), ("ascii", ascii, 16), ("cjk", cjk, 16)] {
        let text = unit.repeat(kib * 1024 / unit.len() + 1);
        let body = serde_json::to_vec(&serde_json::json!({
            "model": "gpt-4o-mini",
            "messages": [{"role": "user", "content": &text[..text.floor_char_boundary(kib * 1024)]}]
        }))
        .unwrap_or_default();
        c.bench_function(&format!("sensitive words: {kib} KiB {name} prompt"), |b| {
            b.iter(|| black_box(words.find_in_request(black_box(&body))))
        });
    }
}

/// A config delta that changes one user's and one token's balance (what every ingested usage
/// batch sends) over 100 000 tokens: applied to the snapshot in force, against building the
/// whole snapshot again as the gateway did before.
fn config_deltas(c: &mut Criterion) {
    use gateway::config::delta::{Fresh, RawRest};
    use proto::config::v1 as pb;
    const MANY: i64 = 100_000;
    let raw = pb::Snapshot {
        version: 1,
        users: (1..=MANY / 10)
            .map(|id| pb::User {
                id,
                status: 1,
                quota: 1_000_000,
                ..Default::default()
            })
            .collect(),
        tokens: (1..=MANY)
            .map(|id| pb::Token {
                id,
                user_id: id % (MANY / 10) + 1,
                key_hash: format!("{id:064x}"),
                status: 1,
                remain_quota: 1_000_000,
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    let base = match Snapshot::build(&raw) {
        Ok(s) => s,
        Err(e) => panic!("benchmark snapshot is invalid: {e}"),
    };
    let mut rest = RawRest::from_snapshot(&raw);
    let delta = pb::Delta {
        from_version: 1,
        version: 2,
        upsert_users: vec![pb::User {
            id: 7,
            status: 1,
            quota: 999_000,
            ..Default::default()
        }],
        upsert_tokens: vec![pb::Token {
            id: 70,
            user_id: 7,
            key_hash: format!("{:064x}", 70),
            status: 1,
            remain_quota: 999_000,
            ..Default::default()
        }],
        ..Default::default()
    };
    if rest.apply(&delta).is_err() {
        panic!("benchmark delta is out of order");
    }
    c.bench_function(
        "config: balance delta over 100k tokens, applied in place",
        |b| {
            b.iter(|| {
                let mut fresh = Fresh::default();
                black_box(
                    base.with_delta(black_box(&delta), &rest, &mut fresh)
                        .is_ok(),
                )
            })
        },
    );
    c.bench_function(
        "config: balance delta over 100k tokens, full rebuild",
        |b| b.iter(|| black_box(Snapshot::build(black_box(&raw)).is_ok())),
    );
}

criterion_group!(benches, bench, sensitive_words);
criterion_group! {
    name = config;
    config = Criterion::default().sample_size(10);
    targets = config_deltas
}
criterion_main!(benches, config);
