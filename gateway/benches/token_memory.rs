//! Memory a token costs in the gateway's config: a snapshot with 100 000 tokens (over 10 000
//! users) against the same snapshot without tokens, counted by a global allocator that keeps
//! the live heap bytes, and reported per token (the aim: ≤ 300 bytes); with the time
//! the build took (a gateway pays it once when it starts, and once per full snapshot).
//!
//! `cargo bench -p gateway --bench token_memory` (`-- --tokens 10000` to change the count).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::{Duration, Instant};

use gateway::config::Snapshot;
use proto::config::v1 as pb;

/// The system allocator, counting the bytes in use.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is passed on to the system allocator unchanged; only a counter is kept.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's layout is passed on as it came.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        // SAFETY: as for `alloc` and `dealloc`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const USERS: i64 = 10_000;

fn raw(tokens: i64) -> pb::Snapshot {
    pb::Snapshot {
        version: 1,
        users: (1..=USERS)
            .map(|id| pb::User {
                id,
                username: format!("user{id}"),
                status: 1,
                group: "default".to_owned(),
                quota: 1_000_000,
                role: 1,
                ..pb::User::default()
            })
            .collect(),
        tokens: (1..=tokens)
            .map(|id| pb::Token {
                id,
                user_id: id % USERS + 1,
                name: format!("token {id}"),
                key_hash: format!(
                    "{:064x}",
                    u128::try_from(id).unwrap_or(0) * 0x9e37_79b9_7f4a_7c15
                ),
                status: 1,
                expired_time: -1,
                remain_quota: 500_000,
                group: "default".to_owned(),
                ..pb::Token::default()
            })
            .collect(),
        ..pb::Snapshot::default()
    }
}

/// Live heap bytes of the snapshot built from `tokens` tokens (the raw message dropped first),
/// and the time the build took.
fn snapshot_bytes(tokens: i64) -> (isize, Duration, Snapshot) {
    let message = raw(tokens);
    let before = LIVE.load(Ordering::Relaxed);
    let started = Instant::now();
    let snapshot = match Snapshot::build(&message) {
        Ok(s) => s,
        Err(e) => panic!("benchmark snapshot is invalid: {e}"),
    };
    let took = started.elapsed();
    let after = LIVE.load(Ordering::Relaxed);
    drop(message);
    (after - before, took, snapshot)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let tokens = args
        .iter()
        .position(|a| a == "--tokens")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000_i64);
    let (empty, _, empty_snapshot) = snapshot_bytes(0);
    let (full, took, full_snapshot) = snapshot_bytes(tokens);
    let per_token = (full - empty) as f64 / tokens as f64;
    println!(
        "config of {USERS} users: {:.1} MiB without tokens, {:.1} MiB with {tokens}: {per_token:.0} bytes per token (aim ≤ 300); built in {:.1} ms",
        empty as f64 / 1_048_576.0,
        full as f64 / 1_048_576.0,
        took.as_secs_f64() * 1000.0,
    );
    drop((empty_snapshot, full_snapshot));
}
