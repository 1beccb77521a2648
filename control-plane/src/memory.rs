//! How long the control plane's allocator keeps freed memory before handing it back to the
//! system.

/// mimalloc's `mi_option_purge_delay` (its option enum's 16th entry; `libmimalloc-sys` names
/// only some options).
const PURGE_DELAY_OPTION: libmimalloc_sys::mi_option_t = 15;

/// How long freed pages stay with the allocator, in milliseconds. Each usage batch (one every
/// 200 ms from each gateway under load) builds statements of several hundred KiB that a
/// SQLite worker thread frees; with mimalloc's default of 1 s those pages were handed back
/// and faulted in again, as zeroed 2 MiB huge pages, hundreds of times a second
/// (`benches/results/2026-12-02-control-plane-purge.md`). Ten seconds keeps them while
/// batches arrive and still gives memory back soon after a burst ends.
pub const PURGE_DELAY_MS: i64 = 10_000;

/// Sets the purge delay to [`PURGE_DELAY_MS`], unless the operator chose one with mimalloc's
/// own `MIMALLOC_PURGE_DELAY`. Harmless where mimalloc is not the global allocator (tests):
/// the option only governs mimalloc's own heaps.
pub fn keep_freed_pages() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return;
    }
    // SAFETY: sets one of mimalloc's numeric options; no pointers are passed.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY_OPTION, PURGE_DELAY_MS) };
}

/// The purge delay mimalloc uses now, in milliseconds.
pub fn purge_delay_ms() -> i64 {
    // SAFETY: reads one of mimalloc's numeric options.
    unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY_OPTION) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_option_set_is_the_purge_delay() {
        // The option's default (1 s in mimalloc 3) unless the environment set it.
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert_eq!(super::purge_delay_ms(), 1000, "not mimalloc's purge delay");
        }
        super::keep_freed_pages();
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert_eq!(super::purge_delay_ms(), super::PURGE_DELAY_MS);
        }
    }
}
