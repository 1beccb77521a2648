//! How the gateway's memory is taken from and handed back to the system: no transparent huge
//! pages, memory freed by requests held for the next burst for a set time, and the allocator's
//! free memory released at once after large, short-lived work.

use std::time::Duration;

/// mimalloc's `mi_option_purge_delay` (milliseconds before freed memory goes back to the
/// system; the same index in mimalloc 2 and 3, which the Rust bindings do not name).
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// The longest hold [`hold_free_memory`] sets: a day.
pub const MAX_HOLD: Duration = Duration::from_secs(24 * 60 * 60);

/// Keeps memory that requests freed for `hold` before it goes back to the system, so that the
/// next burst reuses it instead of faulting in (and zeroing) fresh pages on the relay thread.
/// mimalloc's own delay is one second: a ramp of 9 000 streams then faulted in about 500 MiB
/// again each time (about 13 pages per stream, some 1 CPU-second per ramp), and the streams'
/// time to first event read 1.17 × the pingora floor's; with the memory held, 0.91 ×
/// (`benches/results/2026-12-05-free-memory-hold.md`). Resident memory after a burst stays
/// near the burst's peak for `hold`, which is the price. `Duration::ZERO` hands freed memory
/// back at once; holds past [`MAX_HOLD`] are cut to it. [`release_free_memory`] still
/// releases everything now.
pub fn hold_free_memory(hold: Duration) {
    // Bounded so that mimalloc's `now + delay` cannot overflow.
    let ms =
        std::ffi::c_long::try_from(hold.min(MAX_HOLD).as_millis()).unwrap_or(std::ffi::c_long::MAX);
    // SAFETY: sets one of mimalloc's numeric options; no pointers are passed.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, ms) };
}

/// How long freed memory is held (see [`hold_free_memory`]).
pub fn free_memory_hold() -> Duration {
    // SAFETY: reads one of mimalloc's numeric options.
    let ms = unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) };
    Duration::from_millis(u64::try_from(ms).unwrap_or(0))
}

/// Hands mimalloc's free pages back to the system now instead of lazily. A full config
/// snapshot leaves tens of MiB free behind it with 100 000 tokens (its message, the validation
/// build, the snapshot it replaces): measured with `benches/run`, the idle gateway went from
/// 100 to 62 MiB. Harmless where mimalloc is not the global allocator (tests): it only
/// collects mimalloc's own heaps.
pub fn release_free_memory() {
    // SAFETY: mi_collect only frees memory the allocator holds and no longer hands out.
    unsafe { libmimalloc_sys::mi_collect(true) };
}

/// Turns transparent huge pages off for this process (`PR_SET_THP_DISABLE`). mimalloc asks for
/// them on its arenas, so the first touch of each new 2 MiB region faulted in a whole huge page
/// and zeroed it on the relay thread: opening 9 000 streams spent 52 % of the relay's samples
/// in `clear_page_erms` under `do_huge_pmd_anonymous_page`, and RSS grew in 2 MiB steps.
/// Best effort: where the kernel refuses, huge pages stay as the system configures them.
pub fn no_transparent_huge_pages() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: a flag on the calling process; no pointers are passed.
        let refused = unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) } != 0;
        if refused {
            tracing::debug!(
                error = %std::io::Error::last_os_error(),
                "transparent huge pages stay as the system sets them"
            );
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #[test]
    fn huge_pages_are_off_for_the_process() {
        super::no_transparent_huge_pages();
        // SAFETY: reads the calling process's flag.
        let disabled = unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) };
        assert_eq!(disabled, 1);
    }
}
