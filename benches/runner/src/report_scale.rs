//! The results file's sections for issue 21 (performance at scale): idle memory, 16 KiB
//! request bodies, the gateway with many tokens (memory, throughput, balance churn, token
//! propagation), and their headline rows against the issue's goals.

use std::fmt::Write;

use crate::report::{Headline, f, judged, listed, mib, paired, row, verdict};
use crate::results::{Results, Scale, ScalePoint};
use crate::stats::median;
use crate::targets::Kind;

/// Issue 21's goals.
const IDLE_GOAL_MIB: f64 = 40.0;
const TOKENS_RSS_GOAL_MIB: f64 = 40.0;
const TOKENS_THROUGHPUT_GOAL: f64 = 0.95;
const PROPAGATION_P99_GOAL_MS: f64 = 100.0;
const OPEN_LOOP_ADDED_GOAL_MS: f64 = 0.4;
const CONTROL_PLANE_GOAL_US: f64 = 8.0;

/// The open loop's p99 the gateway adds to the mock's own (`gateway_p99`, the gateway's median),
/// at the same rate, judged run by run when the runs pair up.
pub fn open_loop_added(r: &Results, gateway_p99: f64) -> Option<Headline> {
    let point = |k: Kind| r.open.iter().find(|p| p.target == k);
    let of = |k: Kind| point(k).map(|p| p.med(|x| x.p99_ms));
    let mock = of(Kind::Mock)?;
    let per_run = match (point(Kind::Gateway), point(Kind::Mock)) {
        (Some(g), Some(m)) => paired(&g.runs, &m.runs, |x| x.p99_ms, |a, b| a - b),
        _ => Vec::new(),
    };
    let floor = of(Kind::Floor)
        .map(|fl| format!(" (pingora floor: +{} ms)", f(fl - mock, 3)))
        .unwrap_or_default();
    let (added, measured) = judged(
        &per_run,
        "differences",
        gateway_p99 - mock,
        format!(
            "{} − {} = {} ms",
            f(gateway_p99, 3),
            f(mock, 3),
            f(gateway_p99 - mock, 3)
        ),
        3,
        " ms",
    );
    Some(Headline {
        what: "open-loop p99, gateway − mock direct, same rate".into(),
        goal: format!("≤ {OPEN_LOOP_ADDED_GOAL_MS} ms"),
        measured: format!("{measured}{floor}"),
        verdict: verdict(
            added,
            added <= OPEN_LOOP_ADDED_GOAL_MS,
            format!("+{} ms", f(added - OPEN_LOOP_ADDED_GOAL_MS, 3)),
        ),
    })
}

/// The control plane's CPU per request the gateway relayed (ingest and config pushes), in the
/// non-stream closed loop at `c`.
pub fn control_plane_cpu(r: &Results, c: usize) -> Option<Headline> {
    let p = r.closed(Kind::Gateway, "non-stream chat", c)?;
    let us = p.med(|x| x.control_plane_us_per_req.unwrap_or(f64::NAN));
    Some(Headline {
        what: format!("control-plane CPU per relayed request, non-stream, c={c}"),
        goal: format!("≤ {CONTROL_PLANE_GOAL_US} µs"),
        measured: format!("{} µs", f(us, 1)),
        verdict: verdict(
            us,
            us <= CONTROL_PLANE_GOAL_US,
            format!("{} × the goal", f(us / CONTROL_PLANE_GOAL_US, 2)),
        ),
    })
}

