//! A circuit breaker per channel key, local to this gateway: consecutive failed attempts open
//! it (routing skips the key, and a channel whose keys are all open, for a cool-down), then one
//! trial request may use it (half-open): a success closes the breaker, a failure opens it again
//! for twice as long. The control plane's auto-disable takes a channel out for the whole fleet;
//! the breaker reacts within this gateway before that, and for failures the options do not
//! name.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// When a breaker opens and for how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BreakerPolicy {
    /// Consecutive failed attempts that open a breaker (0: breakers never open).
    pub failures_to_open: u32,
    /// The first cool-down; each failed trial doubles it, up to `max_cooldown`.
    pub cooldown: Duration,
    pub max_cooldown: Duration,
}

impl Default for BreakerPolicy {
    fn default() -> Self {
        BreakerPolicy {
            failures_to_open: 5,
            cooldown: Duration::from_secs(10),
            max_cooldown: Duration::from_secs(300),
        }
    }
}

/// A trial that has not ended after this long no longer blocks another one.
const STALE_TRIAL: Duration = Duration::from_secs(60);

/// One key's breaker; keys without failures have none.
#[derive(Debug, Clone)]
struct Breaker {
    failures: u32,
    /// Set while open: no attempt before this instant, then one trial.
    open_until: Option<Instant>,
    cooldown: Duration,
    /// When the current trial began (half-open with a request in flight).
    trial_since: Option<Instant>,
}

/// What routing may do with a key now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyState {
    Closed,
    /// Open, cool-down not over (or a trial is in flight).
    Open,
    /// Cool-down over: one trial may go.
    Trial,
}

/// The breakers of every channel key that failed lately, by (channel id, key index).
#[derive(Debug, Default)]
pub struct Breakers {
    policy: Mutex<BreakerPolicy>,
    entries: Mutex<HashMap<(i64, u32), Breaker>>,
    /// How many entries exist: the request path takes no lock while it is zero.
    tracked: AtomicUsize,
    /// Breakers opened (counting re-opens after failed trials).
    opened: AtomicUsize,
}

impl Breakers {
    pub fn new(policy: BreakerPolicy) -> Breakers {
        Breakers {
            policy: Mutex::new(policy),
            ..Breakers::default()
        }
    }

    /// Replaces the policy (breakers already open keep their cool-down).
    pub fn set_policy(&self, policy: BreakerPolicy) {
        if let Ok(mut p) = self.policy.lock() {
            *p = policy;
        }
    }

    fn policy(&self) -> BreakerPolicy {
        self.policy.lock().map(|p| *p).unwrap_or_default()
    }

    /// The state of one key at `now`.
    pub fn state(&self, channel: i64, key: u32, now: Instant) -> KeyState {
        if self.tracked.load(Ordering::Acquire) == 0 {
            return KeyState::Closed;
        }
        let Ok(entries) = self.entries.lock() else {
            return KeyState::Closed;
        };
        match entries.get(&(channel, key)) {
            None => KeyState::Closed,
            Some(b) => match b.open_until {
                None => KeyState::Closed,
                Some(until) if now < until => KeyState::Open,
                Some(_) => match b.trial_since {
                    Some(since) if now.duration_since(since) < STALE_TRIAL => KeyState::Open,
                    _ => KeyState::Trial,
                },
            },
        }
    }

    /// Whether routing may use the key now (closed, or due for a trial).
    pub fn allows(&self, channel: i64, key: u32, now: Instant) -> bool {
        self.state(channel, key, now) != KeyState::Open
    }

    /// An attempt is about to use the key: a due trial is marked as in flight, so concurrent
    /// requests keep away from the key until it ends.
    pub fn begin(&self, channel: i64, key: u32, now: Instant) {
        if self.state(channel, key, now) != KeyState::Trial {
            return;
        }
        if let Ok(mut entries) = self.entries.lock()
            && let Some(b) = entries.get_mut(&(channel, key))
        {
            b.trial_since = Some(now);
        }
    }

    /// The attempt got an answer from the upstream: the breaker closes. Answers whether the
    /// key had one.
    pub fn succeeded(&self, channel: i64, key: u32) -> bool {
        if self.tracked.load(Ordering::Acquire) == 0 {
            return false;
        }
        let Ok(mut entries) = self.entries.lock() else {
            return false;
        };
        let had = entries.remove(&(channel, key)).is_some();
        self.tracked.store(entries.len(), Ordering::Release);
        had
    }

