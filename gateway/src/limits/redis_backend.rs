//! Sliding windows in Redis, shared by every gateway: one sorted set of request times per
//! subject and kind (all, successful), checked and counted by one Lua script in one round
//! trip, with Redis's own clock. Keys share one hash tag so a script's keys are in one slot.

use std::time::Duration;

use redis::Script;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use tokio::sync::OnceCell;

use super::tokens::{self, TokenRule};
use super::{Denied, Rule, Scope};

/// Prefix of every key (`{rl}` is the hash tag).
const PREFIX: &str = "ai-gateway:{rl}:";

/// KEYS: (all, success) per request rule, then per token rule its six buckets, newest
/// first. ARGV: member, the number of request rules, then per request rule window (ms), max
/// all, max success, then per token rule its most tokens. Answers {1, 0, 0, 0} when admitted
/// (the request counted under every rule that limits all requests, and provisionally as a
/// success under every rule that limits successes), {0, rule index, kind (1 all, 2 success),
/// retry after (ms)} when a request rule refuses and {0, request rules + token rule index, 3,
/// age of the oldest bucket with tokens} when a token rule does (nothing counted).
const ADMIT: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rules = tonumber(ARGV[2])
for i = 1, rules do
  local all, success = KEYS[2 * i - 1], KEYS[2 * i]
  local base = 2 + 3 * (i - 1)
  local window = tonumber(ARGV[base + 1])
  local max_all = tonumber(ARGV[base + 2])
  local max_success = tonumber(ARGV[base + 3])
  local since = now - window
  for _, key in ipairs({all, success}) do
    redis.call('ZREMRANGEBYSCORE', key, '-inf', since)
  end
  for kind, pair in ipairs({{all, max_all}, {success, max_success}}) do
    local key, max = pair[1], pair[2]
    if max > 0 and redis.call('ZCARD', key) >= max then
      local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
      local retry = window
      if oldest[2] then retry = tonumber(oldest[2]) + window - now end
      return {0, i, kind, retry}
    end
  end
end
local token_rules = (#KEYS - 2 * rules) / 6
for j = 1, token_rules do
  local max = tonumber(ARGV[2 + 3 * rules + j])
  local sum, oldest = 0, 0
  for b = 1, 6 do
    local n = tonumber(redis.call('GET', KEYS[2 * rules + 6 * (j - 1) + b]) or '0')
    if n > 0 then oldest = b - 1 end
    sum = sum + n
  end
  if max > 0 and sum >= max then
    return {0, rules + j, 3, oldest}
  end
end
for i = 1, rules do
  local base = 2 + 3 * (i - 1)
  local window = tonumber(ARGV[base + 1])
  if tonumber(ARGV[base + 2]) > 0 then
    redis.call('ZADD', KEYS[2 * i - 1], now, ARGV[1])
    redis.call('PEXPIRE', KEYS[2 * i - 1], window)
  end
  if tonumber(ARGV[base + 3]) > 0 then
    redis.call('ZADD', KEYS[2 * i], now, ARGV[1])
    redis.call('PEXPIRE', KEYS[2 * i], window)
  end
end
return {1, 0, 0, 0}
";

/// KEYS: a channel's in-flight set. ARGV: the member, the channel's most, how long a member
/// may stay (ms; a gateway that died without freeing its slots frees them then). Answers 1
/// when a slot was taken, 0 when the channel is full.
const TAKE_SLOT: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local stale = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - stale)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('PEXPIRE', KEYS[1], stale)
return 1
";

/// How long a channel slot may stay taken (a longer request stops counting then).
pub const SLOT_STALE_MS: u64 = 10 * 60 * 1000;

/// KEYS: the current bucket of each token rule. ARGV: the tokens to add.
const ADD_TOKENS: &str = r"
for i = 1, #KEYS do
  redis.call('INCRBY', KEYS[i], ARGV[1])
  redis.call('PEXPIRE', KEYS[i], 70000)
end
return 1
";

/// KEYS: success sets. ARGV: the member whose provisional success is taken back.
const RELEASE: &str = r"
for i = 1, #KEYS do
  redis.call('ZREM', KEYS[i], ARGV[1])
end
return 1
";

/// The Redis side of the limits: one managed (reconnecting) connection, made on first use by
/// a request.
pub struct RedisLimits {
    client: redis::Client,
    conn: OnceCell<ConnectionManager>,
    admit: Script,
    release: Script,
    add_tokens: Script,
    take_slot: Script,
}

fn key(rule: &Rule, kind: &str) -> String {
    format!("{PREFIX}{}:{kind}", rule.key)
}

/// The key of a token rule's bucket.
fn bucket_key(rule: &TokenRule, bucket: u64) -> String {
    format!("{PREFIX}{}:b{bucket}", rule.key)
}

fn window_ms(rule: &Rule) -> u64 {
    u64::try_from(rule.window.as_millis()).unwrap_or(u64::MAX)
}

impl RedisLimits {
    /// Checks the URL; connects on first use.
    pub fn new(url: &str) -> redis::RedisResult<Self> {
        Ok(RedisLimits {
            client: redis::Client::open(url)?,
            conn: OnceCell::new(),
            admit: Script::new(ADMIT),
            release: Script::new(RELEASE),
            add_tokens: Script::new(ADD_TOKENS),
            take_slot: Script::new(TAKE_SLOT),
        })
    }

