//! Requests a user has in flight on this gateway, capped per group: the second half of the
//! overdraw bound (each running stream can overdraw by at most one read of upstream bytes,
//! so the cap bounds a user's total). Sharded counters; a slot is held by a guard.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::error::BillingError;

const SHARDS: usize = 16;

/// In-flight counts by user id.
#[derive(Debug, Default)]
pub struct Concurrency {
    shards: [Mutex<HashMap<i64, u32>>; SHARDS],
}

impl Concurrency {
    fn shard(&self, user_id: i64) -> MutexGuard<'_, HashMap<i64, u32>> {
        let i = usize::try_from(user_id.rem_euclid(SHARDS as i64)).unwrap_or(0);
        match self.shards[i].lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// Takes a slot for `user_id` when fewer than `limit` are held (`None`: no limit).
    pub fn enter(self: &Arc<Self>, user_id: i64, limit: Option<u32>) -> Result<Slot, BillingError> {
        let mut counts = self.shard(user_id);
        let held = counts.entry(user_id).or_insert(0);
        if let Some(limit) = limit
            && *held >= limit
        {
            return Err(BillingError::TooManyRequestsInFlight { limit });
        }
        *held += 1;
        Ok(Slot {
            owner: self.clone(),
            user_id,
        })
    }

    /// Slots `user_id` holds now.
    pub fn held(&self, user_id: i64) -> u32 {
        self.shard(user_id).get(&user_id).copied().unwrap_or(0)
    }
}

/// One request's slot, given back when dropped.
#[derive(Debug)]
pub struct Slot {
    owner: Arc<Concurrency>,
    user_id: i64,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut counts = self.owner.shard(self.user_id);
        if let Some(n) = counts.get_mut(&self.user_id) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                counts.remove(&self.user_id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn slots_are_capped_and_given_back() {
        let c = Arc::new(Concurrency::default());
        let a = c.enter(7, Some(2)).unwrap();
        let _b = c.enter(7, Some(2)).unwrap();
        assert!(matches!(
            c.enter(7, Some(2)),
            Err(BillingError::TooManyRequestsInFlight { limit: 2 })
        ));
        assert!(c.enter(8, Some(2)).is_ok(), "other users are not affected");
        drop(a);
        assert_eq!(c.held(7), 1);
        let _c = c.enter(7, Some(2)).unwrap();
        assert!(c.enter(7, None).is_ok(), "no limit");
    }
}
