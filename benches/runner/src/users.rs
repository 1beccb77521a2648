//! Requests spread over many users: a gateway whose control plane holds `--users` users (1 000
//! by default) with one unlimited token each, created through the REST API before it starts,
//! loaded with the plain gateway's non-stream workload while wrk rotates over their keys. Every
//! usage batch then carries many users (the control plane's per-user work: balances, quota
//! reminders) and the gateway keeps a fleet-budget lease per user in Redis. Measured beside the
//! plain gateway (every request of one user), interleaved.

use std::time::Instant;

use anyhow::Context;
use serde_json::json;

use crate::cp_api::{self, Api};
use crate::results::{Run, ScalePoint, Users};
use crate::scenarios::Bench;
use crate::targets::{self, Env, Kind, Target, Workload};

/// Client threads creating users (each user costs two password hashes on the control plane).
const SEED_THREADS: usize = 2;
/// Every new user's balance (`QuotaForNewUser` while seeding): no run can drain it.
const SEED_QUOTA: i64 = 1_000_000_000_000_000;
/// The seeded users' password.
const USER_PASSWORD: &str = "load-user-password";

/// What the users scenario is asked to do.
pub struct UsersSettings {
    pub users: usize,
    pub conns: usize,
}

/// Users created before the gateway started: one key each.
struct Seeded {
    keys: Vec<String>,
    seconds: f64,
}

/// Creates `n` users (`load0`, `load1`, …), each signed in once to create its own token.
fn seed(cp_addr: &str, n: usize) -> anyhow::Result<Seeded> {
    let start = Instant::now();
    let mut root = Api::login(cp_addr)?;
    root.call(
        "PUT",
        "/api/option/",
        &json!({"key": "QuotaForNewUser", "value": SEED_QUOTA.to_string()}),
    )?;
    let keys = cp_api::in_parallel(cp_addr, SEED_THREADS, n, "users", |admin, i| {
        let name = format!("load{i}");
        admin.call(
            "POST",
            "/api/user/",
            &json!({"username": name, "password": USER_PASSWORD}),
        )?;
        let mut user = Api::login_as(cp_addr, &name, USER_PASSWORD)?;
        let created = user.create_tokens("load", 1, None)?;
        created
            .into_iter()
            .next()
            .map(|c| c.key)
            .context("the token answer carries no key")
    })?;
    Ok(Seeded {
        keys,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Every seeded key answered 200 through `t`: how many were.
fn verify_keys(t: &Target, keys: &[String]) -> usize {
    keys.iter()
        .filter(|key| {
            let req = t.request_as(Workload::Chat, key);
            matches!(crate::setup::send(&req), Ok((200, _)))
        })
        .count()
}

fn log_run(run: usize, runs: usize, label: &str, r: &Run) {
    eprintln!(
        "users run {run}/{runs}: {label}: {:.0} req/s, p50 {:.3} ms, {:.1} µs CPU/req, control plane {:.1} µs/req, {} errors",
        r.rps,
        r.p50_ms,
        r.cpu_us_per_req,
        r.control_plane_us_per_req.unwrap_or(f64::NAN),
        r.errors
    );
}

/// Starts the gateway with `cfg.users` users and measures it beside the plain gateway of
/// `targets`.
pub fn run(
    bench: &Bench,
    env: &Env,
    mock: &str,
    targets: &[Target],
    cfg: &UsersSettings,
) -> anyhow::Result<Users> {
    let n = cfg.users;
    let plain = targets
        .iter()
        .find(|t| t.kind == Kind::Gateway)
        .context("the users scenario needs the gateway target")?;
    eprintln!("users: starting a gateway whose control plane holds {n} users with a token each");
    let (many, seeded) = targets::start_gateway_seeded(env, mock, "-users", |cp| seed(cp, n))?;
    eprintln!(
        "users: {n} users in {:.1} s; gateway ready after {:.1} s",
        seeded.seconds,
        many.ready_after.map_or(f64::NAN, |d| d.as_secs_f64()),
    );
    // Every key once: each user's first request also takes its first balance lease.
    let keys_verified = verify_keys(&many, &seeded.keys);
    let label_many = format!(
        "gateway, requests over {} users",
        crate::report_scale::grouped(n)
    );
    let rows: [(String, &Target, &[String]); 2] = [
        ("gateway, 1 user (the plain gateway)".into(), plain, &[]),
        (label_many, &many, &seeded.keys),
    ];
    let mut points: Vec<ScalePoint> = rows
        .iter()
        .map(|(label, _, keys)| ScalePoint {
            label: label.clone(),
            tokens: keys.len().max(1),
            churn: false,
            conns: cfg.conns,
            runs: vec![],
        })
        .collect();
    bench.wrk_rotating(&many, &seeded.keys, cfg.conns, 2)?;
    let s = &bench.settings;
    for run in 1..=s.runs {
        for ((label, t, keys), p) in rows.iter().zip(points.iter_mut()) {
            let r = bench.wrk_rotating(t, keys, cfg.conns, s.seconds)?;
            log_run(run, s.runs, label, &r);
            p.runs.push(r);
        }
    }
    Ok(Users {
        users: n,
        setup_seconds: seeded.seconds,
        setup_threads: SEED_THREADS,
        ready_seconds: many.ready_after.map_or(f64::NAN, |d| d.as_secs_f64()),
        keys_verified,
        points,
    })
}
