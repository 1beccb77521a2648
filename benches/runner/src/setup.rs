//! Setting up the control plane the way an operator does, through its REST API (with curl):
//! first-time setup, sign-in, a large wallet, one channel per workload pointing at the mock
//! (OpenAI-type, plus an Anthropic-type one for the converted scenario), and an unlimited
//! `sk-` token.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, bail};
use serde_json::{Value, json};

use crate::load::Req;

pub const ROOT_PASSWORD: &str = "bench-root-pass-1";

/// Longest a probe may take. The paced stream lasts about 10 s (20 events 500 ms apart): a
/// shorter limit hung up just before its usage arrived, and the gateway, seeing the client go,
/// counted that stream's tokens itself (loading the tokenizer tables) before any measurement.
const SEND_MAX_SECONDS: &str = "30";

/// Sends one request with curl and reads the whole answer; the status and the body.
pub fn send(req: &Req) -> anyhow::Result<(u16, String)> {
    let mut cmd = Command::new("curl");
    cmd.args([
        "-s",
        "--max-time",
        SEND_MAX_SECONDS,
        "-w",
        "\n%{http_code}",
        "-X",
        "POST",
    ]);
    for (k, v) in &req.headers {
        cmd.args(["-H", &format!("{k}: {v}")]);
    }
    let out = cmd
        .args(["--data-binary", &req.body, &req.url])
        .output()
        .context("running curl")?;
    let text = String::from_utf8_lossy(&out.stdout);
    let (body, status) = text.rsplit_once('\n').unwrap_or(("", &text));
    Ok((status.trim().parse().unwrap_or(0), body.to_owned()))
}

/// One JSON call to the control plane with the session cookie in `jar`.
fn call(base: &str, jar: &Path, method: &str, path: &str, body: &Value) -> anyhow::Result<Value> {
    let out = Command::new("curl")
        .args(["-s", "--max-time", "30", "-X", method])
        .arg("-b")
        .arg(jar)
        .arg("-c")
        .arg(jar)
        .args([
            "-H",
            "Content-Type: application/json",
            "-H",
            "New-Api-User: 1",
        ])
        .args(["--data-binary", &body.to_string()])
        .arg(format!("{base}{path}"))
        .output()
        .context("running curl")?;
    let v: Value = serde_json::from_slice(&out.stdout).with_context(|| {
        format!(
            "{method} {path}: not JSON: {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })?;
    if v["success"] != json!(true) {
        bail!("{method} {path} failed: {v}");
    }
    Ok(v)
}

/// The first `sk-…` string found under a `key` field.
pub fn find_key(v: &Value) -> Option<String> {
    match v {
        Value::Object(m) => m
            .get("key")
            .and_then(Value::as_str)
            .filter(|k| k.starts_with("sk-"))
            .map(str::to_owned)
            .or_else(|| m.values().find_map(find_key)),
        Value::Array(a) => a.iter().find_map(find_key),
        _ => None,
    }
}

/// A channel to create: its type (1 OpenAI, 14 Anthropic), the model it serves, its base URL.
pub struct Channel<'a> {
    pub channel_type: u32,
    pub model: &'a str,
    pub base_url: String,
}

/// Sets up root, the channels and a token; returns the token's key.
/// The tokens of the gateway targets.
#[derive(Debug, Clone, Default)]
pub struct Keys {
    /// Unlimited, no rate limit: no Redis call on its requests.
    pub plain: String,
    /// A rate limit no benchmark reaches (10⁹ requests a minute): one Redis call per request.
    pub limited: String,
}

pub fn configure(cp_addr: &str, work: &Path, channels: &[Channel<'_>]) -> anyhow::Result<Keys> {
    let base = format!("http://{cp_addr}");
    let jar = work.join("cookies.txt");
    let pass = ROOT_PASSWORD;
    call(
        &base,
        &jar,
        "POST",
        "/api/setup",
        &json!({"username": "root", "password": pass, "confirmPassword": pass}),
    )?;
    call(
        &base,
        &jar,
        "POST",
        "/api/user/login",
        &json!({"username": "root", "password": pass}),
    )?;
    // A wallet no benchmark can drain (every request is billed against it).
    call(
        &base,
        &jar,
        "PUT",
        "/api/user/",
        &json!({"id": 1, "quota_delta": 1_000_000_000_000_000_i64}),
    )?;
    // One user holds every benchmark request, thousands of streams at once: no per-user
    // in-flight cap (0), as an operator would set for such an account.
    call(
        &base,
        &jar,
        "PUT",
        "/api/option/",
        &json!({"key": "UserConcurrencyLimit", "value": "0"}),
    )?;
    for (i, c) in channels.iter().enumerate() {
        call(
            &base,
            &jar,
            "POST",
            "/api/channel/",
            &json!({"type": c.channel_type, "name": format!("mock-{i}"), "key": "sk-upstream",
                "base_url": c.base_url, "models": c.model, "group": "default"}),
        )?;
    }
    let created = call(
        &base,
        &jar,
        "POST",
        "/api/token/",
        &json!({"name": "bench", "remain_quota": 0, "unlimited_quota": true, "expired_time": -1}),
    )?;
    let plain = find_key(&created).context("the token answer carries no sk- key")?;
    let created = call(
        &base,
        &jar,
        "POST",
        "/api/token/",
        &json!({"name": "bench-limited", "remain_quota": 0, "unlimited_quota": true,
            "expired_time": -1, "rate_limit_enabled": true, "rate_limit_period": 60,
            "rate_limit_count": 1_000_000_000, "rate_limit_success": 0}),
    )?;
    let limited = find_key(&created).context("the token answer carries no sk- key")?;
    Ok(Keys { plain, limited })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_token_key() {
        let v = json!({"success": true, "data": [{"id": 3, "name": "bench", "key": "sk-abc"}]});
        assert_eq!(find_key(&v).as_deref(), Some("sk-abc"));
        assert_eq!(find_key(&json!({"data": {"key": "plain"}})), None);
    }
}
