//! One shared copy of each token group name: a deployment's many tokens name a handful of
//! groups, so each token holds a pointer to the group's string, not a string of its own.

use std::collections::HashSet;
use std::sync::{Arc, LazyLock, Mutex};

/// Names seen, with the size at which names no entry holds any more are dropped.
struct Pool {
    names: HashSet<Arc<str>>,
    prune_at: usize,
}

static POOL: LazyLock<Mutex<Pool>> = LazyLock::new(|| {
    Mutex::new(Pool {
        names: HashSet::new(),
        prune_at: 64,
    })
});

/// The shared copy of `name`.
pub fn group(name: &str) -> Arc<str> {
    let mut pool = match POOL.lock() {
        Ok(pool) => pool,
        Err(poisoned) => poisoned.into_inner(),
    };
    if let Some(shared) = pool.names.get(name) {
        return shared.clone();
    }
    if pool.names.len() >= pool.prune_at {
        pool.names.retain(|shared| Arc::strong_count(shared) > 1);
        pool.prune_at = (pool.names.len() * 2).max(64);
    }
    let shared: Arc<str> = Arc::from(name);
    pool.names.insert(shared.clone());
    shared
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_names_share_one_string_and_unused_ones_are_dropped() {
        let a = group("interned-test-a");
        let b = group("interned-test-a");
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(&*a, "interned-test-a");
        // Many names nobody keeps: the pool stays bounded.
        for i in 0..10_000 {
            drop(group(&format!("interned-test-{i}")));
        }
        let pool = POOL.lock().unwrap_or_else(|p| p.into_inner());
        assert!(pool.names.len() < 1_000, "{} names kept", pool.names.len());
        assert!(pool.names.contains("interned-test-a"));
    }
}
