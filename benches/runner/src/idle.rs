//! Idle memory: a target's process tree read a few seconds after it is ready (the gateway's
//! first snapshot loaded, as `/readyz` says), before it has served any request.

use std::time::{Duration, Instant};

use anyhow::bail;

use crate::http::Conn;
use crate::procs::{self, Child};

/// How long a ready target is left alone before its memory is read.
pub const SETTLE: Duration = Duration::from_secs(3);

/// Waits until the gateway's admin port answers `/readyz` with 200 (its config has arrived).
pub fn wait_ready(admin: &str, limit: Duration, child: &mut Child) -> anyhow::Result<()> {
    let start = Instant::now();
    let mut conn = Conn::new(admin, Duration::from_secs(5));
    loop {
        if let Ok(a) = conn.send("GET", "/readyz", &[], b"")
            && a.status == 200
        {
            return Ok(());
        }
        child.check_running()?;
        if start.elapsed() > limit {
            bail!("{} not ready after {} s", child.name, limit.as_secs());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `VmRSS` of `pid` and its descendants, in KiB, [`SETTLE`] from now.
pub fn settled_rss(pid: u32) -> u64 {
    std::thread::sleep(SETTLE);
    procs::tree_rss_kib(pid)
}