/// Time to the first event of thousands of streams at once: the gateway against the floor.
pub fn streams_ttfb(r: &Results) -> Option<Headline> {
    let p50s = |k: Kind| -> Vec<f64> {
        r.streams
            .iter()
            .filter(|s| s.target == k)
            .map(|s| s.streams.ttfb_p50_ms)
            .collect()
    };
    let (g, fl) = (p50s(Kind::Gateway), p50s(Kind::Floor));
    if g.is_empty() || fl.is_empty() {
        return None;
    }
    let open = r
        .streams
        .iter()
        .filter(|s| s.target == Kind::Gateway)
        .map(|s| s.streams.peak_open)
        .max()
        .unwrap_or(0);
    let (gt, ft) = (median(g.iter().copied()), median(fl.iter().copied()));
    let runs = |v: &[f64]| v.iter().map(|x| f(*x, 2)).collect::<Vec<_>>().join(", ");
    let of_runs = if g.len() > 1 {
        format!(" (medians of runs {} vs {})", runs(&g), runs(&fl))
    } else {
        String::new()
    };
    // The targets take turns within each run: the gateway's run against the floor's.
    let ttfb = |k: Kind, run: usize| {
        r.streams
            .iter()
            .find(|s| s.target == k && s.run == run)
            .map(|s| s.streams.ttfb_p50_ms)
    };
    let per_run: Vec<f64> = r
        .streams
        .iter()
        .filter(|s| s.target == Kind::Gateway)
        .filter_map(|s| Some(s.streams.ttfb_p50_ms / ttfb(Kind::Floor, s.run)?))
        .collect();
    let (ratio, measured) = judged(
        &per_run,
        "ratios",
        gt / ft,
        format!("{} vs {} ms{of_runs}", f(gt, 2), f(ft, 2)),
        2,
        " × the floor",
    );
    Some(Headline {
        what: format!(
            "streams at scale ({open} open): time to first event p50, gateway vs pingora floor"
        ),
        goal: "≤ floor".into(),
        measured,
        verdict: verdict(ratio, ratio <= 1.0, format!("{} × the floor", f(ratio, 2))),
    })
}

/// `100000` as `100 000`.
pub fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

fn kib_to_mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn idle_of(r: &Results, k: Kind) -> Option<u64> {
    r.idle.iter().find(|i| i.target == k).map(|i| i.rss_kib)
}

/// The plain and the many-token rows without churn, and the many-token row with it.
fn rows(
    s: &Scale,
) -> (
    Option<&ScalePoint>,
    Option<&ScalePoint>,
    Option<&ScalePoint>,
) {
    let plain = s.points.iter().find(|p| p.tokens == 1);
    let big = s.points.iter().find(|p| p.tokens > 1 && !p.churn);
    let churn = s.points.iter().find(|p| p.churn);
    (plain, big, churn)
}

/// Throughput of `a` ÷ that of `b`, run by run (the points run back to back within each run,
/// so a ratio compares them on the same machine state), and the median of those ratios; with
/// the per-run ratios listed as `r1, r2, …`. A ratio of medians could pair one point's good
/// run with the other's bad one.
pub fn paired_ratio(a: &ScalePoint, b: &ScalePoint) -> (f64, String) {
    let ratios = paired(&a.runs, &b.runs, |x| x.rps, |x, y| x / y);
    (median(ratios.iter().copied()), listed(&ratios, 3))
}

