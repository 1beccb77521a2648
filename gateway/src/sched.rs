//! How the gateway's background threads are scheduled beside the relay threads.

/// Marks the calling thread as background work (`SCHED_BATCH`): it keeps its fair share of
/// the CPU, but its wake-ups (a spool commit, a config delta, a usage batch) no longer preempt
/// a relay thread in the middle of a request. On a core shared with the relay, such
/// preemptions were the gateway's latency tail. Best effort: where the kernel refuses, the
/// thread stays as it was.
pub fn background() {
    #[cfg(target_os = "linux")]
    {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: plain syscall on the calling thread (pid 0) with a valid parameter.
        let refused = unsafe { libc::sched_setscheduler(0, libc::SCHED_BATCH, &param) } != 0;
        if refused {
            tracing::debug!(
                error = %std::io::Error::last_os_error(),
                "background thread keeps the default scheduling"
            );
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #[test]
    fn a_background_thread_runs_as_batch() {
        let policy = std::thread::spawn(|| {
            super::background();
            // SAFETY: reads the calling thread's policy.
            unsafe { libc::sched_getscheduler(0) }
        })
        .join()
        .unwrap_or(-1);
        assert_eq!(policy, libc::SCHED_BATCH);
    }
}
