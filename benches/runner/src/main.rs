//! `bench-runner`: starts the mock provider, the gateway (release, with its control plane, a
//! real channel and token) and the baselines (mock direct, nginx, pingora floor, LiteLLM,
//! Portkey), loads each the same way on the same machine in one run, and writes
//! `benches/results/<date>.md` (plus the raw runs as JSON). See `benches/README.md`.

mod budget_calls;
mod churn;
mod cp_api;
mod hold;
mod http;
mod idle;
mod load;
mod procs;
mod propagation;
mod quiet;
mod report;
mod report_scale;
mod report_users;
mod results;
mod scale;
mod scenarios;
mod setup;
mod stats;
mod streams;
mod targets;
mod tools;
mod users;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::Context;
use clap::Parser;

use crate::results::{Results, Settings, TargetInfo};
use crate::scenarios::Bench;
use crate::targets::{Env, Kind, Target, Workload};

/// Load scenarios for the gateway and its baselines.
#[derive(Parser, Debug)]
#[command(name = "bench-runner")]
struct Args {
    /// Smoke run: 2 s per point, one repetition, 1 000 streams; written under
    /// benches/results/quick/ unless --out is given.
    #[arg(long)]
    quick: bool,
    /// Seconds per load point (default 10, quick 2).
    #[arg(long)]
    seconds: Option<u64>,
    /// Repetitions of every load point; medians are reported (default 3, quick 1).
    #[arg(long)]
    runs: Option<usize>,
    /// Closed-loop concurrencies.
    #[arg(long, value_delimiter = ',', default_value = "1,50,200")]
    concurrency: Vec<usize>,
    /// Open-loop arrival rate, requests/s.
    #[arg(long, default_value_t = 5000)]
    rate: u64,
    /// Requests held in flight for the memory scenario.
    #[arg(long, default_value_t = 1000)]
    in_flight: usize,
    /// Concurrent long-lived streams (default 10 000, quick 1 000).
    #[arg(long)]
    streams: Option<usize>,
    /// New streams opened per second in the streams scenario. At 5 000 (the rate until
    /// 2026-12-04) the stream client and the mock saturated the load core while opening, and
    /// time to first event measured that core's queue (the mock's own p50 reached 415 ms);
    /// at 1 000, 9 000 streams of 10 s are still all open together.
    #[arg(long, default_value_t = 1000)]
    streams_per_second: usize,
    /// Targets, in order: mock, nginx, floor, gateway, gateway-converted, gateway-limited,
    /// litellm, portkey. gateway-limited is the gateway process of `gateway` asked with a
    /// token whose rate limit is counted in Redis (one Redis call per request).
    ///
    /// gateway-converted is the conversion scenario: the gateway process of `gateway` (its
    /// own one when `gateway` is not listed) driven by the same OpenAI chat requests for a
    /// model served by an Anthropic-type channel (type 14) on the mock, so every request,
    /// answer and stream event is converted (OpenAI chat ↔ Anthropic Messages); its rows sit
    /// next to the same-dialect gateway's in the closed-loop tables (non-stream and
    /// streaming chat only), with the added CPU per request and per stream event in the
    /// headline.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "mock,nginx,floor,gateway,gateway-converted,gateway-limited,litellm,portkey"
    )]
    targets: Vec<String>,
    /// Scenarios to leave out: closed, open, inflight, streams, idle (idle RSS at start),
    /// body16k (16 KiB requests), scale (many tokens beside one), churn (balance edits
    /// during load), propagation (a new token's time to the gateway). scale, churn and
    /// propagation share a second gateway with --tokens tokens, started when any of them runs;
    /// users (requests spread over --users users) starts a gateway of its own.
    #[arg(long, value_delimiter = ',')]
    skip: Vec<String>,
    /// Tokens in the control plane of the scale scenarios' gateway (default 100 000, quick
    /// 10 000).
    #[arg(long)]
    tokens: Option<usize>,
    /// Users in the control plane of the users scenario's gateway, one token each, over whom the
    /// load is spread (default 1 000, quick 100).
    #[arg(long)]
    users: Option<usize>,
    /// Balance edits a second during the churn scenario.
    #[arg(long, default_value_t = 50.0)]
    churn_rate: f64,
    /// New tokens timed in the propagation scenario (default 100, quick 20).
    #[arg(long)]
    propagation_samples: Option<usize>,
    /// Results file (default benches/results/<date>.md, or <date>-2.md, -3.md, … when a run of
    /// the day already wrote it).
    #[arg(long)]
    out: Option<PathBuf>,
    /// CPU of the measured process.
    #[arg(long, default_value_t = 1)]
    target_cpu: usize,
    /// CPU of the load generator, the mock and the control plane.
    #[arg(long, default_value_t = 0)]
    load_cpu: usize,
    /// An open-loop round (every target once) counts as quiet when the hypervisor took at most
    /// this share of the target's or the load generator's CPU (steal time, %) in each of its
    /// runs. Disturbed rounds are repeated, up to 3 × --runs rounds in all, and the headline
    /// judges the quiet ones.
    #[arg(long, default_value_t = 1.0)]
    max_steal_pct: f64,
    /// Keep the scratch folder (logs, configs) after the run.
    #[arg(long)]
    keep: bool,
    /// Profiling by hand: start and warm up the targets, print how to reach each one (address,
    /// pids, a curl command per workload), keep them running this many seconds, then stop them
    /// without measuring anything.
    #[arg(long)]
    hold: Option<u64>,
    /// Measure nothing: render the report of an earlier run from its raw `.json` file with the
    /// current report code, to --out when given, otherwise to standard output.
    #[arg(long, value_name = "JSON")]
    render: Option<PathBuf>,
}

