//! The gateway at scale: a second gateway whose control plane holds many tokens (100 000 by
//! default) besides the benchmark's own, created through the REST API before the gateway
//! starts (so they arrive in its first snapshot over the normal gRPC feed). Measures its idle
//! memory, its closed-loop throughput and CPU beside the plain gateway's (same run,
//! interleaved), the same with balance churn, and how fast a new token reaches it.

use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;

use crate::churn::{self, ChurnThread, Editable};
use crate::cp_api::{self, Api, BATCH_MAX};
use crate::propagation;
use crate::results::{Run, Scale, ScalePoint};
use crate::scenarios::Bench;
use crate::stats::Rng;
use crate::targets::{self, Env, Kind, Target, Workload};

/// Client threads creating tokens (each with its own kept-alive connection).
const SEED_THREADS: usize = 4;
/// Balance of each seeded token (limited, so balance edits mean something).
const SEED_QUOTA: i64 = 1_000_000_000;
/// Seeded tokens tried through the gateway before measuring.
const KEYS_TRIED: usize = 20;

/// What the scale scenarios are asked to do.
pub struct ScaleSettings {
    pub tokens: usize,
    pub conns: usize,
    pub churn_rate: f64,
    pub propagation_samples: usize,
    /// Throughput beside the plain gateway (`scale`), with churn (`churn`), propagation.
    pub throughput: bool,
    pub churn: bool,
    pub propagation: bool,
}

/// Tokens created before the gateway started.
struct Seeded {
    tokens: Vec<Editable>,
    /// One whole key per batch (keys are shown only at creation).
    keys: Vec<String>,
    seconds: f64,
    calls: usize,
}

/// Creates `n` limited tokens owned by root in batches, from [`SEED_THREADS`] clients.
fn seed(cp_addr: &str, n: usize) -> anyhow::Result<Seeded> {
    let start = Instant::now();
    let batches = n.div_ceil(BATCH_MAX);
    let created = cp_api::in_parallel(
        cp_addr,
        SEED_THREADS,
        batches,
        "scale: token batches",
        |api, b| {
            let count = BATCH_MAX.min(n - b * BATCH_MAX);
            api.create_tokens(&format!("scale-{b}"), count, Some(SEED_QUOTA))
        },
    )?;
    let keys = created
        .iter()
        .filter_map(|batch| batch.first().map(|c| c.key.clone()))
        .collect();
    let tokens = created
        .into_iter()
        .flatten()
        .map(|c| (c.id, c.name))
        .collect();
    Ok(Seeded {
        tokens,
        keys,
        seconds: start.elapsed().as_secs_f64(),
        calls: batches,
    })
}

/// Tries `tried` random seeded keys through the gateway; how many it answered 200.
fn verify_keys(t: &Target, keys: &[String], tried: usize) -> usize {
    let mut rng = Rng::new(0x5EED);
    (0..tried.min(keys.len()))
        .filter(|_| {
            let key = &keys[rng.below(keys.len() as u64) as usize];
            let req = t.request_as(Workload::Chat, key);
            matches!(crate::setup::send(&req), Ok((200, _)))
        })
        .count()
}

fn log_run(run: usize, runs: usize, label: &str, r: &Run) {
    eprintln!(
        "scale run {run}/{runs}: {label}: {:.0} req/s, p50 {:.3} ms, {:.1} µs CPU/req, {} errors",
        r.rps, r.p50_ms, r.cpu_us_per_req, r.errors
    );
}

/// Starts the gateway with `cfg.tokens` tokens and runs what `cfg` asks for; `targets` holds
/// the plain gateway, measured beside it.
pub fn run(
    bench: &Bench,
    env: &Env,
    mock: &str,
    targets: &[Target],
    cfg: &ScaleSettings,
) -> anyhow::Result<Scale> {
    let n = cfg.tokens;
    eprintln!("scale: starting a gateway whose control plane holds {n} more tokens");
    let (big, seeded) = targets::start_gateway_seeded(env, mock, "-scale", |cp| seed(cp, n))?;
    eprintln!(
        "scale: {n} tokens in {:.1} s ({} calls); gateway ready after {:.1} s, idle RSS {} KiB",
        seeded.seconds,
        seeded.calls,
        big.ready_after.map_or(f64::NAN, |d| d.as_secs_f64()),
        big.idle_rss_kib.unwrap_or(0)
    );
    let keys_verified = verify_keys(&big, &seeded.keys, KEYS_TRIED);
    let cp_addr = big.cp_addr.clone().context("no control plane address")?;
    let plain = targets
        .iter()
        .find(|t| t.kind == Kind::Gateway)
        .filter(|_| cfg.throughput);
    let label_big = format!("gateway, {} tokens", crate::report_scale::grouped(n));
    let mut rows: Vec<(String, &Target, usize, bool)> = Vec::new();
    if let Some(p) = plain {
        rows.push(("gateway, 1 token (the plain gateway)".into(), p, 1, false));
    }
    if cfg.throughput || cfg.churn {
        rows.push((label_big.clone(), &big, n, false));
    }
    if cfg.churn {
        rows.push((
            format!("{label_big}, {} balance edits/s", cfg.churn_rate),
            &big,
            n,
            true,
        ));
    }
    let mut points: Vec<ScalePoint> = rows
        .iter()
        .map(|(label, _, tokens, churn)| ScalePoint {
            label: label.clone(),
            tokens: *tokens,
            churn: *churn,
            conns: cfg.conns,
            runs: vec![],
        })
        .collect();
    let editable = Arc::new(seeded.tokens);
    let mut churns = Vec::new();
    if !rows.is_empty() {
        bench.wrk(&big, Workload::Chat, cfg.conns, 2)?;
    }
    let s = &bench.settings;
    for run in 1..=s.runs {
        for ((label, t, _, with_churn), p) in rows.iter().zip(points.iter_mut()) {
            let churn = if *with_churn {
                Some(ChurnThread::start(
                    Api::login(&cp_addr)?,
                    editable.clone(),
                    cfg.churn_rate,
                ))
            } else {
                None
            };
            let r = bench.wrk(t, Workload::Chat, cfg.conns, s.seconds);
            if let Some(c) = churn {
                let c = c.finish();
                eprintln!(
                    "scale: churn {:.1} edits/s done ({} failed)",
                    c.done_per_second(),
                    c.failed
                );
                churns.push(c);
            }
            let r = r?;
            log_run(run, s.runs, label, &r);
            p.runs.push(r);
        }
    }
    let propagation = if cfg.propagation {
        let mut api = Api::login(&cp_addr)?;
        let p = propagation::run(&mut api, &big, cfg.propagation_samples)?;
        eprintln!(
            "propagation: p50 {:.1} ms, p99 {:.1} ms ({} failed)",
            p.p50_ms, p.p99_ms, p.failed
        );
        Some(p)
    } else {
        None
    };
    Ok(Scale {
        tokens: n,
        setup_seconds: seeded.seconds,
        setup_calls: seeded.calls,
        setup_threads: SEED_THREADS,
        ready_seconds: big.ready_after.map_or(f64::NAN, |d| d.as_secs_f64()),
        idle_rss_kib: big.idle_rss_kib.unwrap_or(0),
        plain_idle_rss_kib: targets
            .iter()
            .find(|t| t.kind == Kind::Gateway)
            .and_then(|t| t.idle_rss_kib),
        keys_verified,
        keys_tried: KEYS_TRIED.min(seeded.keys.len()),
        points,
        churn: churn::combine(&churns),
        propagation,
    })
}
