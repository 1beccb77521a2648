//! The scenarios: closed loop (wrk) and open loop (oha) points with CPU and memory measured
//! around each run, requests held in flight by a slow mock, and thousands of paced streams.
//! Repetitions are interleaved across targets so background load hits them alike.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::budget_calls::BudgetCalls;
use crate::load::{self, Load};
use crate::procs::{self, RssSampler};
use crate::quiet;
use crate::results::{InFlight, Point, Run, Settings, StreamsPoint};
use crate::streams;
use crate::targets::{Target, Workload};

/// Tools and settings shared by the scenarios.
pub struct Bench {
    pub wrk: PathBuf,
    pub oha: Option<PathBuf>,
    pub work: PathBuf,
    pub mock_pid: u32,
    pub settings: Settings,
    pub paced: Workload,
}

fn ticks_or_zero(pid: Option<u32>) -> u64 {
    pid.map_or(0, procs::tree_ticks)
}

impl Bench {
    /// Runs `load` against `t`, measuring CPU of the target, its control plane and the mock,
    /// and the target's peak RSS.
    fn measure(
        &self,
        t: &Target,
        load: impl FnOnce() -> anyhow::Result<Load>,
    ) -> anyhow::Result<Run> {
        let hz = procs::clock_ticks() as f64;
        // Read outside the CPU window: serving `/metrics` is not the run's work.
        let calls_before = t.admin_addr.as_deref().and_then(BudgetCalls::read);
        let before = (
            procs::tree_ticks(t.pid),
            ticks_or_zero(t.control_plane_pid),
            procs::tree_ticks(self.mock_pid),
        );
        let steal_before = procs::steal_ticks();
        let started = Instant::now();
        let sampler = RssSampler::start(&[t.pid]);
        let result = load();
        let peak = sampler.finish()[0];
        let wall = started.elapsed();
        let steal_pct = self.steal_pct(&steal_before, &procs::steal_ticks(), hz, wall);
        let after = (
            procs::tree_ticks(t.pid),
            ticks_or_zero(t.control_plane_pid),
            procs::tree_ticks(self.mock_pid),
        );
        let calls_after = t.admin_addr.as_deref().and_then(BudgetCalls::read);
        let l = result?;
        let per_req = |a: u64, b: u64| {
            if l.requests == 0 {
                f64::NAN
            } else {
                a.saturating_sub(b) as f64 / hz * 1e6 / l.requests as f64
            }
        };
        Ok(Run {
            requests: l.requests,
            errors: l.errors,
            rps: l.rps(),
            p50_ms: l.p50_ms,
            p99_ms: l.p99_ms,
            cpu_us_per_req: per_req(after.0, before.0),
            control_plane_us_per_req: t.control_plane_pid.map(|_| per_req(after.1, before.1)),
            mock_us_per_req: per_req(after.2, before.2),
            peak_rss_kib: peak,
            load_avg: procs::load_average(),
            budget_calls: calls_before.zip(calls_after).map(|(b, a)| a.since(b)),
            steal_pct,
        })
    }

    /// The larger share of `wall` stolen from the target's or the load generator's CPU between
    /// two readings of [`procs::steal_ticks`], in %.
    fn steal_pct(&self, before: &[u64], after: &[u64], hz: f64, wall: Duration) -> Option<f64> {
        let cpus = [self.settings.target_cpu, self.settings.load_cpu];
        let stolen = cpus
            .iter()
            .filter_map(|&c| Some(after.get(c)?.saturating_sub(*before.get(c)?)))
            .max()?;
        Some(stolen as f64 / hz / wall.as_secs_f64().max(1e-3) * 100.0)
    }

    /// One closed-loop run of `w` against `t`, measured.
    pub fn wrk(&self, t: &Target, w: Workload, conns: usize, secs: u64) -> anyhow::Result<Run> {
        let req = t.request(w);
        let cpu = self.settings.load_cpu;
        self.measure(t, || {
            load::wrk(&self.wrk, &req, &[], conns, secs, cpu, &self.work)
        })
    }

    /// One closed-loop run of non-stream chat against `t`, the requests authenticated with each
    /// of `keys` in turn (none: the target's own key), measured.
    pub fn wrk_rotating(
        &self,
        t: &Target,
        keys: &[String],
        conns: usize,
        secs: u64,
    ) -> anyhow::Result<Run> {
        let req = t.request(Workload::Chat);
        let cpu = self.settings.load_cpu;
        self.measure(t, || {
            load::wrk(&self.wrk, &req, keys, conns, secs, cpu, &self.work)
        })
    }

