//! Balances that hold for a fleet of gateways: each gateway spends a user's wallet (and a
//! limited token's quota) within leases claimed in Redis, where the claims of every gateway
//! and the control plane's figure of the balance meet in one atomic script. A request whose
//! lease covers it makes no Redis call; one that does not makes one (the grant), before any
//! upstream call and with no lock held across it. A background sync gives back spare leases,
//! confirms the rest (a gateway that stops confirming is taken as gone) and notices when Redis
//! lost its state (its epoch changed), then claims again everything it holds, with the newest
//! figures it knows (a lease down to zero is kept a while for its figure: see `leases`).
//!
//! The control plane stays the source of truth: Redis holds only its figures (newest config
//! version wins) and the claims, so a flush loses no money and mints none: after one, grants
//! wait out a [`GRACE`] in which every live gateway notices the new epoch and claims again. While Redis is
//! down or slower than [`GRANT_BUDGET`], each gateway spends on its own figures (exact for
//! one gateway) and goes back to leases once a sync succeeds.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use prometheus::{IntCounter, IntGauge};
use redis::Script;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use tokio::sync::OnceCell;

use super::carry::Carry;
use super::leases::{Claim, Subject, Want};
use super::ledger::{Refused, Reservation, reserve_carried, reserve_within_leases};
use crate::config::{TokenEntry, UserEntry};
use crate::error::BillingError;

/// Prefix of every key (`{bal}` is the hash tag: one script's keys share a slot).
const PREFIX: &str = "ai-gateway:{bal}:";
/// How long a grant may take before the gateway spends on its own figures (the default of
/// `--redis-timeout-ms`).
pub const GRANT_BUDGET: Duration = Duration::from_millis(50);
/// How often leases are synced (spare given back, claims confirmed).
pub const SYNC_EVERY: Duration = Duration::from_millis(250);
/// Every this many syncs, every claim is confirmed (claims older than 10 s are dropped).
const REFRESH_EVERY: u32 = 8;
/// Subjects per sync call.
const SYNC_CHUNK: usize = 500;

/// How long after Redis lost its state (a new epoch) grants wait: every live gateway notices
/// the new epoch at its next sync and claims again what it holds before anyone is granted more.
/// Over a sync period, the sync that notices and the one that claims again, with slack.
pub const GRACE: Duration = Duration::from_millis(1000);

/// Shared by both scripts: Redis's clock, the epoch (set with its birth time by the first
/// caller after a flush, to the fresh random id that call brought, so that no two epochs share
/// an id), a subject's figure (updated when the caller's config version is
/// newer), and whether a claim write is this gateway's newest (its sequence number is not
/// below the last one written). Numbers that reach Redis are written from the arguments' text
/// or as integers, never in Lua's shortened float form.
const PRELUDE: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local gw = ARGV[1]
local function int(x)
  return string.format('%.0f', x)
