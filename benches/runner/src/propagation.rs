//! Propagation: how long a token created through the REST API takes to be accepted by the
//! gateway. Each sample creates one token (`POST /api/token/`) and sends a chat request with it
//! through the gateway every few milliseconds until one is answered 200.

use std::time::{Duration, Instant};

use anyhow::Context;

use crate::cp_api::Api;
use crate::http::Conn;
use crate::procs;
use crate::results::Propagation;
use crate::stats::{Rng, percentile};
use crate::streams::split_url;
use crate::targets::{Target, Workload};

/// Time between two requests with the new token.
pub const POLL: Duration = Duration::from_millis(2);
/// A sample not accepted after this long counts as failed.
const LIMIT: Duration = Duration::from_secs(10);

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Longest wait for quiet before the samples.
const QUIET_LIMIT: Duration = Duration::from_secs(180);

/// Waits (at most `limit`) until the process trees of `pids` use less than 4 % of a CPU over
/// half a second; how long that took, and whether they went quiet.
fn wait_quiet(pids: &[u32], limit: Duration) -> (Duration, bool) {
    let start = Instant::now();
    let window = Duration::from_millis(500);
    let quiet_ticks = procs::clock_ticks() / 50;
    while start.elapsed() < limit {
        let before: u64 = pids.iter().map(|p| procs::tree_ticks(*p)).sum();
        std::thread::sleep(window);
        let after: u64 = pids.iter().map(|p| procs::tree_ticks(*p)).sum();
        if after.saturating_sub(before) <= quiet_ticks {
            return (start.elapsed(), true);
        }
    }
    (start.elapsed(), false)
}

/// Takes `samples` samples against the gateway `t` (its control plane through `api`), once it
/// and its control plane are quiet.
pub fn run(api: &mut Api, t: &Target, samples: usize) -> anyhow::Result<Propagation> {
    let pids: Vec<u32> = std::iter::once(t.pid).chain(t.control_plane_pid).collect();
    let (waited, quiet) = wait_quiet(&pids, QUIET_LIMIT);
    let probe = t.request(Workload::Chat);
    let (addr, path) = split_url(&probe.url).context("unsupported gateway URL")?;
    let mut gateway = Conn::new(addr, Duration::from_secs(10));
    let mut rng = Rng::new(0x9E0);
    let (mut total, mut api_calls, mut after_api) = (Vec::new(), Vec::new(), Vec::new());
    let mut failed = 0;
    for i in 0..samples {
        // Out of step with the control plane's change poll, so samples cover its whole period.
        std::thread::sleep(Duration::from_millis(20 + rng.below(100)));
        let t0 = Instant::now();
        let created = api.create_tokens(&format!("propagation-{i}"), 1, None)?;
        let answered = t0.elapsed();
        let key = created.first().map(|c| c.key.clone()).unwrap_or_default();
        let req = t.request_as(Workload::Chat, &key);
        let headers: Vec<(&str, &str)> = req
            .headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let mut polls: u32 = 0;
        let accepted = loop {
            let status = gateway
                .send("POST", path, &headers, req.body.as_bytes())
                .map_or(0, |a| a.status);
            if status == 200 {
                break Some(t0.elapsed());
            }
            if t0.elapsed() > LIMIT {
                break None;
            }
            polls += 1;
            let next = answered + POLL * polls;
            if let Some(wait) = next.checked_sub(t0.elapsed()) {
                std::thread::sleep(wait);
            }
        };
        match accepted {
            Some(d) => {
                total.push(ms(d));
                api_calls.push(ms(answered));
                after_api.push(ms(d.saturating_sub(answered)));
            }
            None => failed += 1,
        }
    }
    for v in [&mut total, &mut api_calls, &mut after_api] {
        v.sort_by(f64::total_cmp);
    }
    Ok(Propagation {
        samples,
        quiet_after_seconds: waited.as_secs_f64(),
        quiet,
        failed,
        poll_ms: ms(POLL),
        p50_ms: percentile(&total, 50.0),
        p99_ms: percentile(&total, 99.0),
        max_ms: total.last().copied().unwrap_or(f64::NAN),
        api_p50_ms: percentile(&api_calls, 50.0),
        api_p99_ms: percentile(&api_calls, 99.0),
        after_api_p50_ms: percentile(&after_api, 50.0),
        after_api_p99_ms: percentile(&after_api, 99.0),
    })
}