/// Headline rows of the scale scenarios.
pub fn headlines(r: &Results) -> Vec<Headline> {
    let mut out = Vec::new();
    if let Some(g) = idle_of(r, Kind::Gateway) {
        let m = kib_to_mib(g);
        let floor = idle_of(r, Kind::Floor)
            .map(|fl| format!(" (pingora floor {} MiB)", mib(fl)))
            .unwrap_or_default();
        out.push(Headline {
            what: "idle RSS, gateway following its control plane, `--threads 1`, no request yet"
                .into(),
            goal: format!("≤ {IDLE_GOAL_MIB} MiB"),
            measured: format!("{} MiB{floor}", mib(g)),
            verdict: verdict(
                m,
                m <= IDLE_GOAL_MIB,
                format!("{} MiB over", f(m - IDLE_GOAL_MIB, 1)),
            ),
        });
    }
    let Some(s) = &r.scale else {
        return out;
    };
    let n = grouped(s.tokens);
    if let Some(plain) = s.plain_idle_rss_kib {
        let added = kib_to_mib(s.idle_rss_kib) - kib_to_mib(plain);
        out.push(Headline {
            what: format!("idle RSS with {n} tokens loaded − idle RSS with 1 token"),
            goal: format!("≤ {TOKENS_RSS_GOAL_MIB} MiB"),
            measured: format!(
                "{} − {} = {} MiB",
                mib(s.idle_rss_kib),
                mib(plain),
                f(added, 1)
            ),
            verdict: verdict(
                added,
                added <= TOKENS_RSS_GOAL_MIB,
                format!("{} MiB over", f(added - TOKENS_RSS_GOAL_MIB, 1)),
            ),
        });
    }
    let (plain, big, churn) = rows(s);
    if let (Some(p), Some(b)) = (plain, big) {
        let (ratio, per_run) = paired_ratio(b, p);
        out.push(Headline {
            what: format!(
                "throughput with {n} tokens ÷ with 1 token, non-stream, c={}",
                b.conns
            ),
            goal: format!("≥ {TOKENS_THROUGHPUT_GOAL}"),
            measured: format!(
                "{} (median of the runs' ratios {per_run}; medians {} ÷ {} req/s); per CPU-second: {} ÷ {} µs/req = {}",
                f(ratio, 3),
                f(b.med(|x| x.rps), 0),
                f(p.med(|x| x.rps), 0),
                f(p.med(|x| x.cpu_us_per_req), 1),
                f(b.med(|x| x.cpu_us_per_req), 1),
                f(p.med(|x| x.cpu_us_per_req) / b.med(|x| x.cpu_us_per_req), 3)
            ),
            verdict: verdict(
                ratio,
                ratio >= TOKENS_THROUGHPUT_GOAL,
                format!("{} below", f(TOKENS_THROUGHPUT_GOAL - ratio, 3)),
            ),
        });
    }
    if let (Some(b), Some(c)) = (big, churn) {
        let (ratio, per_run) = paired_ratio(c, b);
        out.push(Headline {
            what: format!(
                "throughput with balance churn ÷ without, {n} tokens, non-stream, c={}",
                c.conns
            ),
            goal: "reported".into(),
            measured: format!(
                "{} (median of the runs' ratios {per_run}; medians {} ÷ {} req/s); per CPU-second: {} ÷ {} µs/req = {}",
                f(ratio, 3),
                f(c.med(|x| x.rps), 0),
                f(b.med(|x| x.rps), 0),
                f(b.med(|x| x.cpu_us_per_req), 1),
                f(c.med(|x| x.cpu_us_per_req), 1),
                f(b.med(|x| x.cpu_us_per_req) / c.med(|x| x.cpu_us_per_req), 3)
            ),
            verdict: "reported".into(),
        });
    }
    if let Some(p) = &s.propagation {
        out.push(Headline {
            what: format!(
                "new token: `POST /api/token/` sent → first 200 through the gateway, {n} tokens loaded (p99 of {})",
                p.samples
            ),
            goal: format!("p99 ≤ {PROPAGATION_P99_GOAL_MS} ms"),
            measured: format!("p50 {} ms, p99 {} ms", f(p.p50_ms, 1), f(p.p99_ms, 1)),
            verdict: if p.failed > 0 {
                format!("**missed** ({} never accepted)", p.failed)
            } else {
                verdict(
                    p.p99_ms,
                    p.p99_ms <= PROPAGATION_P99_GOAL_MS,
                    format!("{} ms over", f(p.p99_ms - PROPAGATION_P99_GOAL_MS, 1)),
                )
            },
        });
    }
    out
}

/// Idle memory of the gateway and the floor.
pub fn idle_section(out: &mut String, r: &Results) {
    if r.idle.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n## Idle memory\n\nVmRSS of the process tree {} s after it is ready, before any request: the gateway \
         (`--threads 1`) once `/readyz` says its first snapshot arrived from the control plane over gRPC \
         (the control plane itself is not counted), the pingora floor once it listens.\n",
        crate::idle::SETTLE.as_secs()
    );
    let _ = writeln!(
        out,
        "| target | idle RSS MiB | ready after s |\n|---|---|---|"
    );
    for i in &r.idle {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            i.target,
            mib(i.rss_kib),
            i.ready_seconds.map_or("–".into(), |s| f(s, 2))
        );
    }
}

