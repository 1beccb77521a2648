//! Load generators: `wrk` (closed loop: each connection sends its next request when the
//! previous answer is complete) and `oha -q` (open loop: a fixed arrival rate, latency
//! corrected for coordinated omission). Both are started pinned to the load core.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, bail};
use serde::Deserialize;

/// One HTTP request, sent over and over.
#[derive(Debug, Clone)]
pub struct Req {
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

/// What a load run measured.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Load {
    /// Complete answers (any status).
    pub requests: u64,
    /// Answers with a status other than 2xx/3xx, plus socket errors and timeouts.
    pub errors: u64,
    pub seconds: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
}

impl Load {
    pub fn rps(&self) -> f64 {
        if self.seconds > 0.0 {
            self.requests as f64 / self.seconds
        } else {
            0.0
        }
    }
}

/// A Lua long string that cannot be closed by `s`.
fn lua_string(s: &str) -> String {
    let mut eq = String::from("=");
    while s.contains(&format!("]{eq}]")) {
        eq.push('=');
    }
    format!("[{eq}[{s}]{eq}]")
}

/// The wrk script: the request, and a `done` hook printing one JSON line.
pub fn wrk_script(req: &Req) -> String {
    let mut s = String::from("wrk.method = \"POST\"\n");
    s += &format!("wrk.body = {}\n", lua_string(&req.body));
    for (k, v) in &req.headers {
        s += &format!("wrk.headers[ {} ] = {}\n", lua_string(k), lua_string(v));
    }
    s += r#"
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "WRK_JSON {\"requests\":%d,\"duration_us\":%d,\"connect\":%d,\"read\":%d,\"write\":%d,\"status\":%d,\"timeout\":%d,\"p50_us\":%d,\"p99_us\":%d}\n",
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
"#;
    s
}

/// The wrk script for `req`, authenticated in turn with each of `keys` (none: `req`'s own
/// `Authorization` on every request).
pub fn wrk_script_rotating(req: &Req, keys: &[String]) -> String {
    let mut s = wrk_script(req);
    if keys.is_empty() {
        return s;
    }
    s += "local keys = {\n";
    for k in keys {
        s += &format!("  {},\n", lua_string(&format!("Bearer {k}")));
    }
    s += r#"}
local next_key = 0
function request()
  next_key = next_key % #keys + 1
  wrk.headers["Authorization"] = keys[next_key]
  return wrk.format()
end
"#;
    s
}

#[derive(Deserialize)]
struct WrkJson {
    requests: u64,
    duration_us: u64,
    connect: u64,
    read: u64,
    write: u64,
    status: u64,
    timeout: u64,
    p50_us: f64,
    p99_us: f64,
}

/// Reads the `WRK_JSON` line of wrk's output.
pub fn parse_wrk(out: &str) -> anyhow::Result<Load> {
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix("WRK_JSON "))
        .context("wrk printed no summary")?;
    let j: WrkJson = serde_json::from_str(line).context("wrk summary")?;
    if j.connect + j.read + j.write + j.status + j.timeout > 0 {
        eprintln!(
            "  wrk errors: connect {}, read {}, write {}, status {}, timeout {}",
            j.connect, j.read, j.write, j.status, j.timeout
        );
    }
    Ok(Load {
        requests: j.requests,
        errors: j.connect + j.read + j.write + j.status + j.timeout,
        seconds: j.duration_us as f64 / 1e6,
        p50_ms: j.p50_us / 1e3,
        p99_ms: j.p99_us / 1e3,
    })
}

/// Runs wrk (one thread) with `conns` connections for `secs` seconds on `cpu`, sending `req`
/// with each of `keys` in turn (none: `req` as it is).
pub fn wrk(
    wrk: &Path,
    req: &Req,
    keys: &[String],
    conns: usize,
    secs: u64,
    cpu: usize,
    dir: &Path,
) -> anyhow::Result<Load> {
    let script = dir.join("wrk.lua");
    std::fs::write(&script, wrk_script_rotating(req, keys))?;
    let out = Command::new("taskset")
        .arg("-c")
        .arg(cpu.to_string())
        .arg(wrk)
        .args(["-t1", &format!("-c{conns}"), &format!("-d{secs}s")])
        .args(["--timeout", "30s", "-s"])
        .arg(&script)
        .arg(&req.url)
        .output()
        .context("running wrk")?;
    let text = String::from_utf8_lossy(&out.stdout);
    let errors = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        bail!("wrk failed: {text}{errors}");
    }
    parse_wrk(&text).with_context(|| format!("wrk: {errors}"))
}

#[derive(Deserialize)]
struct OhaJson {
    summary: OhaSummary,
    #[serde(rename = "latencyPercentiles")]
    latency: OhaPercentiles,
    #[serde(rename = "statusCodeDistribution", default)]
    statuses: std::collections::HashMap<String, u64>,
    #[serde(rename = "errorDistribution", default)]
    errors: std::collections::HashMap<String, u64>,
}