end
local era = KEYS[#KEYS]
local epoch = redis.call('HGET', era, 'id')
local born
if not epoch then
  epoch = ARGV[2]
  born = now
  redis.call('HSET', era, 'id', epoch, 'at', int(now))
else
  born = tonumber(redis.call('HGET', era, 'at') or '0')
end
local function figure(key, balance, version)
  local v = tonumber(redis.call('HGET', key, 'v') or '-1')
  if tonumber(version) > 0 and tonumber(version) >= v then
    redis.call('HSET', key, 'q', balance, 'v', version)
    return tonumber(balance)
  end
  return tonumber(redis.call('HGET', key, 'q') or '0')
end
local function newest(key, seq)
  return tonumber(seq) >= tonumber(redis.call('HGET', key, 'n:' .. gw) or '0')
end
";

/// KEYS: subjects, then the epoch key. ARGV: gateway, epoch candidate, grace (ms), then per
/// subject the figure, its version, the least claim, the request's amount, the amount queued
/// behind it (granted as far as the balance goes) and the want's sequence number. Every
/// subject is granted or none: {epoch, 1, claim, ample, ...}, or
/// {epoch, 0, index, available} (marked to drain), or {epoch, 2, ms} (the epoch is younger
/// than the grace: ask again in ms), or {epoch, 3} (a newer claim of this gateway is written).
const GRANT: &str = r"
local grace = tonumber(ARGV[3])
if now - born < grace then
  return {tonumber(epoch), 2, grace - (now - born)}
end
local grants = {}
for i = 1, #KEYS - 1 do
  local key = KEYS[i]
  local base = 3 + 6 * (i - 1)
  if not newest(key, ARGV[base + 6]) then
    return {tonumber(epoch), 3}
  end
  local balance = figure(key, ARGV[base + 1], ARGV[base + 2])
  local min, amount = tonumber(ARGV[base + 3]), tonumber(ARGV[base + 4])
  local queued = tonumber(ARGV[base + 5])
  local others, live = 0, 1
  local fields = redis.call('HGETALL', key)
  for j = 1, #fields, 2 do
    local f = fields[j]
    if string.sub(f, 1, 2) == 'c:' and string.sub(f, 3) ~= gw then
      local g = string.sub(f, 3)
      local seen = tonumber(redis.call('HGET', key, 's:' .. g) or '0')
      if now - seen > 10000 then
        redis.call('HDEL', key, f, 's:' .. g, 'n:' .. g)
      else
        others = others + tonumber(fields[j + 1])
        live = live + 1
      end
    end
  end
  local free = balance - others - min
  if free < 0 then
    redis.call('HSET', key, 'drain', int(now))
    return {tonumber(epoch), 0, i, balance - others}
  end
  queued = math.min(queued, free)
  free = free - queued
  local spare, ample = 0, 0
  if amount > 0 and free >= 64 * amount * live then
    spare = math.min(math.floor(free / (4 * live)), 16 * amount)
    ample = 1
  end
  grants[i] = min + queued + spare
  grants[#KEYS - 1 + i] = ample
end
local answer = {tonumber(epoch), 1}
for i = 1, #KEYS - 1 do
  local seq = ARGV[3 + 6 * i]
  redis.call('HSET', KEYS[i], 'c:' .. gw, int(grants[i]), 's:' .. gw, int(now), 'n:' .. gw, seq)
  redis.call('PEXPIRE', KEYS[i], 86400000)
  answer[#answer + 1] = grants[i]
  answer[#answer + 1] = grants[#KEYS - 1 + i]
end
return answer
";

/// KEYS: subjects, then the epoch key. ARGV: gateway, epoch candidate, then per subject the
/// claim, the figure, its version (0: not known) and the claim's sequence number. A claim
/// older than one written already is skipped; a zero claim stays (as 0) until it goes stale,
/// so that its sequence number still turns older writes away. Answers {epoch, drain, ...}:
/// drain 1 when a grant of that subject was refused in the last two seconds.
const SYNC: &str = r"
local answer = {tonumber(epoch)}
for i = 1, #KEYS - 1 do
  local key = KEYS[i]
  local base = 2 + 4 * (i - 1)
  figure(key, ARGV[base + 2], ARGV[base + 3])
  if newest(key, ARGV[base + 4]) then
    redis.call('HSET', key, 'c:' .. gw, ARGV[base + 1], 's:' .. gw, int(now), 'n:' .. gw, ARGV[base + 4])
    redis.call('PEXPIRE', key, 86400000)
  end
  local drained = tonumber(redis.call('HGET', key, 'drain') or '0')
  answer[#answer + 1] = (now - drained < 2000) and 1 or 0
end
return answer
";

/// Metrics of the fleet budget.
#[derive(Clone)]
pub struct FleetMetrics {
    /// 1 while spending is held within leases in Redis, 0 while on this gateway's figures.
    pub redis_up: IntGauge,
    /// Times Redis failed or was too slow and this gateway spent on its own figures.
    pub fallbacks: IntCounter,
    /// Grant calls made for requests whose lease did not cover them (each waited for it).
    pub grants: IntCounter,
    /// Grant calls made in the background, for leases a request left low.
    pub top_ups: IntCounter,
}

/// A grant's answer.
enum Grant {
    Granted,
    /// Redis lost its state a moment ago: ask again after this long.
    Wait(Duration),
    /// A newer claim of this gateway was written first: check the lease again.
    Overtaken,
    /// The fleet cannot cover the claim of `subject`: `available` is left of its balance.
    Short {
        subject: Subject,
        available: i64,
    },
}

/// The fleet budget of one gateway.
pub struct Fleet {
    carry: Arc<Carry>,
    gateway: String,
    client: redis::Client,
    /// The grants' connection, opened by the first grant, so its I/O runs on the relay's
    /// runtime: a request never waits on the background threads, which may be at idle
    /// priority (see `crate::sched`).
    grant_conn: OnceCell<ConnectionManager>,
    /// The background sync's connection, on the background runtime; top-ups use it too.
    sync_conn: OnceCell<ConnectionManager>,
    /// The background runtime (where [`Fleet::run`] runs), which top-ups are spawned on.
    background: OnceLock<tokio::runtime::Handle>,
    grant: Script,
    sync: Script,
    /// The epoch this gateway's claims were made under.
    epoch: Mutex<Option<i64>>,
    /// Redis lost its state: every claim is made again at the next sync.
    reassert: AtomicBool,
    metrics: FleetMetrics,
    /// How long a grant may take.
    budget: Duration,
}

impl std::fmt::Debug for Fleet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fleet")
            .field("gateway", &self.gateway)
            .finish_non_exhaustive()
    }
}

fn key(subject: Subject) -> String {
    format!("{PREFIX}{}", subject.key())
}

fn epoch_key() -> String {
    format!("{PREFIX}era")
}

/// The id a call proposes for the epoch when Redis has none: fresh for every call, in
/// `1..2^53` (exact in Lua's numbers). A fixed id per gateway would let the gateway that made
/// the lost epoch make the next one under the same id, and then no gateway would notice the
/// loss and claim again what it holds.
fn epoch_candidate() -> i64 {
    i64::try_from(rand::random::<u64>() >> 11).unwrap_or(0) | 1
}

/// How long a top-up may take before it is given up (another may start then).
const TOP_UP_BUDGET: Duration = Duration::from_millis(500);

/// A top-up on its way; its leases may be topped up again once it is dropped (answered,
/// given up, or its task dropped with the runtime).
struct ToppingUp {
    fleet: Arc<Fleet>,
    wants: Vec<Want>,
}

impl Drop for ToppingUp {
    fn drop(&mut self) {
        self.fleet.carry.topped_up(&self.wants);
    }
}

/// Grant calls a request makes at most before it is refused. One is the rule: a want asks for
/// the requests queued before it too, so the newest answer of a burst covers all of them. A
/// request asks again when a request that came later took the lease its grant grew.
const ATTEMPTS: u32 = 32;

impl Fleet {
    /// Leases for `carry`'s spending in the Redis at `url`, claimed as `gateway` (unique in the
    /// fleet). Spending stays on this gateway's figures until [`Fleet::run`]'s first sync.
    pub fn new(
        url: &str,
        gateway: &str,
        carry: Arc<Carry>,
        metrics: FleetMetrics,
        budget: Duration,
    ) -> redis::RedisResult<Self> {
        Ok(Fleet {
            carry,
            gateway: gateway.to_owned(),
            client: redis::Client::open(url)?,
            grant_conn: OnceCell::new(),
            sync_conn: OnceCell::new(),
            background: OnceLock::new(),
            grant: Script::new(&format!("{PRELUDE}{GRANT}")),
            sync: Script::new(&format!("{PRELUDE}{SYNC}")),
            epoch: Mutex::new(None),
            reassert: AtomicBool::new(false),
            metrics,
            budget,
        })
    }

    /// Reserves `amount` for a request (snapshot `version`) within this gateway's leases,
    /// growing them with one Redis call when they fall short. A lease that the reservation
    /// leaves low is topped up in the background.
    pub async fn reserve(
        self: &Arc<Self>,
        user: &Arc<UserEntry>,
        token: &Arc<TokenEntry>,
        version: u64,
        amount: i64,
        request_id: &str,
    ) -> Result<Reservation, BillingError> {
        let (mut attempts, mut waited) = (0, Duration::ZERO);
        while attempts < ATTEMPTS {
            let wants = match reserve_within_leases(
                user,
                token,
                version,
                amount,
                &self.carry,
                request_id,
            ) {
                Ok((r, top_ups)) => {
                    self.top_up(top_ups);
                    return Ok(r);
                }
                Err(Refused::Billing(e)) => return Err(e),
                Err(Refused::Lease(wants)) => wants,
            };
            attempts += 1;
            self.metrics.grants.inc();
            let _queued = self.carry.queue(&wants, amount);
            match tokio::time::timeout(self.budget, self.ask(&wants, &self.grant_conn)).await {
                Ok(Ok(Grant::Granted | Grant::Overtaken)) => {}
                Ok(Ok(Grant::Wait(wait))) if waited < GRACE => {
                    let wait = wait.min(GRACE - waited) + Duration::from_millis(1);
                    tokio::time::sleep(wait).await;
                    waited += wait;
                    attempts -= 1;
                }
                Ok(Ok(Grant::Wait(_))) => {}
                Ok(Ok(Grant::Short { subject, available })) => {
                    return Err(match subject {
                        Subject::Token(_) => BillingError::TokenQuotaShort {
                            remaining: available,
                            need: amount,
                        },
                        Subject::User(_) if available <= 0 => BillingError::UserQuotaEmpty {
                            remaining: available,
                        },
                        Subject::User(_) => BillingError::UserQuotaShort {
                            remaining: available,
                            need: amount,
                        },
                    });
                }
                Ok(Err(e)) => self.down(&e.to_string()),
                Err(_) => self.down("no answer within the budget"),
            }
        }
        // Leases changed under this request at every attempt: refused unless on local figures.
        reserve_carried(user, token, version, amount, &self.carry, request_id).map_err(
            |e| match e {
                Refused::Billing(e) => e,
                Refused::Lease(_) => BillingError::UserQuotaShort {
                    remaining: 0,
                    need: amount,
                },
            },
        )
    }

    async fn conn(
        &self,
        cell: &OnceCell<ConnectionManager>,
    ) -> redis::RedisResult<ConnectionManager> {
        let conn = cell
            .get_or_try_init(|| {
                let config = ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(Duration::from_millis(500)))
                    .set_response_timeout(Some(Duration::from_millis(500)))
                    .set_number_of_retries(1);
                ConnectionManager::new_with_config(self.client.clone(), config)
            })
            .await?;
        Ok(conn.clone())
    }

    /// Asks for `top_ups` (leases a request left low) without anyone waiting: on the
    /// background runtime, over the sync's connection. An answer grows the leases as a grant
    /// does; a failure, a refusal or a timeout changes nothing (the request that finds its
    /// lease short asks itself, and learns of the failure then).
    fn top_up(self: &Arc<Self>, top_ups: Vec<Want>) {
        if top_ups.is_empty() {
            return;
        }
        self.metrics.top_ups.inc();
        let topping = ToppingUp {
            fleet: Arc::clone(self),
            wants: top_ups,
        };
        let task = async move {
            let fleet = &topping.fleet;
            let asked = tokio::time::timeout(
                fleet.budget.max(TOP_UP_BUDGET),
                fleet.ask(&topping.wants, &fleet.sync_conn),
            )
            .await;
            if let Ok(Err(e)) = asked {
                tracing::debug!(error = %e, "fleet budget: a top-up failed");
            }
            drop(topping);
        };
        match self.background.get() {
            Some(runtime) => drop(runtime.spawn(task)),
            None => drop(tokio::spawn(task)),
        }
    }

    /// One grant call for `wants`, over the connection of `cell`.
    async fn ask(
        &self,
        wants: &[Want],
        cell: &OnceCell<ConnectionManager>,
    ) -> redis::RedisResult<Grant> {
        let mut conn = self.conn(cell).await?;
        let mut call = self.grant.prepare_invoke();
        call.arg(&self.gateway)
            .arg(epoch_candidate())
            .arg(u64::try_from(GRACE.as_millis()).unwrap_or(u64::MAX));
        for want in wants {
            call.key(key(want.subject))
                .arg(want.balance)
                .arg(want.version)
                .arg(want.min)
                .arg(want.amount)
                .arg(want.queued)
                .arg(want.seq);
        }
        call.key(epoch_key());
        let answer: Vec<i64> = call.invoke_async(&mut conn).await?;
        let Some((&epoch, rest)) = answer.split_first() else {
            return Err(bad_answer(&answer));
        };
        self.saw_epoch(epoch);
        match rest {
            [1, grants @ ..] if grants.len() == 2 * wants.len() => {
                let granted: Vec<(Want, i64, bool)> = wants
                    .iter()
                    .zip(grants.chunks_exact(2))
                    .map(|(w, g)| (*w, g[0], g[1] == 1))
                    .collect();
                self.carry.granted(&granted);
                Ok(Grant::Granted)
            }
            [2, ms] => Ok(Grant::Wait(Duration::from_millis(
                u64::try_from(*ms).unwrap_or(0),
            ))),
            [3] => Ok(Grant::Overtaken),
            [0, index, available] => {
                let want = usize::try_from(*index - 1)
                    .ok()
                    .and_then(|i| wants.get(i))
                    .ok_or_else(|| bad_answer(&answer))?;
                Ok(Grant::Short {
                    subject: want.subject,
                    available: *available,
                })
            }
            _ => Err(bad_answer(&answer)),
        }
    }

    /// Notes the epoch Redis answered with; a new one after a known one means Redis lost its
    /// state, so every claim is made again.
    fn saw_epoch(&self, epoch: i64) {
        let mut known = self.epoch.lock().unwrap_or_else(|p| p.into_inner());
        match *known {
            Some(k) if k == epoch => {}
            Some(_) => {
                tracing::warn!("fleet budget: Redis lost its leases; claiming them again");
                self.reassert.store(true, Ordering::Release);
                *known = Some(epoch);
            }
            None => *known = Some(epoch),
        }
    }

    /// Redis failed: spend on this gateway's figures until a sync succeeds.
    fn down(&self, why: &str) {
        if self.carry.leases_enforced() {
            self.carry.enforce_leases(false);
            self.metrics.fallbacks.inc();
            self.metrics.redis_up.set(0);
            tracing::warn!(
                error = why,
                "fleet budget: Redis unavailable; spending on this gateway's own figures for now"
            );
        }
    }

    /// One sync: claims to confirm go to Redis; subjects it asks to drain are trimmed at once.
    async fn sync_once(&self, tick: u32) -> redis::RedisResult<()> {
        let enforced = self.carry.leases_enforced();
        let reassert = !enforced || self.reassert.swap(false, Ordering::AcqRel);
        let claims = if reassert || tick.is_multiple_of(REFRESH_EVERY) {
            self.carry.all_claims(reassert)
        } else {
            self.carry.claims_to_sync(&[])
        };
        // Always one call at least: it is how a new epoch is noticed within a sync period.
        let mut drained = Vec::new();
        if claims.is_empty() {
            self.send(&[], &mut drained).await?;
        }
        for chunk in claims.chunks(SYNC_CHUNK) {
            self.send(chunk, &mut drained).await?;
        }
        // Redis lost its state: claim again at once, within the new epoch's grace.
        if self.reassert.swap(false, Ordering::AcqRel) {
            let claims = self.carry.all_claims(true);
            for chunk in claims.chunks(SYNC_CHUNK) {
                self.send(chunk, &mut drained).await?;
            }
        }
        if !enforced {
            self.carry.enforce_leases(true);
            self.metrics.redis_up.set(1);
            tracing::info!("fleet budget: spending within leases in Redis");
        }
        if !drained.is_empty() {
            let trimmed = self.carry.claims_to_sync(&drained);
            for chunk in trimmed.chunks(SYNC_CHUNK) {
                self.send(chunk, &mut Vec::new()).await?;
            }
        }
        Ok(())
    }

    async fn send(&self, claims: &[Claim], drained: &mut Vec<Subject>) -> redis::RedisResult<()> {
        let mut conn = self.conn(&self.sync_conn).await?;
        let mut call = self.sync.prepare_invoke();
        call.arg(&self.gateway).arg(epoch_candidate());
        for c in claims {
            call.key(key(c.subject))
                .arg(c.claimed)
                .arg(c.balance)
                .arg(c.version)
                .arg(c.seq);
        }
        call.key(epoch_key());
        let answer: Vec<i64> = call.invoke_async(&mut conn).await?;
        let Some((&epoch, drains)) = answer.split_first() else {
            return Err(bad_answer(&answer));
        };
        if drains.len() != claims.len() {
            return Err(bad_answer(&answer));
        }
        self.saw_epoch(epoch);
        drained.extend(
            claims
                .iter()
                .zip(drains)
                .filter(|(_, d)| **d == 1)
                .map(|(c, _)| c.subject),
        );
        Ok(())
    }

    /// Syncs every [`SYNC_EVERY`] until the runtime stops; top-ups run on the same runtime.
    pub async fn run(self: Arc<Self>) {
        let _ = self.background.set(tokio::runtime::Handle::current());
        let mut tick: u32 = 0;
        loop {
            match tokio::time::timeout(Duration::from_millis(500), self.sync_once(tick)).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => self.down(&e.to_string()),
                Err(_) => self.down("sync took over 500 ms"),
            }
            tick = tick.wrapping_add(1);
            tokio::time::sleep(SYNC_EVERY).await;
        }
    }
}

fn bad_answer(answer: &[i64]) -> redis::RedisError {
    redis::RedisError::from((
        redis::ErrorKind::Client,
        "unexpected answer of the fleet budget script",
        format!("{answer:?}"),
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::billing::test_support::{one_user, token_index};
    use std::process::{Child, Command, Stdio};

    /// A `redis-server` of this test's own (nothing kept on disk), killed when dropped.
    struct PrivateRedis(Child, u16);

    impl Drop for PrivateRedis {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    async fn private_redis() -> Option<PrivateRedis> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .ok()?
            .local_addr()
            .ok()?
            .port();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let redis = PrivateRedis(child, port);
        for _ in 0..200 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                return Some(redis);
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        None
    }

    fn metrics() -> FleetMetrics {
        FleetMetrics {
            redis_up: IntGauge::new("up", "up").unwrap(),
            fallbacks: IntCounter::new("fallbacks", "fallbacks").unwrap(),
            grants: IntCounter::new("grants", "grants").unwrap(),
            top_ups: IntCounter::new("top_ups", "top_ups").unwrap(),
        }
    }

    /// A gateway's fleet budget on `redis`, synced once (leases enforced), and its carry.
    async fn one_gateway(redis: &PrivateRedis) -> (Arc<Fleet>, Arc<Carry>) {
        let carry = Arc::new(Carry::default());
        let fleet = Fleet::new(
            &format!("redis://127.0.0.1:{}/", redis.1),
            "gw-test",
            carry.clone(),
            metrics(),
            Duration::from_secs(5),
        )
        .unwrap();
        fleet.sync_once(0).await.unwrap();
        assert!(carry.leases_enforced());
        (Arc::new(fleet), carry)
    }

    /// A burst of `n` requests of `amount` on one gateway, all reserving at once; the
    /// reservations that were made, and the grant calls.
    async fn burst(quota: i64, n: usize, amount: i64) -> Option<(Vec<Reservation>, u64)> {
        let Some(redis) = private_redis().await else {
            eprintln!("SKIPPED: redis-server is not installed");
            return None;
        };
        let (fleet, _carry) = one_gateway(&redis).await;
        let s = one_user(quota, 0, true);
        let (user, token) = (s.users[&1].clone(), s.tokens[&token_index()].clone());
        // The scripts are loaded in Redis by a first request, as on a gateway in service.
        fleet
            .reserve(&user, &token, 1, amount, "warm-up")
            .await
            .unwrap()
            .refund();
        let before = fleet.metrics.grants.get();
        let calls = (0..n).map(|i| {
            let (fleet, user, token) = (&fleet, &user, &token);
            async move {
                fleet
                    .reserve(user, token, 1, amount, &format!("r{i}"))
                    .await
                    .ok()
            }
        });
        let held: Vec<Reservation> = futures_util::future::join_all(calls)
            .await
            .into_iter()
            .flatten()
            .collect();
        let grants = fleet.metrics.grants.get() - before;
        drop(redis);
        Some((held, grants))
    }

    /// Two gateways (`gw-a` first, so its call makes the epoch) on a private Redis, each
    /// with its own snapshot of user 1 holding ten calls of 1000.
    struct TwoGateways {
        redis: PrivateRedis,
        a: Arc<Fleet>,
        b: Arc<Fleet>,
        a_user: (Arc<UserEntry>, Arc<TokenEntry>),
        b_user: (Arc<UserEntry>, Arc<TokenEntry>),
    }

    impl TwoGateways {
        async fn start() -> Option<Self> {
            let Some(redis) = private_redis().await else {
                eprintln!("SKIPPED: redis-server is not installed");
                return None;
            };
            let url = format!("redis://127.0.0.1:{}/", redis.1);
            let gateway = |name: &str| {
                let carry = Arc::new(Carry::default());
                Arc::new(Fleet::new(&url, name, carry, metrics(), Duration::from_secs(5)).unwrap())
            };
            let (a, b) = (gateway("gw-a"), gateway("gw-b"));
            a.sync_once(0).await.unwrap();
            b.sync_once(0).await.unwrap();
            let entries = || {
                let s = one_user(10 * 1000, 0, true);
                (s.users[&1].clone(), s.tokens[&token_index()].clone())
            };
            Some(TwoGateways {
                redis,
                a,
                b,
                a_user: entries(),
                b_user: entries(),
            })
        }

        /// Redis loses everything.
        async fn flush(&self) {
            let url = format!("redis://127.0.0.1:{}/", self.redis.1);
            let mut conn = redis::Client::open(url)
                .unwrap()
                .get_multiplexed_async_connection()
                .await
                .unwrap();
            let () = redis::cmd("FLUSHALL").query_async(&mut conn).await.unwrap();
        }

        /// Calls of 1000 that `fleet` (with `user`'s entries) admits of `n`, one after another.
        async fn admit(
            fleet: &Arc<Fleet>,
            user: &(Arc<UserEntry>, Arc<TokenEntry>),
            n: usize,
            tag: &str,
        ) -> Vec<Reservation> {
            let mut held = Vec::new();
            for i in 0..n {
                let id = format!("{tag}{i}");
                held.extend(fleet.reserve(&user.0, &user.1, 1, 1000, &id).await.ok());
            }
            held
        }
    }

    /// Redis loses its state while one gateway holds a lease, and the first call after the loss
    /// is that gateway's own (as was the call that made the lost epoch). It still notices the
    /// loss and claims again what it holds, so the other gateway is granted only what is left.
    #[tokio::test]
    async fn a_lease_outlives_a_flush_whichever_gateway_calls_first() {
        let Some(two) = TwoGateways::start().await else {
            return;
        };
        let held_a = TwoGateways::admit(&two.a, &two.a_user, 4, "a").await;
        assert_eq!(held_a.len(), 4);
        two.flush().await;
        two.a.sync_once(1).await.unwrap();
        two.b.sync_once(1).await.unwrap();
        tokio::time::sleep(GRACE).await;
        let held_b = TwoGateways::admit(&two.b, &two.b_user, 10, "b").await;
        assert_eq!(held_b.len(), 6, "4 of 10 are held by gw-a");
        for r in held_a.into_iter().chain(held_b) {
            r.refund();
        }
    }

    /// One gateway's spending is reflected in a newer figure (its lease falls to zero), then
    /// Redis loses its state. The other gateway still asks with the older figure, from a
    /// snapshot it has not replaced yet: the first gateway writes its newer figure again, so
    /// the spent quota is not granted a second time.
    #[tokio::test]
    async fn a_newer_figure_outlives_a_flush() {
        let Some(two) = TwoGateways::start().await else {
            return;
        };
        let held_a = TwoGateways::admit(&two.a, &two.a_user, 4, "a").await;
        assert_eq!(held_a.len(), 4);
        for r in held_a {
            r.settle(1000);
        }
        // The control plane takes the four calls in and its next version says so; gw-a applies
        // it and confirms its lease, now down to zero, with the new figure.
        let ids = ["a0", "a1", "a2", "a3"];
        two.a.carry.acknowledged(2, ids);
        let next = one_user(6 * 1000, 0, true);
        two.a
            .carry
            .apply(2, &next, &crate::config::delta::Fresh::all());
        for tick in 1..4 {
            two.a.sync_once(tick).await.unwrap();
        }
        two.flush().await;
        two.b.sync_once(4).await.unwrap();
        two.a.sync_once(4).await.unwrap();
        tokio::time::sleep(GRACE).await;
        let held_b = TwoGateways::admit(&two.b, &two.b_user, 10, "b").await;
        assert_eq!(held_b.len(), 6, "4 of 10 were spent on gw-a");
        for r in held_b {
            r.refund();
        }
    }

    #[tokio::test]
    async fn a_burst_with_an_ample_balance_is_admitted_whole() {
        let Some((held, grants)) = burst(1_000_000_000, 1000, 1000).await else {
            return;
        };
        assert_eq!(held.len(), 1000, "every request of the burst is admitted");
        // One call each at most (the newest answer covers every request queued before it),
        // with a few asking again after a later request took their grant.
        assert!(grants <= 1100, "{grants} grant calls for a burst of 1000");
        for r in held {
            r.refund();
        }
    }

    #[tokio::test]
    async fn a_burst_past_a_low_balance_admits_exactly_what_it_covers() {
        let Some((held, _)) = burst(10 * 1000, 100, 1000).await else {
            return;
        };
        assert_eq!(held.len(), 10, "exactly ten of a hundred");
        for r in held {
            r.refund();
        }
    }

    /// A caller with an ample balance, one request after another, each charged in full and
    /// none reflected yet: only the first request waits for Redis. The requests that leave the
    /// lease low top it up in the background, and the next ones find room in it.
    #[tokio::test]
    async fn a_steady_caller_waits_for_redis_only_once() {
        let Some(redis) = private_redis().await else {
            eprintln!("SKIPPED: redis-server is not installed");
            return;
        };
        let (fleet, carry) = one_gateway(&redis).await;
        let s = one_user(1_000_000_000, 0, true);
        let (user, token) = (s.users[&1].clone(), s.tokens[&token_index()].clone());
        let subject = Subject::User(1);
        let mut first_asked = 0;
        for i in 0..200 {
            let r = fleet
                .reserve(&user, &token, 1, 1000, &format!("r{i}"))
                .await
                .unwrap();
            r.settle(1000);
            if i == 0 {
                first_asked = fleet.metrics.grants.get();
            }
            // The top-up this request started, if any, is answered before the next request.
            for _ in 0..2000 {
                if !carry.lease(subject).is_some_and(|l| l.topping) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        }
        assert_eq!(
            fleet.metrics.grants.get(),
            first_asked,
            "only the first request waited"
        );
        let lease = carry.lease(subject).unwrap();
        assert!(
            lease.claimed >= 200 * 1000,
            "the lease covers what was charged"
        );
        // A top-up when half a spare is left; the spare grows with what is outstanding, so
        // top-ups come further apart as it does.
        let top_ups = fleet.metrics.top_ups.get();
        assert!((5..=20).contains(&top_ups), "{top_ups} top-ups");
    }

    /// The spare the grant script gives is the one top-ups are sized by.
    #[test]
    fn the_script_gives_the_spare_top_ups_expect() {
        let spare = format!("{} * amount", super::super::leases::SPARE_AMOUNTS);
        assert!(GRANT.contains(&spare), "GRANT's spare is not {spare}");
    }
}
