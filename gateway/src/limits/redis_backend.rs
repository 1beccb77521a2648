//! Sliding windows in Redis, shared by every gateway: one sorted set of request times per
//! subject and kind (all, successful), checked and counted by one Lua script in one round
//! trip, with Redis's own clock. Keys share one hash tag so a script's keys are in one slot.

use std::time::Duration;

use redis::Script;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use tokio::sync::OnceCell;

use super::{Denied, Rule};

/// Prefix of every key (`{rl}` is the hash tag).
const PREFIX: &str = "ai-gateway:{rl}:";

/// KEYS: (all, success) per rule. ARGV: member, then per rule window (ms), max all, max
/// success. Answers {1, 0, 0, 0} when admitted (the request counted under every rule that
/// limits all requests, and provisionally as a success under every rule that limits
/// successes), {0, rule index, kind (1 all, 2 success), retry after (ms)} when refused
/// (nothing counted).
const ADMIT: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rules = #KEYS / 2
for i = 1, rules do
  local all, success = KEYS[2 * i - 1], KEYS[2 * i]
  local base = 1 + 3 * (i - 1)
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
for i = 1, rules do
  local base = 1 + 3 * (i - 1)
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

/// KEYS: success sets. ARGV: the member whose provisional success is taken back.
const RELEASE: &str = r"
for i = 1, #KEYS do
  redis.call('ZREM', KEYS[i], ARGV[1])
end
return 1
";

/// The Redis side of the limits: one managed (reconnecting) connection, made on first use.
pub struct RedisLimits {
    client: redis::Client,
    conn: OnceCell<ConnectionManager>,
    admit: Script,
    release: Script,
}

fn key(rule: &Rule, kind: &str) -> String {
    format!("{PREFIX}{}:{kind}", rule.key)
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

    /// [`super::Limits::admit`] in Redis.
    pub async fn admit(
        &self,
        rules: &[Rule],
        member: &str,
    ) -> redis::RedisResult<Result<(), Denied>> {
        let mut conn = self.conn().await?;
        let mut call = self.admit.prepare_invoke();
        call.arg(member);
        for rule in rules {
            call.key(key(rule, "all")).key(key(rule, "ok"));
            call.arg(window_ms(rule))
                .arg(rule.max_total)
                .arg(rule.max_success);
        }
        let answer: Vec<i64> = call.invoke_async(&mut conn).await?;
        match answer.as_slice() {
            [1, ..] => Ok(Ok(())),
            [0, index, kind, retry_ms] => {
                let rule = usize::try_from(*index - 1)
                    .ok()
                    .and_then(|i| rules.get(i))
                    .ok_or_else(|| bad_answer(&answer))?;
                let success_only = *kind == 2;
                let retry = Duration::from_millis(u64::try_from(*retry_ms).unwrap_or(0));
                Ok(Err(Denied {
                    scope: rule.scope,
                    max: if success_only {
                        rule.max_success
                    } else {
                        rule.max_total
                    },
                    success_only,
                    window: rule.window,
                    retry_after: retry.max(Duration::from_secs(1)),
                }))
            }
            _ => Err(bad_answer(&answer)),
        }
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
