//! Balance churn: a background thread that edits balances through the control plane's REST API
//! at a fixed rate while the gateway is loaded, so config deltas keep reaching it. Edits
//! alternate between a random seeded token's balance (`PUT /api/token/`) and the balance of
//! root, who owns every token (`PUT /api/user/`, `quota_delta`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::cp_api::Api;
use crate::results::Churn;
use crate::stats::{Rng, median};

/// A token the churn may edit: its id and name (a token edit sends the whole form).
pub type Editable = (i64, String);

/// The running churn thread.
pub struct ChurnThread {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Churn>,
}

impl ChurnThread {
    /// Starts editing `rate` times a second with `api`'s session.
    pub fn start(mut api: Api, tokens: Arc<Vec<Editable>>, rate: f64) -> ChurnThread {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut rng = Rng::new(0xC4_u64);
            let mut out = Churn {
                rate,
                ..Churn::default()
            };
            let mut calls = Vec::new();
            let start = Instant::now();
            let mut i: u64 = 0;
            while !flag.load(Ordering::Relaxed) {
                let due = start + Duration::from_secs_f64(i as f64 / rate.max(0.001));
                if let Some(wait) = due.checked_duration_since(Instant::now()) {
                    // Short sleeps, so stopping is prompt at low rates too.
                    std::thread::sleep(wait.min(Duration::from_millis(50)));
                    continue;
                }
                let t0 = Instant::now();
                let token = i
                    .is_multiple_of(2)
                    .then(|| tokens.get(rng.below(tokens.len() as u64) as usize))
                    .flatten();
                let result = match token {
                    Some((id, name)) => {
                        let quota = 1_000_000_000 + rng.below(1_000_000_000) as i64;
                        api.set_token_quota(*id, name, quota)
                    }
                    None => api.add_user_quota(1, 1),
                };
                calls.push(t0.elapsed().as_secs_f64() * 1e3);
                match (result, token) {
                    (Ok(()), Some(_)) => out.token_edits += 1,
                    (Ok(()), None) => out.user_edits += 1,
                    (Err(e), _) => {
                        if out.failed == 0 {
                            eprintln!("churn: an edit failed: {e:#}");
                        }
                        out.failed += 1;
                    }
                }
                i += 1;
            }
            out.seconds = start.elapsed().as_secs_f64();
            out.call_p50_ms = median(calls);
            out
        });
        ChurnThread { stop, thread }
    }

    /// Stops the thread; what it did.
    pub fn finish(self) -> Churn {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap_or_default()
    }
}

/// The repetitions of the churn row together: counts and seconds added, the median of the
/// runs' median call times.
pub fn combine(runs: &[Churn]) -> Option<Churn> {
    let first = runs.first()?;
    Some(Churn {
        rate: first.rate,
        token_edits: runs.iter().map(|c| c.token_edits).sum(),
        user_edits: runs.iter().map(|c| c.user_edits).sum(),
        failed: runs.iter().map(|c| c.failed).sum(),
        seconds: runs.iter().map(|c| c.seconds).sum(),
        call_p50_ms: median(runs.iter().map(|c| c.call_p50_ms)),
    })
}