/// Non-stream chat with a 16 KiB request.
pub fn body16k_section(out: &mut String, r: &Results) {
    let Some(first) = r.body16k.first() else {
        return;
    };
    let _ = writeln!(
        out,
        "\n## Closed loop (wrk, one thread): non-stream chat, 16 KiB request\n\n\
         The non-stream chat workload with a request body of {} bytes (one user message of \
         English-like text), the same 20-word answer; c = {}.\n",
        crate::targets::BIG_BODY_BYTES,
        first.conns
    );
    let _ = writeln!(
        out,
        "| target | req/s | p50 ms | p99 ms | CPU µs/req (min–max) | req per CPU-s | peak RSS MiB | control plane µs/req | mock µs/req | errors | load avg |\n|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for p in &r.body16k {
        row(out, p, false);
    }
}

/// The header of a table of [`point_row`]s.
pub const POINT_HEADER: &str = "| gateway | conc. | req/s | p50 ms | p99 ms | CPU µs/req (min–max) | peak RSS MiB | control plane µs/req | errors | load avg |\n|---|---|---|---|---|---|---|---|---|---|";

/// One closed-loop row of the scale or users table: medians of the runs.
pub fn point_row(out: &mut String, p: &ScalePoint) {
    let (lo, hi) = p
        .runs
        .iter()
        .map(|x| x.cpu_us_per_req)
        .fold((f64::NAN, f64::NAN), |(lo, hi), x| (lo.min(x), hi.max(x)));
    let errors: u64 = p.runs.iter().map(|x| x.errors).sum();
    let _ = writeln!(
        out,
        "| {} | {} | {} | {} | {} | {} ({}–{}) | {} | {} | {} | {} |",
        p.label,
        p.conns,
        f(p.med(|x| x.rps), 0),
        f(p.med(|x| x.p50_ms), 3),
        f(p.med(|x| x.p99_ms), 3),
        f(p.med(|x| x.cpu_us_per_req), 1),
        f(lo, 1),
        f(hi, 1),
        mib(p.med(|x| x.peak_rss_kib as f64) as u64),
        f(p.med(|x| x.control_plane_us_per_req.unwrap_or(f64::NAN)), 1),
        errors,
        f(p.med(|x| x.load_avg), 2)
    );
}