    /// A short unrecorded run of each workload per target (pools, caches, JIT).
    pub fn warm_up(&self, targets: &[Target]) -> anyhow::Result<()> {
        for t in targets {
            for w in [Workload::Chat, Workload::Stream] {
                eprintln!("warm-up: {} {}", t.kind, w.label());
                self.wrk(t, w, 50, 2)?;
            }
        }
        Ok(())
    }

    /// Every target × workload × concurrency, `runs` times, interleaved.
    pub fn closed_loop(&self, targets: &[Target]) -> anyhow::Result<Vec<Point>> {
        let s = &self.settings;
        let mut points = Vec::new();
        for w in [Workload::Chat, Workload::Stream] {
            for &c in &s.concurrency {
                for t in targets {
                    points.push(Point {
                        target: t.kind,
                        workload: w.label(),
                        conns: c,
                        rate: None,
                        runs: vec![],
                    });
                }
            }
        }
        for run in 1..=s.runs {
            let mut i = 0;
            for w in [Workload::Chat, Workload::Stream] {
                for &c in &s.concurrency {
                    for t in targets {
                        let r = self.wrk(t, w, c, s.seconds)?;
                        eprintln!(
                            "run {run}/{}: {} {} c={c}: {:.0} req/s, p50 {:.3} ms, p99 {:.3} ms, {:.1} µs CPU/req, {} errors",
                            s.runs,
                            t.kind,
                            w.label(),
                            r.rps,
                            r.p50_ms,
                            r.p99_ms,
                            r.cpu_us_per_req,
                            r.errors
                        );
                        points[i].runs.push(r);
                        i += 1;
                    }
                }
            }
        }
        Ok(points)
    }

    /// Non-stream chat with a 16 KiB request body at `conns`, against the relays (not the
    /// peers, not the gateway's other views), `runs` times interleaved, after a warm-up.
    pub fn body16k(&self, targets: &[Target], conns: usize) -> anyhow::Result<Vec<Point>> {
        let s = &self.settings;
        let measured: Vec<&Target> = targets
            .iter()
            .filter(|t| !t.kind.is_peer() && !t.kind.is_gateway_view())
            .collect();
        let w = Workload::BigChat;
        let mut points: Vec<Point> = measured
            .iter()
            .map(|t| Point {
                target: t.kind,
                workload: w.label(),
                conns,
                rate: None,
                runs: vec![],
            })
            .collect();
        for t in &measured {
            eprintln!("warm-up: {} {}", t.kind, w.label());
            self.wrk(t, w, conns, 2)?;
        }
        for run in 1..=s.runs {
            for (t, p) in measured.iter().zip(points.iter_mut()) {
                let r = self.wrk(t, w, conns, s.seconds)?;
                eprintln!(
                    "run {run}/{}: {} {} c={conns}: {:.0} req/s, p50 {:.3} ms, {:.1} µs CPU/req, {} errors",
                    s.runs,
                    t.kind,
                    w.label(),
                    r.rps,
                    r.p50_ms,
                    r.cpu_us_per_req,
                    r.errors
                );
                p.runs.push(r);
            }
        }
        Ok(points)
    }

    /// A fixed arrival rate against the targets that can sustain it (not the peers). The
    /// converted gateway runs too: at one rate, CPU per request compares with the same-dialect
    /// gateway's without the throughput difference of the closed loop.
    pub fn open_loop(&self, targets: &[Target]) -> anyhow::Result<Vec<Point>> {
        let Some(oha) = &self.oha else {
            return Ok(vec![]);
        };
        let s = &self.settings;
        let rated: Vec<&Target> = targets
            .iter()
            .filter(|t| {
                !t.kind.is_peer() && (t.kind.is_gateway_view() || !t.kind.closed_loop_only())
            })
            .collect();
        let mut points: Vec<Point> = rated
            .iter()
            .map(|t| Point {
                target: t.kind,
                workload: Workload::Chat.label(),
                conns: 100,
                rate: Some(s.rate),
                runs: vec![],
            })
            .collect();
        let (mut round, mut quiet) = (0, 0);
        while quiet < s.runs && round < quiet::ROUNDS_PER_RUN * s.runs {
            round += 1;
            for (t, p) in rated.iter().zip(points.iter_mut()) {
                let req = t.request(Workload::Chat);
                let r = self.measure(t, || {
                    load::oha(oha, &req, s.rate, p.conns, s.seconds, s.load_cpu)
                })?;
                let waits = r
                    .budget_calls
                    .map(|c| format!(", {} waited for Redis", c.waited))
                    .unwrap_or_default();
                let stolen = r
                    .steal_pct
                    .map(|s| format!(", {s:.1} % stolen"))
                    .unwrap_or_default();
                eprintln!(
                    "open loop round {round} ({quiet} quiet of {} so far): {} at {} req/s: done {:.0} req/s, p50 {:.3} ms, p99 {:.3} ms, {:.1} µs CPU/req{waits}{stolen}",
                    s.runs, t.kind, s.rate, r.rps, r.p50_ms, r.p99_ms, r.cpu_us_per_req
                );
                p.runs.push(r);
            }
            let last: Vec<&Run> = points.iter().filter_map(|p| p.runs.last()).collect();
            if last.iter().all(|r| quiet::run_is_quiet(r, s.max_steal_pct)) {
                quiet += 1;
            } else {
                eprintln!("open loop round {round} was disturbed (steal over the limit): repeated");
            }
        }
        Ok(points)
    }

