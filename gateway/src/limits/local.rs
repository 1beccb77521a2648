//! Sliding windows counted in this process: the times of the requests (and of the
//! successful ones) of each subject within its window, oldest first. One lock for the check
//! and the count of a request, so one gateway is exact; only limited callers take it.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{Denied, Rule};

/// Request times of one subject; successes (provisional from admission) with the request.
#[derive(Debug, Default)]
struct Log {
    all: VecDeque<Instant>,
    success: VecDeque<(Instant, String)>,
}

impl Log {
    fn trim(&mut self, now: Instant, window: Duration) {
        let old = |t: &Instant| now.duration_since(*t) >= window;
        while self.all.front().is_some_and(old) {
            self.all.pop_front();
        }
        while self.success.front().is_some_and(|(t, _)| old(t)) {
            self.success.pop_front();
        }
    }
}

/// Logs by subject.
#[derive(Debug, Default)]
pub struct Windows {
    logs: Mutex<HashMap<String, Log>>,
}

/// When a request made at `oldest` leaves its window (at least a second from now).
fn retry_after(oldest: Option<Instant>, now: Instant, window: Duration) -> Duration {
    let left = oldest.map_or(window, |t| window.saturating_sub(now.duration_since(t)));
    left.max(Duration::from_secs(1))
}

impl Windows {
    fn logs(&self) -> std::sync::MutexGuard<'_, HashMap<String, Log>> {
        self.logs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Checks every rule, then counts the request under all of them (none when one refuses):
    /// among all requests, and provisionally among successful ones as `member`.
    pub fn admit(&self, rules: &[Rule], member: &str, now: Instant) -> Result<(), Denied> {
        let mut logs = self.logs();
        for rule in rules {
            let log = logs.entry(rule.key.clone()).or_default();
            log.trim(now, rule.window);
            let refused = |max: u32, success_only: bool, oldest: Option<Instant>| Denied {
                scope: rule.scope,
                max: u64::from(max),
                tokens: false,
                success_only,
                window: rule.window,
                retry_after: retry_after(oldest, now, rule.window),
            };
            if rule.max_total > 0 && log.all.len() >= rule.max_total as usize {
                return Err(refused(rule.max_total, false, log.all.front().copied()));
            }
            if rule.max_success > 0 && log.success.len() >= rule.max_success as usize {
                let oldest = log.success.front().map(|(t, _)| *t);
                return Err(refused(rule.max_success, true, oldest));
            }
        }
        for rule in rules {
            let log = logs.entry(rule.key.clone()).or_default();
            if rule.max_total > 0 {
                log.all.push_back(now);
            }
            if rule.max_success > 0 {
                log.success.push_back((now, member.to_owned()));
            }
        }
        if logs.len() > IDLE_SWEEP_AT {
            // Memory follows the subjects active within the last hour.
            logs.retain(|_, log| {
                log.trim(now, IDLE_AFTER);
                !(log.all.is_empty() && log.success.is_empty())
            });
        }
        Ok(())
    }

    /// Takes back the provisional success of `member` (a failed request).
    pub fn release(&self, rules: &[Rule], member: &str) {
        let mut logs = self.logs();
        for rule in rules {
            if let Some(log) = logs.get_mut(&rule.key)
                && let Some(i) = log.success.iter().rposition(|(_, m)| m == member)
            {
                log.success.remove(i);
            }
        }
    }
}

/// Subjects kept before idle ones are swept.
const IDLE_SWEEP_AT: usize = 4096;
/// A subject without a request for this long is forgotten by a sweep (windows are shorter:
/// token periods and the model limit's minutes are clamped to it).
const IDLE_AFTER: Duration = Duration::from_secs(24 * 3600);

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::limits::Scope;

    fn rule(total: u32, success: u32) -> Rule {
        Rule {
            scope: Scope::Token,
            key: "t:1".into(),
            window: Duration::from_secs(60),
            max_total: total,
            max_success: success,
        }
    }

    #[test]
    fn counts_all_requests_in_a_sliding_window() {
        let w = Windows::default();
        let start = Instant::now();
        let rules = [rule(3, 0)];
        for i in 0..3 {
            w.admit(&rules, "r", start + Duration::from_secs(i * 10))
                .unwrap();
        }
        let denied = w
            .admit(&rules, "r", start + Duration::from_secs(30))
            .unwrap_err();
        assert_eq!(denied.max, 3);
        assert!(!denied.success_only);
        // The first request leaves the window 60 s after it: 30 s from then.
        assert_eq!(denied.retry_after, Duration::from_secs(30));
        w.admit(&rules, "r", start + Duration::from_secs(60))
            .unwrap();
        assert!(
            w.admit(&rules, "r", start + Duration::from_secs(61))
                .is_err()
        );
    }

    #[test]
    fn successes_count_from_admission_failures_are_taken_back() {
        let w = Windows::default();
        let now = Instant::now();
        let rules = [rule(0, 2)];
        for i in 0..5 {
            // Failures do not count against a success limit.
            w.admit(&rules, &format!("f{i}"), now).unwrap();
            w.release(&rules, &format!("f{i}"));
        }
        w.admit(&rules, "a", now).unwrap();
        w.admit(&rules, "b", now).unwrap();
        let denied = w.admit(&rules, "c", now).unwrap_err();
        assert!(denied.success_only);
        assert_eq!(denied.retry_after, Duration::from_secs(60));
        w.release(&rules, "a");
        w.admit(&rules, "c", now).unwrap();
    }

    #[test]
    fn a_refusal_counts_under_no_rule() {
        let w = Windows::default();
        let now = Instant::now();
        let token = rule(10, 0);
        let user = Rule {
            scope: Scope::User,
            key: "u:1".into(),
            max_total: 1,
            ..rule(0, 0)
        };
        w.admit(&[token.clone(), user.clone()], "r", now).unwrap();
        for _ in 0..5 {
            let denied = w
                .admit(&[token.clone(), user.clone()], "r", now)
                .unwrap_err();
            assert_eq!(denied.scope, Scope::User);
        }
        // Only the admitted request counted for the token.
        for _ in 0..9 {
            w.admit(std::slice::from_ref(&token), "r", now).unwrap();
        }
        assert!(w.admit(&[token], "r", now).is_err());
    }
}