/// The gateway with many tokens.
pub fn scale_section(out: &mut String, r: &Results) {
    let Some(s) = &r.scale else {
        return;
    };
    let n = grouped(s.tokens);
    let _ = writeln!(
        out,
        "\n## Many tokens: {n}\n\n\
         A second gateway, started like the plain one (its own control plane, Redis and channels), whose \
         control plane holds {n} tokens besides the benchmark's own: limited balances, owned by root, created \
         through the REST API before the gateway starts (`POST /api/token/` with `count` = 100, {} client \
         threads with kept-alive connections: {} calls in {} s), so they reach the gateway in its first \
         snapshot over the gRPC feed. The gateway was ready (`/readyz`) {} s after it started; {} of {} \
         created keys tried at random were answered 200 through it.\n",
        s.setup_threads,
        s.setup_calls,
        f(s.setup_seconds, 1),
        f(s.ready_seconds, 2),
        s.keys_verified,
        s.keys_tried
    );
    let _ = writeln!(
        out,
        "| idle RSS MiB, {n} tokens | idle RSS MiB, 1 token | added MiB |\n|---|---|---|\n| {} | {} | {} |\n",
        mib(s.idle_rss_kib),
        s.plain_idle_rss_kib.map_or("–".into(), mib),
        s.plain_idle_rss_kib.map_or("–".into(), |p| f(
            kib_to_mib(s.idle_rss_kib) - kib_to_mib(p),
            1
        )),
    );
    if !s.points.is_empty() {
        let _ = writeln!(
            out,
            "Closed loop, non-stream chat with the benchmark's token, the rows interleaved in each repetition. \
             With churn, a thread of the runner edits balances through the REST API at a fixed rate during the \
             whole measurement, alternating a random seeded token's balance (`PUT /api/token/`) and root's \
             (`PUT /api/user/` with `quota_delta`; root owns every token), so config deltas reach the gateway \
             all along.{}\n",
            s.churn.as_ref().map_or(String::new(), |c| format!(
                " Edits done: {} token and {} user edits in {} s ({} a second, {} asked), {} failed, a call's median {} ms.",
                c.token_edits,
                c.user_edits,
                f(c.seconds, 1),
                f(c.done_per_second(), 1),
                f(c.rate, 0),
                c.failed,
                f(c.call_p50_ms, 1)
            ))
        );
        let _ = writeln!(out, "{POINT_HEADER}");
        for p in &s.points {
            point_row(out, p);
        }
    }
    if let Some(p) = &s.propagation {
        let _ = writeln!(
            out,
            "\n### Token propagation, {n} tokens loaded\n\n\
             {} {} times: a new unlimited token created with `POST /api/token/`, then a chat request with it sent \
             through the gateway every {} ms (kept-alive connection) until one is answered 200 (refused before). \
             The time runs from just before the API call, so it includes the call; the samples are spaced by a \
             random 20–120 ms, out of step with the control plane's change poll. No other traffic.\n",
            if p.quiet {
                format!(
                    "Once the gateway and its control plane were quiet after the load ({} s later: the usage of \
                     the load ingested; the wait ends when both use under 4 % of a CPU over half a second),",
                    f(p.quiet_after_seconds, 1)
                )
            } else {
                format!(
                    "After waiting {} s for the gateway and its control plane to go quiet after the load \
                     (**they were still busy**: the figures include that work),",
                    f(p.quiet_after_seconds, 1)
                )
            },
            p.samples,
            f(p.poll_ms, 0)
        );
        let _ = writeln!(
            out,
            "| samples | never accepted (10 s) | p50 ms | p99 ms | max ms | API call p50 ms | API call p99 ms | after the API's answer: p50 ms | p99 ms |\n|---|---|---|---|---|---|---|---|---|\n| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            p.samples,
            p.failed,
            f(p.p50_ms, 1),
            f(p.p99_ms, 1),
            f(p.max_ms, 1),
            f(p.api_p50_ms, 1),
            f(p.api_p99_ms, 1),
            f(p.after_api_p50_ms, 1),
            f(p.after_api_p99_ms, 1)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{IdleRss, Propagation, Run};

    fn streams_run(target: Kind, run: usize, ttfb_p50_ms: f64) -> crate::results::StreamsPoint {
        crate::results::StreamsPoint {
            target,
            run,
            idle_rss_kib: 1024,
            peak_rss_kib: 2048,
            cpu_seconds: 1.0,
            streams: crate::streams::Streams {
                started: 9000,
                completed: 9000,
                peak_open: 9000,
                ttfb_p50_ms,
                ttfb_p99_ms: ttfb_p50_ms * 3.0,
            },
            load_avg: 1.0,
            budget_calls: None,
        }
    }

    #[test]
    fn streams_are_compared_with_the_floor_run_by_run() -> anyhow::Result<()> {
        let mut r = Results::empty_quick_run();
        // The floor's run 3 was quiet and the gateway's busy: 0.5, 0.8 and 20 × run by run.
        for (run, g, fl) in [(1, 100.0, 200.0), (2, 80.0, 100.0), (3, 400.0, 20.0)] {
            r.streams.push(streams_run(Kind::Floor, run, fl));
            r.streams.push(streams_run(Kind::Gateway, run, g));
        }
        let h = anyhow::Context::context(streams_ttfb(&r), "both targets measured")?;
        assert_eq!(
            h.measured,
            "0.80 × the floor (median of the runs' ratios 0.50, 0.80, 20.00; medians: 100.00 vs 100.00 ms (medians of runs 100.00, 80.00, 400.00 vs 200.00, 100.00, 20.00))"
        );
        assert_eq!(h.verdict, "**met**");
        // Slower than the floor in two runs of three: missed.
        r.streams[1].streams.ttfb_p50_ms = 300.0;
        let h = anyhow::Context::context(streams_ttfb(&r), "both targets measured")?;
        assert!(
            h.verdict.starts_with("**missed** (1.50 × the floor"),
            "{}",
            h.verdict
        );
        Ok(())
    }

    fn point(label: &str, tokens: usize, churn: bool, rps: f64, cpu: f64) -> ScalePoint {
        let run = Run {
            requests: 1000,
            errors: 0,
            rps,
            p50_ms: 1.0,
            p99_ms: 2.0,
            cpu_us_per_req: cpu,
            control_plane_us_per_req: Some(10.0),
            mock_us_per_req: 5.0,
            peak_rss_kib: 50 * 1024,
            load_avg: 1.0,
            steal_pct: None,
            budget_calls: None,
        };
        ScalePoint {
            label: label.into(),
            tokens,
            churn,
            conns: 50,
            runs: vec![run],
        }
    }

    #[test]
    fn scale_figures_are_judged_against_the_issue() {
        let scale = Scale {
            tokens: 100_000,
            setup_seconds: 20.0,
            setup_calls: 1000,
            setup_threads: 4,
            ready_seconds: 1.5,
            idle_rss_kib: 80 * 1024,
            plain_idle_rss_kib: Some(30 * 1024),
            keys_verified: 20,
            keys_tried: 20,
            points: vec![
                point("plain", 1, false, 10_000.0, 50.0),
                point("big", 100_000, false, 9_800.0, 51.0),
                point("churn", 100_000, true, 9_000.0, 55.0),
            ],
            churn: None,
            propagation: Some(Propagation {
                samples: 100,
                quiet_after_seconds: 1.0,
                quiet: true,
                failed: 0,
                poll_ms: 2.0,
                p50_ms: 60.0,
                p99_ms: 120.0,
                max_ms: 130.0,
                api_p50_ms: 15.0,
                api_p99_ms: 40.0,
                after_api_p50_ms: 45.0,
                after_api_p99_ms: 105.0,
            }),
        };
        let mut r = Results::empty_quick_run();
        r.idle = vec![IdleRss {
            target: Kind::Gateway,
            rss_kib: 30 * 1024,
            ready_seconds: Some(0.2),
        }];
        r.scale = Some(scale);
        let h = headlines(&r);
        assert_eq!(h.len(), 5);
        assert_eq!(h[0].verdict, "**met**");
        // 80 − 30 = 50 MiB added: over the 40 MiB goal.
        assert!(h[1].verdict.starts_with("**missed**"), "{}", h[1].verdict);
        assert!(
            h[2].measured.starts_with("0.980 (median"),
            "{}",
            h[2].measured
        );
        assert_eq!(h[2].verdict, "**met**");
        assert_eq!(h[3].verdict, "reported");
        assert!(h[4].verdict.starts_with("**missed**"), "{}", h[4].verdict);
        let text = crate::report::render(&r);
        assert!(text.contains("## Many tokens: 100 000"));
        assert_eq!(
            (grouped(0), grouped(999), grouped(1000)),
            ("0".into(), "999".into(), "1 000".into())
        );
        assert!(text.contains("## Idle memory"));
    }

    #[test]
    fn throughput_with_many_tokens_is_compared_run_by_run() {
        // Run 2 is slow for both, run 3 only for the many-token gateway: the ratio of the
        // medians (11 000 ÷ 13 000 = 0.846) pairs the plain gateway's good run with the other's
        // bad one; the runs' own ratios are 1.000, 1.000 and 0.846.
        let with_runs = |label: &str, tokens: usize, rps: &[f64]| {
            let mut p = point(label, tokens, false, rps[0], 60.0);
            p.runs = rps
                .iter()
                .map(|r| Run {
                    rps: *r,
                    ..p.runs[0].clone()
                })
                .collect();
            p
        };
        let plain = with_runs("plain", 1, &[13_000.0, 7_000.0, 13_000.0]);
        let big = with_runs("big", 100_000, &[13_000.0, 7_000.0, 11_000.0]);
        let (ratio, listed) = paired_ratio(&big, &plain);
        assert!((ratio - 1.0).abs() < 1e-9, "{ratio}");
        assert_eq!(listed, "1.000, 1.000, 0.846");
    }
}