#[derive(Deserialize)]
struct OhaSummary {
    total: f64,
}

#[derive(Deserialize)]
struct OhaPercentiles {
    p50: Option<f64>,
    p99: Option<f64>,
}

/// Reads oha's JSON report.
pub fn parse_oha(out: &str) -> anyhow::Result<Load> {
    let j: OhaJson = serde_json::from_str(out.trim()).context("oha JSON report")?;
    let answered: u64 = j.statuses.values().sum();
    let failed_status: u64 = j
        .statuses
        .iter()
        .filter(|(code, _)| !code.starts_with('2') && !code.starts_with('3'))
        .map(|(_, n)| n)
        .sum();
    if failed_status > 0 || !j.errors.is_empty() {
        let mut kinds: Vec<String> = (j.statuses.iter())
            .filter(|(code, _)| !code.starts_with('2') && !code.starts_with('3'))
            .map(|(code, n)| format!("status {code}: {n}"))
            .chain(j.errors.iter().map(|(e, n)| format!("{e}: {n}")))
            .collect();
        kinds.sort();
        eprintln!("  oha errors: {}", kinds.join("; "));
    }
    Ok(Load {
        requests: answered,
        errors: failed_status + j.errors.values().sum::<u64>(),
        seconds: j.summary.total,
        p50_ms: j.latency.p50.unwrap_or(f64::NAN) * 1e3,
        p99_ms: j.latency.p99.unwrap_or(f64::NAN) * 1e3,
    })
}

/// Runs oha at a fixed `rate` (requests/s) for `secs` seconds with up to `conns`
/// connections, latency measured from each request's scheduled start.
pub fn oha(
    oha: &Path,
    req: &Req,
    rate: u64,
    conns: usize,
    secs: u64,
    cpu: usize,
) -> anyhow::Result<Load> {
    let mut cmd = Command::new("taskset");
    cmd.arg("-c").arg(cpu.to_string()).arg(oha);
    cmd.args([
        "--no-tui",
        "--output-format",
        "json",
        "--latency-correction",
    ])
    .args(["-z", &format!("{secs}s"), "-q", &rate.to_string()])
    .args(["-c", &conns.to_string(), "-m", "POST", "-d", &req.body]);
    for (k, v) in &req.headers {
        cmd.args(["-H", &format!("{k}: {v}")]);
    }
    let out = cmd.arg(&req.url).output().context("running oha")?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        bail!(
            "oha failed: {}{}",
            text,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    parse_oha(&text)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn lua_strings_cannot_be_closed_early() {
        assert_eq!(lua_string("a"), "[=[a]=]");
        assert_eq!(lua_string("x]=]y"), "[==[x]=]y]==]");
    }

    #[test]
    fn rotating_script_takes_each_key_in_turn() {
        let req = Req {
            url: "http://127.0.0.1:1/v1/chat/completions".into(),
            headers: vec![("Authorization".into(), "Bearer sk-plain".into())],
            body: "{}".into(),
        };
        assert_eq!(wrk_script_rotating(&req, &[]), wrk_script(&req));
        let s = wrk_script_rotating(&req, &["sk-a".into(), "sk-b".into()]);
        assert!(
            s.contains("  [=[Bearer sk-a]=],\n  [=[Bearer sk-b]=],\n}"),
            "{s}"
        );
        assert!(s.contains("function request()"), "{s}");
        assert!(s.contains("next_key % #keys + 1"), "{s}");
    }

    #[test]
    fn reads_wrk_summary() {
        let out = "Running 1s test\nWRK_JSON {\"requests\":1000,\"duration_us\":2000000,\"connect\":0,\"read\":1,\"write\":0,\"status\":2,\"timeout\":0,\"p50_us\":120,\"p99_us\":900.5}\n";
        let l = parse_wrk(out).unwrap();
        assert_eq!((l.requests, l.errors), (1000, 3));
        assert_eq!(l.rps(), 500.0);
        assert_eq!((l.p50_ms, l.p99_ms), (0.12, 0.9005));
        assert!(parse_wrk("no summary").is_err());
    }

    #[test]
    fn reads_oha_report() {
        let out = r#"{"summary":{"successRate":1.0,"total":10.0,"slowest":0.01,"fastest":0.0001,"average":0.0002,"requestsPerSec":5000.0},
            "latencyPercentiles":{"p10":0.0001,"p50":0.0002,"p99":0.0009},
            "statusCodeDistribution":{"200":49990,"502":5},"errorDistribution":{"connection closed":5}}"#;
        let l = parse_oha(out).unwrap();
        assert_eq!((l.requests, l.errors), (49995, 10));
        assert!((l.p99_ms - 0.9).abs() < 1e-9);
        assert_eq!(l.seconds, 10.0);
    }
}
