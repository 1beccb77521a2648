//! Tokens per minute: the tokens a subject used in the last minute, kept in six buckets of ten
//! seconds (a sliding window to within ten seconds). A request is admitted while the sum is
//! under the limit; its tokens are added when it ends (they are not known before).

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::Duration;

/// Seconds per bucket, and buckets per window (one minute).
pub const BUCKET_SECS: u64 = 10;
pub const BUCKETS: u64 = 6;

/// At most `max` tokens a minute for `key` (a user's use of one model in one group).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRule {
    pub key: String,
    pub max: u64,
}

/// The bucket of a time (Unix seconds).
pub fn bucket_of(unix_secs: u64) -> u64 {
    unix_secs / BUCKET_SECS
}

/// When the window frees the tokens of the bucket `age` buckets older than the current one
/// (0: the current), at `unix_secs`: at least a second.
pub fn retry_after(age: u64, unix_secs: u64) -> Duration {
    let into_bucket = unix_secs % BUCKET_SECS;
    let secs = (BUCKETS - age.min(BUCKETS - 1)) * BUCKET_SECS - into_bucket;
    Duration::from_secs(secs.max(1))
}

/// Token buckets counted in this process.
#[derive(Debug, Default)]
pub struct TokenWindows {
    /// By key: (bucket, tokens), oldest first.
    buckets: Mutex<HashMap<String, VecDeque<(u64, u64)>>>,
}

impl TokenWindows {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, VecDeque<(u64, u64)>>> {
        self.buckets.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The first rule whose window is full at `unix_secs`, with when it frees up.
    pub fn check(&self, rules: &[TokenRule], unix_secs: u64) -> Result<(), (usize, Duration)> {
        let now = bucket_of(unix_secs);
        let mut map = self.lock();
        for (i, rule) in rules.iter().enumerate() {
            let Some(q) = map.get_mut(&rule.key) else {
                continue;
            };
            while q
                .front()
                .is_some_and(|(b, _)| now.saturating_sub(*b) >= BUCKETS)
            {
                q.pop_front();
            }
            let sum: u64 = q.iter().map(|(_, t)| *t).sum();
            if rule.max > 0 && sum >= rule.max {
                let age = q.front().map_or(0, |(b, _)| now - b);
                return Err((i, retry_after(age, unix_secs)));
            }
        }
        Ok(())
    }

    /// Adds `tokens` under every rule at `unix_secs`.
    pub fn add(&self, rules: &[TokenRule], tokens: u64, unix_secs: u64) {
        if tokens == 0 {
            return;
        }
        let now = bucket_of(unix_secs);
        let mut map = self.lock();
        for rule in rules {
            let q = map.entry(rule.key.clone()).or_default();
            match q.back_mut() {
                Some((b, t)) if *b == now => *t += tokens,
                _ => q.push_back((now, tokens)),
            }
            while q.len() as u64 > BUCKETS {
                q.pop_front();
            }
        }
        if map.len() > 4096 {
            map.retain(|_, q| q.back().is_some_and(|(b, _)| now - b < BUCKETS));
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_minute_of_tokens_in_ten_second_buckets() {
        let w = TokenWindows::default();
        let rule = [TokenRule {
            key: "k".into(),
            max: 100,
        }];
        let t0 = 1_000_000; // a bucket boundary
        assert!(w.check(&rule, t0).is_ok());
        w.add(&rule, 60, t0);
        w.add(&rule, 39, t0 + 15);
        assert!(w.check(&rule, t0 + 20).is_ok(), "99 < 100");
        w.add(&rule, 1, t0 + 20);
        let (index, retry) = w.check(&rule, t0 + 25).unwrap_err();
        assert_eq!(index, 0);
        // The first bucket (t0..t0+10) leaves the window at t0 + 60.
        assert_eq!(retry, Duration::from_secs(35));
        assert!(w.check(&rule, t0 + 60).is_ok(), "60 tokens left the window");
    }
}