    /// The attempt failed for a reason of the channel's (no answer, a 5xx, a refused key, too
    /// many requests). Answers whether the breaker opened because of it.
    pub fn failed(&self, channel: i64, key: u32, now: Instant) -> bool {
        let policy = self.policy();
        if policy.failures_to_open == 0 {
            return false;
        }
        let Ok(mut entries) = self.entries.lock() else {
            return false;
        };
        let b = entries.entry((channel, key)).or_insert(Breaker {
            failures: 0,
            open_until: None,
            cooldown: policy.cooldown,
            trial_since: None,
        });
        b.failures = b.failures.saturating_add(1);
        let opened = match b.open_until {
            // A failed trial (or a failure of a request sent before the breaker opened):
            // open again, for longer when the cool-down was over.
            Some(until) => {
                if now >= until {
                    b.cooldown = (b.cooldown * 2).min(policy.max_cooldown);
                }
                b.open_until = Some(now + b.cooldown);
                b.trial_since = None;
                now >= until
            }
            None if b.failures >= policy.failures_to_open => {
                b.open_until = Some(now + b.cooldown);
                true
            }
            None => false,
        };
        self.tracked.store(entries.len(), Ordering::Release);
        if opened {
            self.opened.fetch_add(1, Ordering::Relaxed);
        }
        opened
    }

    /// How many keys are open or due for a trial now.
    pub fn open_count(&self) -> usize {
        self.entries
            .lock()
            .map(|e| e.values().filter(|b| b.open_until.is_some()).count())
            .unwrap_or(0)
    }

    /// How many times a breaker opened since start.
    pub fn opened_total(&self) -> usize {
        self.opened.load(Ordering::Relaxed)
    }

    /// Forgets the breakers of channels no longer configured.
    pub fn retain_channels(&self, exists: impl Fn(i64) -> bool) {
        if self.tracked.load(Ordering::Acquire) == 0 {
            return;
        }
        if let Ok(mut entries) = self.entries.lock() {
            entries.retain(|(channel, _), _| exists(*channel));
            self.tracked.store(entries.len(), Ordering::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn breakers() -> Breakers {
        Breakers::new(BreakerPolicy {
            failures_to_open: 3,
            cooldown: Duration::from_secs(10),
            max_cooldown: Duration::from_secs(25),
        })
    }

    #[test]
    fn consecutive_failures_open_and_a_success_resets() {
        let b = breakers();
        let t = Instant::now();
        assert!(!b.failed(1, 0, t));
        assert!(!b.failed(1, 0, t));
        b.succeeded(1, 0);
        assert_eq!(b.tracked.load(Ordering::Relaxed), 0);
        assert!(!b.failed(1, 0, t));
        assert!(!b.failed(1, 0, t));
        assert!(b.failed(1, 0, t));
        assert_eq!(b.state(1, 0, t), KeyState::Open);
        assert_eq!(
            b.state(1, 1, t),
            KeyState::Closed,
            "other keys are not affected"
        );
        assert_eq!(b.state(2, 0, t), KeyState::Closed);
        assert_eq!(b.open_count(), 1);
    }

    #[test]
    fn one_trial_after_the_cooldown_then_longer_cooldowns() {
        let b = breakers();
        let t = Instant::now();
        for _ in 0..3 {
            b.failed(7, 2, t);
        }
        let later = t + Duration::from_secs(10);
        assert_eq!(b.state(7, 2, later), KeyState::Trial);
        b.begin(7, 2, later);
        assert_eq!(b.state(7, 2, later), KeyState::Open, "one trial at a time");
        assert!(b.failed(7, 2, later), "a failed trial opens again");
        assert_eq!(
            b.state(7, 2, later + Duration::from_secs(19)),
            KeyState::Open
        );
        let again = later + Duration::from_secs(20);
        assert_eq!(b.state(7, 2, again), KeyState::Trial);
        b.begin(7, 2, again);
        b.failed(7, 2, again);
        assert_eq!(
            b.state(7, 2, again + Duration::from_secs(24)),
            KeyState::Open
        );
        assert_eq!(
            b.state(7, 2, again + Duration::from_secs(25)),
            KeyState::Trial,
            "capped at the maximum cool-down"
        );
        b.succeeded(7, 2);
        assert_eq!(b.state(7, 2, again), KeyState::Closed);
        assert_eq!(b.opened_total(), 3);
    }

    #[test]
    fn a_stuck_trial_does_not_block_forever_and_zero_disables() {
        let b = breakers();
        let t = Instant::now();
        for _ in 0..3 {
            b.failed(1, 0, t);
        }
        let due = t + Duration::from_secs(10);
        b.begin(1, 0, due);
        assert_eq!(b.state(1, 0, due + STALE_TRIAL), KeyState::Trial);

        let off = Breakers::new(BreakerPolicy {
            failures_to_open: 0,
            ..BreakerPolicy::default()
        });
        for _ in 0..100 {
            assert!(!off.failed(1, 0, t));
        }
        assert!(off.allows(1, 0, t));
    }

    #[test]
    fn removed_channels_are_forgotten() {
        let b = breakers();
        let t = Instant::now();
        b.failed(1, 0, t);
        b.failed(2, 0, t);
        b.retain_channels(|id| id == 2);
        assert_eq!(b.tracked.load(Ordering::Relaxed), 1);
    }
}
