//! The control plane's REST API as the scale scenarios drive it: signed in as root over one
//! kept-alive connection, JSON calls checked for `success`, and the calls they repeat (tokens
//! created in batches, token and user balance edits).

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};

use crate::http::Conn;
use crate::setup::ROOT_PASSWORD;

/// Most tokens one `POST /api/token/` creates (`count`, the control plane's batch limit).
pub const BATCH_MAX: usize = 100;

/// A token created by [`Api::create_tokens`].
#[derive(Debug, Clone)]
pub struct Created {
    pub id: i64,
    pub name: String,
    /// The whole key (`sk-…`), shown only in the creation answer.
    pub key: String,
}

/// A signed-in session on one control plane (root's, or a user's).
pub struct Api {
    conn: Conn,
    cookie: String,
    /// The signed-in user's id, sent as `New-Api-User`.
    user_id: String,
}

impl Api {
    /// Signs in as root (set up by [`crate::setup::configure`]).
    pub fn login(cp_addr: &str) -> anyhow::Result<Api> {
        Api::login_as(cp_addr, "root", ROOT_PASSWORD)
    }

    /// Signs in as `username`.
    pub fn login_as(cp_addr: &str, username: &str, password: &str) -> anyhow::Result<Api> {
        let mut conn = Conn::new(cp_addr, Duration::from_secs(60));
        let body = json!({"username": username, "password": password}).to_string();
        let answer = conn.send(
            "POST",
            "/api/user/login",
            &[("Content-Type", "application/json")],
            body.as_bytes(),
        )?;
        let cookie = answer
            .headers
            .iter()
            .filter(|(k, _)| k == "set-cookie")
            .filter_map(|(_, v)| v.split(';').next())
            .find(|c| c.starts_with("session=") && c.len() > "session=".len())
            .with_context(|| format!("sign-in set no session cookie: {}", answer.text()))?
            .to_owned();
        let user: Value = serde_json::from_slice(&answer.body).context("the sign-in answer")?;
        let user_id = user["data"]["id"]
            .as_i64()
            .context("the sign-in answer carries no user id")?
            .to_string();
        Ok(Api {
            conn,
            cookie,
            user_id,
        })
    }

    /// One JSON call; the answer, which must say `success: true`.
    pub fn call(&mut self, method: &str, path: &str, body: &Value) -> anyhow::Result<Value> {
        let answer = self.conn.send(
            method,
            path,
            &[
                ("Content-Type", "application/json"),
                ("New-Api-User", &self.user_id),
                ("Cookie", &self.cookie),
            ],
            body.to_string().as_bytes(),
        )?;
        let v: Value = serde_json::from_slice(&answer.body).with_context(|| {
            format!(
                "{method} {path}: status {}: {}",
                answer.status,
                answer.text()
            )
        })?;
        if v["success"] != json!(true) {
            bail!("{method} {path} failed: {v}");
        }
        Ok(v)
    }

    /// Creates `count` (≤ [`BATCH_MAX`]) tokens named `name`, `name-XXXXXX`, …, with a
    /// limited balance of `quota` (or unlimited when `None`).
    pub fn create_tokens(
        &mut self,
        name: &str,
        count: usize,
        quota: Option<i64>,
    ) -> anyhow::Result<Vec<Created>> {
        let body = json!({"name": name, "count": count, "expired_time": -1,
            "remain_quota": quota.unwrap_or(0), "unlimited_quota": quota.is_none()});
        let v = self.call("POST", "/api/token/", &body)?;
        let created: Vec<Created> = v["data"]
            .as_array()
            .context("the token answer carries no list")?
            .iter()
            .filter_map(|t| {
                Some(Created {
                    id: t["id"].as_i64()?,
                    name: t["name"].as_str()?.to_owned(),
                    key: t["key"]
                        .as_str()
                        .filter(|k| k.starts_with("sk-"))?
                        .to_owned(),
                })
            })
            .collect();
        if created.len() != count {
            bail!(
                "asked for {count} tokens, the answer holds {}",
                created.len()
            );
        }
        Ok(created)
    }

    /// Sets a limited token's remaining balance.
    pub fn set_token_quota(&mut self, id: i64, name: &str, quota: i64) -> anyhow::Result<()> {
        let body = json!({"id": id, "name": name, "expired_time": -1, "remain_quota": quota,
            "unlimited_quota": false});
        self.call("PUT", "/api/token/", &body).map(drop)
    }

    /// Adds `delta` to a user's balance.
    pub fn add_user_quota(&mut self, user_id: i64, delta: i64) -> anyhow::Result<()> {
        self.call(
            "PUT",
            "/api/user/",
            &json!({"id": user_id, "quota_delta": delta}),
        )
        .map(drop)
    }
}

/// Runs `job(api, i)` for every `i` in `0..n` from `threads` client threads, each signed in as
/// root on its own kept-alive connection; the results in the order they finished. Progress is
/// printed every tenth of the way as `what: k of n done`.
pub fn in_parallel<T: Send>(
    cp_addr: &str,
    threads: usize,
    n: usize,
    what: &str,
    job: impl Fn(&mut Api, usize) -> anyhow::Result<T> + Sync,
) -> anyhow::Result<Vec<T>> {
    let start = Instant::now();
    let next = AtomicUsize::new(0);
    let done = Mutex::new(Vec::with_capacity(n));
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| -> anyhow::Result<()> {
                    let mut api = Api::login(cp_addr)?;
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            return Ok(());
                        }
                        let result = job(&mut api, i)?;
                        let mut d = done.lock().map_err(|_| anyhow::anyhow!("poisoned"))?;
                        d.push(result);
                        if d.len() % (n / 10).max(1) == 0 {
                            eprintln!(
                                "{what}: {} of {n} done ({:.0} s)",
                                d.len(),
                                start.elapsed().as_secs_f64()
                            );
                        }
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.join()
                    .map_err(|_| anyhow::anyhow!("a {what} thread panicked"))?
            })
            .collect::<anyhow::Result<Vec<()>>>()
    })?;
    done.into_inner().map_err(|_| anyhow::anyhow!("poisoned"))
}