    /// `in_flight` connections each holding a request the mock answers after 2 s.
    pub fn in_flight(&self, targets: &[Target]) -> anyhow::Result<Vec<InFlight>> {
        let n = self.settings.in_flight;
        let mut out = Vec::new();
        for t in targets.iter().filter(|t| !t.kind.closed_loop_only()) {
            std::thread::sleep(Duration::from_secs(1));
            let idle = procs::tree_rss_kib(t.pid);
            let r = self.wrk(t, Workload::Slow, n, 7)?;
            eprintln!(
                "in flight: {} {n} held: idle {} KiB, peak {} KiB, {} answered, {} errors",
                t.kind, idle, r.peak_rss_kib, r.requests, r.errors
            );
            out.push(InFlight {
                target: t.kind,
                conns: n,
                idle_rss_kib: idle,
                peak_rss_kib: r.peak_rss_kib,
                requests: r.requests,
                errors: r.errors,
                load_avg: r.load_avg,
            });
        }
        Ok(out)
    }

    /// Thousands of paced streams at once against the targets built for it (not the peers),
    /// repeated `runs` times with the targets interleaved, like the closed loop: one run of
    /// this scenario moves with the machine (see benches/results/2026-12-01-streams-1.md).
    pub fn streams(&self, targets: &[Target]) -> anyhow::Result<Vec<StreamsPoint>> {
        let n = self.settings.streams;
        let runs = self.settings.runs;
        let hz = procs::clock_ticks() as f64;
        let measured: Vec<&Target> = targets
            .iter()
            .filter(|t| !t.kind.is_peer() && !t.kind.closed_loop_only())
            .collect();
        let mut out = Vec::new();
        for run in 1..=runs {
            for t in &measured {
                std::thread::sleep(Duration::from_secs(2));
                // Read outside the CPU window, as in the other runs.
                let calls_before = t.admin_addr.as_deref().and_then(BudgetCalls::read);
                let idle = procs::tree_rss_kib(t.pid);
                let before = procs::tree_ticks(t.pid);
                let sampler = RssSampler::start(&[t.pid]);
                let result = streams::run(
                    &t.request(self.paced),
                    n,
                    self.settings.streams_per_second,
                    Duration::from_secs(120),
                );
                let peak = sampler.finish()[0];
                let cpu_seconds = procs::tree_ticks(t.pid).saturating_sub(before) as f64 / hz;
                let calls_after = t.admin_addr.as_deref().and_then(BudgetCalls::read);
                let budget_calls = calls_before.zip(calls_after).map(|(b, a)| a.since(b));
                let st = result?;
                let waits = budget_calls
                    .map(|c| format!(", {} waited for Redis", c.waited))
                    .unwrap_or_default();
                eprintln!(
                    "streams run {run}/{runs}: {} {} started, {} open at once, {} completed, TTFB p50 {:.2} ms p99 {:.2} ms, idle {} KiB peak {} KiB{waits}",
                    t.kind,
                    st.started,
                    st.peak_open,
                    st.completed,
                    st.ttfb_p50_ms,
                    st.ttfb_p99_ms,
                    idle,
                    peak
                );
                out.push(StreamsPoint {
                    target: t.kind,
                    run,
                    idle_rss_kib: idle,
                    peak_rss_kib: peak,
                    cpu_seconds,
                    streams: st,
                    load_avg: procs::load_average(),
                    budget_calls,
                });
            }
        }
        Ok(out)
    }
}