    async fn conn(&self) -> redis::RedisResult<ConnectionManager> {
        let conn = self
            .conn
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

    /// [`super::Limits::admit`] in Redis (`now_secs`: this gateway's clock, which names the
    /// token buckets).
    pub async fn admit(
        &self,
        rules: &[Rule],
        token_rules: &[TokenRule],
        member: &str,
        now_secs: u64,
    ) -> redis::RedisResult<Result<(), Denied>> {
        let mut conn = self.conn().await?;
        let mut call = self.admit.prepare_invoke();
        call.arg(member).arg(rules.len());
        for rule in rules {
            call.key(key(rule, "all")).key(key(rule, "ok"));
            call.arg(window_ms(rule))
                .arg(rule.max_total)
                .arg(rule.max_success);
        }
        let bucket = tokens::bucket_of(now_secs);
        for rule in token_rules {
            for age in 0..tokens::BUCKETS {
                call.key(bucket_key(rule, bucket.saturating_sub(age)));
            }
            call.arg(rule.max);
        }
        let answer: Vec<i64> = call.invoke_async(&mut conn).await?;
        match answer.as_slice() {
            [1, ..] => Ok(Ok(())),
            [0, index, 3, oldest] => {
                let rule = usize::try_from(*index - 1)
                    .ok()
                    .and_then(|i| i.checked_sub(rules.len()))
                    .and_then(|i| token_rules.get(i))
                    .ok_or_else(|| bad_answer(&answer))?;
                let age = u64::try_from(*oldest).unwrap_or(0);
                Ok(Err(Denied {
                    scope: Scope::Model,
                    max: rule.max,
                    tokens: true,
                    success_only: false,
                    window: Duration::from_secs(tokens::BUCKET_SECS * tokens::BUCKETS),
                    retry_after: tokens::retry_after(age, now_secs),
                }))
            }
            [0, index, kind, retry_ms] => {
                let rule = usize::try_from(*index - 1)
                    .ok()
                    .and_then(|i| rules.get(i))
                    .ok_or_else(|| bad_answer(&answer))?;
                let success_only = *kind == 2;
                let retry = Duration::from_millis(u64::try_from(*retry_ms).unwrap_or(0));
                Ok(Err(Denied {
                    scope: rule.scope,
                    max: u64::from(if success_only {
                        rule.max_success
                    } else {
                        rule.max_total
                    }),
                    tokens: false,
                    success_only,
                    window: rule.window,
                    retry_after: retry.max(Duration::from_secs(1)),
                }))
            }
            _ => Err(bad_answer(&answer)),
        }
    }

    /// Takes a slot of `channel` (at most `max` in flight) for `member`.
    pub async fn take_slot(
        &self,
        channel: i64,
        max: u32,
        member: &str,
    ) -> redis::RedisResult<bool> {
        let mut conn = self.conn().await?;
        let taken: i64 = self
            .take_slot
            .key(format!("{PREFIX}ch:{channel}"))
            .arg(member)
            .arg(max)
            .arg(SLOT_STALE_MS)
            .invoke_async(&mut conn)
            .await?;
        Ok(taken == 1)
    }

    /// Frees the slot `member` holds of `channel`.
    pub async fn free_slot(&self, channel: i64, member: &str) -> redis::RedisResult<()> {
        let mut conn = self.conn().await?;
        let _: i64 = redis::cmd("ZREM")
            .arg(format!("{PREFIX}ch:{channel}"))
            .arg(member)
            .query_async(&mut conn)
            .await?;
        Ok(())
    }

    /// Connects (when not yet) and checks that Redis answers.
    pub async fn ping(&self) -> redis::RedisResult<()> {
        // A connection of its own, closed after: the managed one is opened by the first
        // request that needs it, so its I/O runs on the relay's runtime and a request never
        // waits on the background threads (which may be at idle priority: `crate::sched`).
        let mut conn = self.client.get_multiplexed_async_connection().await?;
        let _: String = redis::cmd("PING").query_async(&mut conn).await?;
        Ok(())
    }

    /// Adds `tokens` to the current bucket of every rule.
    pub async fn add_tokens(
        &self,
        rules: &[TokenRule],
        tokens: u64,
        now_secs: u64,
    ) -> redis::RedisResult<()> {
        let mut conn = self.conn().await?;
        let mut call = self.add_tokens.prepare_invoke();
        let bucket = tokens::bucket_of(now_secs);
        for rule in rules {
            call.key(bucket_key(rule, bucket));
        }
        call.arg(tokens);
        let _: i64 = call.invoke_async(&mut conn).await?;
        Ok(())
    }

    /// Takes back the provisional success of `member` under `rules`.
    pub async fn release(&self, rules: &[Rule], member: &str) -> redis::RedisResult<()> {
        let mut conn = self.conn().await?;
        let mut call = self.release.prepare_invoke();
        call.arg(member);
        for rule in rules {
            call.key(key(rule, "ok"));
        }
        let _: i64 = call.invoke_async(&mut conn).await?;
        Ok(())
    }
}

fn bad_answer(answer: &[i64]) -> redis::RedisError {
    redis::RedisError::from((
        redis::ErrorKind::Client,
        "unexpected answer of the rate-limit script",
        format!("{answer:?}"),
    ))
}