/// `--render`: the report of recorded runs, written to `out` or printed.
fn render_recorded(json: &Path, out: Option<&Path>) -> anyhow::Result<()> {
    let raw =
        std::fs::read_to_string(json).with_context(|| format!("reading {}", json.display()))?;
    let results: Results =
        serde_json::from_str(&raw).with_context(|| format!("parsing {}", json.display()))?;
    let report = report::render(&results);
    match out {
        Some(out) => std::fs::write(out, report)?,
        None => print!("{report}"),
    }
    Ok(())
}

fn sh(cmd: &str, args: &[&str]) -> String {
    Command::new(cmd)
        .args(args)
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default()
}

fn machine() -> Vec<(String, String)> {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |text: &str, key: &str| {
        text.lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_owned())
            .unwrap_or_default()
    };
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let os = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
    let pretty = os
        .lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .unwrap_or("")
        .trim_matches('"')
        .to_owned();
    // Counted from /proc/cpuinfo: the runner is pinned to one CPU by now.
    let cpus = cpuinfo
        .lines()
        .filter(|l| l.starts_with("processor"))
        .count();
    vec![
        (
            "CPU".into(),
            format!(
                "{} × {} ({} MHz, flags incl. {})",
                cpus,
                field(&cpuinfo, "model name"),
                field(&cpuinfo, "cpu MHz"),
                if cpuinfo.contains(" avx2") {
                    "avx2"
                } else {
                    "no avx2"
                }
            ),
        ),
        ("Memory".into(), field(&meminfo, "MemTotal")),
        (
            "OS".into(),
            format!("{pretty}, kernel {}", sh("uname", &["-r"])),
        ),
        ("Rust".into(), sh("rustc", &["--version"])),
    ]
}

fn utc_now() -> String {
    sh("date", &["-u", "+%Y-%m-%dT%H:%M:%SZ"])
}

fn parse_kind(name: &str) -> anyhow::Result<Kind> {
    Ok(match name {
        "mock" => Kind::Mock,
        "nginx" => Kind::Nginx,
        "floor" => Kind::Floor,
        "gateway" => Kind::Gateway,
        "gateway-converted" => Kind::GatewayConverted,
        "gateway-limited" => Kind::GatewayLimited,
        "litellm" => Kind::LiteLlm,
        "portkey" => Kind::Portkey,
        other => anyhow::bail!("unknown target {other}"),
    })
}

