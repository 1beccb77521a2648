//! Requests in flight per channel (a channel's `max_concurrency`), counted on this gateway;
//! the fleet-wide count lives in Redis (see `redis_backend`), and this one takes over while
//! Redis is away.

use std::collections::HashMap;
use std::sync::Mutex;

/// In-flight counts by channel.
#[derive(Debug, Default)]
pub struct LocalSlots {
    in_flight: Mutex<HashMap<i64, u32>>,
}

impl LocalSlots {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<i64, u32>> {
        self.in_flight.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Takes a slot of `channel` when fewer than `max` are taken.
    pub fn take(&self, channel: i64, max: u32) -> bool {
        let mut map = self.lock();
        let n = map.entry(channel).or_default();
        if *n >= max {
            return false;
        }
        *n += 1;
        true
    }

    /// Gives a slot of `channel` back.
    pub fn free(&self, channel: i64) {
        let mut map = self.lock();
        if let Some(n) = map.get_mut(&channel) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                map.remove(&channel);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_most_max_in_flight() {
        let s = LocalSlots::default();
        assert!(s.take(1, 2));
        assert!(s.take(1, 2));
        assert!(!s.take(1, 2));
        assert!(s.take(2, 1), "channels are counted apart");
        s.free(1);
        assert!(s.take(1, 2));
    }
}
