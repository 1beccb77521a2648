//! `--hold`: the targets started and warmed up, then left running for profiling by hand.

use std::time::Duration;

use crate::targets::{Target, Workload};

/// Prints how to reach each target (its address, the measured pid, a curl command per
/// workload) and keeps them running for `seconds`; they stop when the caller drops them.
pub fn print_and_wait(targets: &[Target], seconds: Duration) {
    for t in targets {
        println!("{}: {} (pid {})", t.kind, t.addr, t.pid);
        if let Some(cp) = t.control_plane_pid {
            println!("  control plane pid {cp}");
        }
        for w in [Workload::Chat, Workload::Stream] {
            let req = t.request(w);
            let headers: String = req
                .headers
                .iter()
                .map(|(k, v)| format!(" -H '{k}: {v}'"))
                .collect();
            println!(
                "  {}: curl -sS{headers} -d '{}' {}",
                w.label(),
                req.body,
                req.url
            );
        }
    }
    println!("holding for {} s", seconds.as_secs());
    std::thread::sleep(seconds);
}