/// `dir/<date>.md`, or `<date>-2.md`, `<date>-3.md`, … when an earlier run of the day wrote it:
/// a default path never overwrites results.
fn unused_results_path(dir: &std::path::Path, date: &str) -> PathBuf {
    let taken = |p: &std::path::Path| p.exists() || p.with_extension("json").exists();
    let first = dir.join(format!("{date}.md"));
    if !taken(&first) {
        return first;
    }
    (2..)
        .map(|n| dir.join(format!("{date}-{n}.md")))
        .find(|p| !taken(p))
        .unwrap_or(first)
}

fn log_tail(path: &std::path::Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(8)..].join("\n")
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    if let Some(json) = &args.render {
        return render_recorded(json, args.out.as_deref());
    }
    const SCENARIOS: [&str; 10] = [
        "closed",
        "open",
        "inflight",
        "streams",
        "idle",
        "body16k",
        "scale",
        "churn",
        "propagation",
        "users",
    ];
    if let Some(bad) = args.skip.iter().find(|s| !SCENARIOS.contains(&s.as_str())) {
        anyhow::bail!(
            "unknown scenario {bad} in --skip (known: {})",
            SCENARIOS.join(", ")
        );
    }
    let kinds = args
        .targets
        .iter()
        .map(|t| parse_kind(t))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()?;
    let home = PathBuf::from(std::env::var_os("HOME").context("HOME is not set")?);
    let cache = home.join(".cache/ai-gateway");
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| cache.join("target"));
    let started = utc_now();
    let quick = args.quick;
    let mut notes = Vec::new();
    let (mut target_cpu, mut load_cpu) = (args.target_cpu, args.load_cpu);
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        notes.push(
            "only one CPU: everything shares CPU 0, figures are not comparable with two-core runs"
                .into(),
        );
        (target_cpu, load_cpu) = (0, 0);
    }

    let wrk = tools::apt_tool("wrk", "wrk")?;
    // Looked for (or installed) only when it is measured.
    let nginx = if kinds.contains(&Kind::Nginx) {
        tools::apt_tool("nginx", "nginx-light")
            .map_err(|e| eprintln!("nginx baseline skipped: {e:#}"))
            .ok()
    } else {
        None
    };
    let oha = if args.skip.iter().any(|s| s == "open") {
        None
    } else {
        tools::oha(&cache)
            .map_err(|e| {
                eprintln!("open-loop scenario skipped: {e:#}");
                notes.push(format!("open-loop scenario skipped: {e:#}"));
            })
            .ok()
    };
    let bin_dir = tools::build_workspace(&root, &target_dir)?;
    procs::pin_self(load_cpu)?;
    let nofile = procs::raise_nofile(200_000);
    let want_streams = args.streams.unwrap_or(if quick { 1000 } else { 10_000 });
    let streams = want_streams.min(
        usize::try_from(nofile)
            .unwrap_or(usize::MAX)
            .saturating_sub(2000)
            / 2,
    );
    if streams < want_streams {
        notes.push(format!(
            "open-file limit {nofile}: {streams} streams instead of {want_streams}"
        ));
    }
    let skip = |s: &str| args.skip.iter().any(|x| x == s);
    let work = std::env::temp_dir().join(format!("ai-gateway-bench-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let paced = if quick {
        Workload::Paced {
            chunks: 6,
            delay_ms: 500,
        }
    } else {
        Workload::Paced {
            chunks: 20,
            delay_ms: 500,
        }
    };
    let env = Env {
        bin_dir,
        work: work.clone(),
        peers_dir: cache.join("peers"),
        nginx,
        target_cpu,
        load_cpu,
        paced,
        measure_idle: !skip("idle"),
    };
    let settings = Settings {
        quick,
        seconds: args.seconds.unwrap_or(if quick { 2 } else { 10 }),
        runs: args.runs.unwrap_or(if quick { 1 } else { 3 }).max(1),
        concurrency: args.concurrency.clone(),
        rate: args.rate,
        in_flight: args.in_flight,
        streams,
        streams_per_second: args.streams_per_second.max(1),
        stream_chunks: match paced {
            Workload::Paced { chunks, .. } => chunks,
            _ => 0,
        },
        stream_delay_ms: match paced {
            Workload::Paced { delay_ms, .. } => delay_ms,
            _ => 0,
        },
        target_cpu,
        load_cpu,
        max_steal_pct: Some(args.max_steal_pct),
    };

    let (mock, mock_addr) = targets::start_mock(&env)?;
    let mut infos = Vec::new();
    let mut started_targets: Vec<Target> = Vec::new();
    for kind in kinds {
        eprintln!("starting {kind}");
        let result = match kind {
            Kind::Mock => Ok(targets::mock_target(mock.pid(), &mock_addr)),
            Kind::Nginx => targets::start_nginx(&env, &mock_addr),
            Kind::Floor => targets::start_floor(&env, &mock_addr),
            Kind::Gateway => targets::start_gateway(&env, &mock_addr),
            // The same gateway process when it runs already, so both are measured alike.
            Kind::GatewayConverted => {
                match started_targets.iter().find(|t| t.kind == Kind::Gateway) {
                    Some(gateway) => targets::converted_view(gateway),
                    None => targets::start_converted(&env, &mock_addr),
                }
            }
            Kind::GatewayLimited => {
                match started_targets.iter().find(|t| t.kind == Kind::Gateway) {
                    Some(gateway) => targets::limited_view(gateway),
                    None => targets::start_limited(&env, &mock_addr),
                }
            }
            Kind::LiteLlm => tools::litellm(&env.peers_dir)
                .and_then(|venv| targets::start_litellm(&env, &mock_addr, &venv)),
            Kind::Portkey => tools::portkey(&env.peers_dir)
                .and_then(|dir| targets::start_portkey(&env, &mock_addr, &dir)),
        };
        match result {
            Ok(t) => {
                infos.push(TargetInfo {
                    target: kind,
                    version: t.version.clone(),
                    skipped: None,
                });
                started_targets.push(t);
            }
            Err(e) => {
                let log = work.join(format!(
                    "{}.log",
                    match kind {
                        Kind::LiteLlm => "litellm",
                        Kind::Portkey => "portkey",
                        Kind::Gateway | Kind::GatewayConverted | Kind::GatewayLimited => {
                            "gateway"
                        }
                        Kind::Nginx => "nginx",
                        _ => "pingora-floor",
                    }
                ));
                eprintln!("SKIPPING {kind}: {e:#}\n{}", log_tail(&log));
                infos.push(TargetInfo {
                    target: kind,
                    version: String::new(),
                    skipped: Some(format!("{e:#}")),
                });
            }
        }
    }
    let mut machine = machine();
    machine.push((
        "wrk".into(),
        tools::version_line(&wrk, &["-v"]).unwrap_or_default(),
    ));
    if let Some(o) = &oha {
        machine.push((
            "oha".into(),
            tools::version_line(o, &["--version"]).unwrap_or_default(),
        ));
    }
    machine.push((
        "load average at start".into(),
        format!("{:.2}", procs::load_average()),
    ));

    let mut idle: Vec<results::IdleRss> = Vec::new();
    for t in &started_targets {
        if let Some(kib) = t.idle_rss_kib
            && !idle.iter().any(|i| i.target == t.kind)
        {
            idle.push(results::IdleRss {
                target: t.kind,
                rss_kib: kib,
                ready_seconds: t.ready_after.map(|d| d.as_secs_f64()),
            });
        }
    }
    let mut results = Results {
        started_utc: started,
        finished_utc: String::new(),
        machine,
        settings,
        targets: infos,
        notes,
        closed: vec![],
        open: vec![],
        in_flight: vec![],
        streams: vec![],
        idle,
        body16k: vec![],
        scale: None,
        users: None,
    };
    let bench = Bench {
        wrk,
        oha,
        work: work.clone(),
        mock_pid: mock.pid(),
        settings: results.settings.clone(),
        paced,
    };
    bench.warm_up(&started_targets)?;
    if let Some(seconds) = args.hold {
        hold::print_and_wait(&started_targets, Duration::from_secs(seconds));
        return Ok(());
    }
    if !skip("closed") {
        results.closed = bench.closed_loop(&started_targets)?;
    }
    if bench.oha.is_some() && !skip("open") {
        results.open = bench.open_loop(&started_targets)?;
    }
    if !skip("inflight") {
        results.in_flight = bench.in_flight(&started_targets)?;
    }
    if !skip("streams") {
        results.streams = bench.streams(&started_targets)?;
    }
    if !skip("body16k") {
        results.body16k = bench.body16k(&started_targets, 50)?;
    }
    let scale_cfg = scale::ScaleSettings {
        tokens: args.tokens.unwrap_or(if quick { 10_000 } else { 100_000 }),
        conns: 50,
        churn_rate: args.churn_rate,
        propagation_samples: args
            .propagation_samples
            .unwrap_or(if quick { 20 } else { 100 }),
        throughput: !skip("scale"),
        churn: !skip("churn"),
        propagation: !skip("propagation"),
    };
    if scale_cfg.throughput || scale_cfg.churn || scale_cfg.propagation {
        match scale::run(&bench, &env, &mock_addr, &started_targets, &scale_cfg) {
            Ok(s) => results.scale = Some(s),
            Err(e) => {
                eprintln!(
                    "SKIPPING the scale scenarios: {e:#}\n{}",
                    log_tail(&work.join("gateway-scale.log"))
                );
                results.notes.push(format!("scale scenarios failed: {e:#}"));
            }
        }
    }
    if !skip("users") && started_targets.iter().any(|t| t.kind == Kind::Gateway) {
        let cfg = users::UsersSettings {
            users: args.users.unwrap_or(if quick { 100 } else { 1000 }),
            conns: 50,
        };
        match users::run(&bench, &env, &mock_addr, &started_targets, &cfg) {
            Ok(u) => results.users = Some(u),
            Err(e) => {
                eprintln!(
                    "SKIPPING the users scenario: {e:#}\n{}",
                    log_tail(&work.join("gateway-users.log"))
                );
                results.notes.push(format!("users scenario failed: {e:#}"));
            }
        }
    }
    drop(started_targets);
    drop(mock);
    results.machine.push((
        "load average at end".into(),
        format!("{:.2}", procs::load_average()),
    ));
    results.finished_utc = utc_now();

    let date = results
        .started_utc
        .get(..10)
        .unwrap_or("undated")
        .to_owned();
    let out = args.out.clone().unwrap_or_else(|| {
        let dir = root.join("benches/results");
        let dir = if quick { dir.join("quick") } else { dir };
        unused_results_path(&dir, &date)
    });
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(&out, report::render(&results))?;
    std::fs::write(
        out.with_extension("json"),
        serde_json::to_string_pretty(&results)?,
    )?;
    if !args.keep {
        let _ = std::fs::remove_dir_all(&work);
    } else {
        eprintln!("scratch folder kept: {}", work.display());
    }
    println!("results written to {}", out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::unused_results_path;

    #[test]
    fn default_results_path_never_overwrites() {
        let dir = std::env::temp_dir().join(format!("bench-runner-out-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).ok();
        let date = "2026-01-02";
        assert_eq!(unused_results_path(&dir, date), dir.join("2026-01-02.md"));
        std::fs::write(dir.join("2026-01-02.md"), "full run").ok();
        assert_eq!(unused_results_path(&dir, date), dir.join("2026-01-02-2.md"));
        // A JSON left alone also marks the name as taken.
        std::fs::write(dir.join("2026-01-02-2.json"), "{}").ok();
        assert_eq!(unused_results_path(&dir, date), dir.join("2026-01-02-3.md"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
