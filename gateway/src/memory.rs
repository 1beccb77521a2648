//! How the gateway's memory is taken from and handed back to the system: no transparent huge
//! pages, and the allocator's free memory released after large, short-lived work.

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
