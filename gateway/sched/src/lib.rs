//! How both planes' background threads are scheduled beside the threads that serve: at idle
//! priority while they keep up, promoted to `SCHED_BATCH` as soon as a backlog shows they do not.
//!
//! In the gateway, the spool writer, the control-plane link and the telemetry exporter share the
//! relay's cores. At their ordinary priority, each of their wake-ups (a group commit, a usage
//! batch, a config delta) takes the core from a relay thread for its whole slice, and the request
//! it was serving waits: that was the gateway's latency tail under moderate load. In the control
//! plane, the SQLite threads that write usage batches do the same to whatever shares their core
//! (a gateway on the same host, or the upstream it calls). As `SCHED_IDLE` they run only in the
//! cores' idle time, which at such a load is plenty. At saturation there is no idle time
//! and an idle-priority thread gets almost nothing. So a watchdog (itself `SCHED_BATCH`, waking
//! every [`TICK`]) asks each watched piece of background work whether it is behind: the usage
//! queue holding a record longer than [`LATE`], a runtime that has not run a ping within
//! [`LATE`], a usage batch written for longer than [`LATE`]. The usage queue passing its
//! promotion mark promotes at once. A promotion moves every background thread to `SCHED_BATCH`
//! (its fair share, still without preempting a serving thread on wake-up) until nothing has been
//! behind for [`HOLD`]. A promotion is always safe (it is the policy these threads had before);
//! only the way back waits for proof. Idle priority is engaged by the owner of a watched backlog:
//! without one (usage to a file, say) background threads stay `SCHED_BATCH`.
//!
//! Threads register themselves ([`Governor::register_current`]); threads a library spawns,
//! which run no code of ours, are adopted by name ([`Governor::adopt_named`]).
//!
//! Leaving `SCHED_IDLE` needs `CAP_SYS_NICE` or an `RLIMIT_NICE` of 20 (a plain non-root
//! container has neither). The governor checks once on a throw-away thread; where the kernel
//! refuses the way back, background threads stay `SCHED_BATCH` from the start.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long background threads stay promoted after the last backlog.
pub const HOLD: Duration = Duration::from_secs(5);
/// How often the watchdog asks whether background work is behind.
pub const TICK: Duration = Duration::from_millis(100);
/// Work waiting longer than this is behind.
pub const LATE: Duration = Duration::from_millis(100);

/// A piece of background work the watchdog asks whether it is behind (asked every [`TICK`]
/// from the watchdog thread, with the mode the threads run in; must be cheap).
pub trait Backlog: Send + Sync {
    fn behind(&self, now: Instant, mode: Mode) -> bool;
}

/// A shared backlog (the owner keeps a handle to update it).
impl<T: Backlog + ?Sized> Backlog for std::sync::Arc<T> {
    fn behind(&self, now: Instant, mode: Mode) -> bool {
        (**self).behind(now, mode)
    }
}

/// The scheduling policy background threads run with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `SCHED_IDLE`: only in the cores' idle time.
    Idle,
    /// `SCHED_BATCH`: a fair share, no wake-up preemption.
    Batch,
}

/// The background threads of one process and the policy they share.
pub struct Governor {
    /// Thread ids (Linux tids) of the registered threads. Held while their policy changes, so a
    /// thread cannot exit (its unregistering waits) and hand its id to another thread meanwhile.
    threads: Mutex<Vec<i32>>,
    idle: AtomicBool,
    /// Set by [`Governor::engage`]: idle priority may be used from then on.
    engaged: AtomicBool,
    /// Whether threads may run idle at all: the way back to `SCHED_BATCH` is allowed.
    adaptive: bool,
    /// Milliseconds since `epoch` of the last promotion (or backlog while promoted).
    promoted_at_ms: AtomicU64,
    epoch: Instant,
    hold: Duration,
    watched: Mutex<Vec<Box<dyn Backlog>>>,
    /// Name prefixes of adopted threads ([`Governor::adopt_named`]).
    named: Mutex<Vec<&'static str>>,
}

impl Governor {
    /// A governor whose threads run `SCHED_BATCH` until [`Governor::engage`], and then, when
    /// `adaptive`, idle except for `hold` after each promotion.
    pub fn new(adaptive: bool, hold: Duration) -> Self {
        Governor {
            threads: Mutex::new(Vec::new()),
            idle: AtomicBool::new(false),
            engaged: AtomicBool::new(false),
            adaptive,
            promoted_at_ms: AtomicU64::new(0),
            epoch: Instant::now(),
            hold,
            watched: Mutex::new(Vec::new()),
            named: Mutex::new(Vec::new()),
        }
    }

    /// A governor for this process: adaptive where the kernel allows the way back from idle
    /// priority, promoted for [`HOLD`].
    pub fn for_process() -> Self {
        Governor::new(idle_can_be_left(), HOLD)
    }

    /// The policy background threads run with now.
    pub fn mode(&self) -> Mode {
        if self.idle.load(Ordering::Acquire) {
            Mode::Idle
        } else {
            Mode::Batch
        }
    }

    /// Registers the calling thread (until it exits) and gives it the current policy.
    pub fn register_current(&'static self) {
        let tid = current_tid();
        let earlier = MEMBERSHIP.with(|m| {
            m.borrow_mut().replace(Membership {
                governor: self,
                tid,
            })
        });
        // Leaves the governor it was in before (none, for every thread of the gateway).
        drop(earlier);
        let mut threads = self.lock();
        threads.push(tid);
        apply(tid, self.mode());
    }

    /// Adds a piece of background work whose backlog promotes the background threads.
    pub fn watch(&self, backlog: Box<dyn Backlog>) {
        self.watched
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(backlog);
    }

    /// Treats this process's threads whose name starts with `prefix` (as `/proc/self/task/*/comm`
    /// shows it, at most 15 bytes) as registered: threads a library spawns (a database driver's
    /// workers, say) and that run no code of ours. They are looked up at every change of policy
    /// and every watchdog round, so a thread spawned meanwhile (it starts with its spawner's
    /// policy) follows within a [`TICK`].
    pub fn adopt_named(&self, prefix: &'static str) {
        self.named
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(prefix);
        self.apply_named(self.mode());
    }

    /// Gives the adopted threads `mode`'s policy where they have another.
    fn apply_named(&self, mode: Mode) {
        let prefixes = self
            .named
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if prefixes.is_empty() {
            return;
        }
        for tid in threads_named(&prefixes) {
            if current_policy(tid) != Some(mode) {
                apply(tid, mode);
            }
        }
    }

    /// Lets background threads run at idle priority (when `adaptive`) and starts the watchdog
    /// that promotes them: called by the owner of a watched backlog, once it is watched.
    pub fn engage(&'static self) {
        if !self.enable_idle() {
            return;
        }
        let started = std::thread::Builder::new()
            .name("sched-watch".into())
            .spawn(move || {
                batch_current();
                loop {
                    std::thread::sleep(TICK);
                    self.check(Instant::now());
                }
            });
        if let Err(err) = started {
            tracing::warn!(error = %err, "no scheduling watchdog: background threads stay SCHED_BATCH");
            self.engaged.store(false, Ordering::Release);
            self.set_mode(Mode::Batch);
        }
    }

    /// Moves the threads to idle priority, once: false when that is not to be (not adaptive,
    /// or done before).
    fn enable_idle(&self) -> bool {
        if !self.adaptive || self.engaged.swap(true, Ordering::AcqRel) {
            return false;
        }
        self.set_mode(Mode::Idle);
        true
    }

    /// One watchdog round at `now`: promote when anything is behind, otherwise settle.
    pub fn check(&self, now: Instant) {
        let mode = self.mode();
        let behind = self
            .watched
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .any(|b| b.behind(now, mode));
        if behind {
            self.promote_at(now);
        } else {
            self.settle(now);
        }
        self.apply_named(self.mode());
    }

    /// A backlog: background threads get their fair share from now on, for at least `hold`.
    pub fn promote(&self) {
        self.promote_at(Instant::now());
    }

    fn promote_at(&self, now: Instant) {
        self.promoted_at_ms.store(self.ms(now), Ordering::Release);
        if self.idle.load(Ordering::Acquire) {
            self.set_mode(Mode::Batch);
        }
    }

    /// Nothing behind at `now`: once `hold` has passed since the last promotion, background
    /// threads go back to idle priority. Cheap when nothing is due (atomic loads).
    fn settle(&self, now: Instant) {
        if !self.engaged.load(Ordering::Acquire) || self.idle.load(Ordering::Acquire) {
            return;
        }
        let since = self
            .ms(now)
            .saturating_sub(self.promoted_at_ms.load(Ordering::Acquire));
        if u128::from(since) >= self.hold.as_millis() {
            self.set_mode(Mode::Idle);
        }
    }

    /// Applies `mode` to every registered thread, unless it is the mode already (checked
    /// under the registry's lock: one change applies the policy once).
    fn set_mode(&self, mode: Mode) {
        let threads = self.lock();
        let idle = mode == Mode::Idle;
        if self.idle.swap(idle, Ordering::AcqRel) == idle {
            return;
        }
        tracing::debug!(
            threads = threads.len(),
            ?mode,
            "background threads rescheduled"
        );
        for &tid in threads.iter() {
            apply(tid, mode);
        }
        drop(threads);
        self.apply_named(mode);
    }

    fn unregister(&self, tid: i32) {
        self.lock().retain(|&t| t != tid);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<i32>> {
        self.threads
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// `now` in milliseconds since the governor was made.
    fn ms(&self, now: Instant) -> u64 {
        millis_since(self.epoch, now)
    }
}

/// Whole milliseconds from `epoch` to `at` (0 when `at` is earlier): instants kept in atomics.
pub fn millis_since(epoch: Instant, at: Instant) -> u64 {
    u64::try_from(at.saturating_duration_since(epoch).as_millis()).unwrap_or(u64::MAX)
}

/// The process's governor (adaptive where the kernel allows the way back from idle priority).
pub fn governor() -> &'static Governor {
    static GOVERNOR: OnceLock<Governor> = OnceLock::new();
    GOVERNOR.get_or_init(Governor::for_process)
}

/// Marks the calling thread as background work of the process's governor.
pub fn background() {
    governor().register_current();
}

/// Watches a tokio runtime's threads (workers and blocking pool): behind when a ping spawned on
/// it (a task that runs a no-op on the blocking pool) has not finished within [`LATE`]. Pings
/// only while the threads are idle: promoted, they have their share, and the hold runs out
/// on the other backlogs alone.
pub struct RuntimePing {
    handle: tokio::runtime::Handle,
    sent: Mutex<Option<Instant>>,
    answered: std::sync::Arc<AtomicBool>,
}

impl RuntimePing {
    pub fn new(handle: tokio::runtime::Handle) -> Self {
        RuntimePing {
            handle,
            sent: Mutex::new(None),
            answered: std::sync::Arc::new(AtomicBool::new(false)),
        }
    }
}

impl Backlog for RuntimePing {
    fn behind(&self, now: Instant, mode: Mode) -> bool {
        let mut sent = self
            .sent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if mode == Mode::Batch {
            // A ping sent before the promotion says nothing of the threads' new policy.
            *sent = None;
            return false;
        }
        if let Some(at) = *sent
            && !self.answered.load(Ordering::Acquire)
        {
            return now.saturating_duration_since(at) > LATE;
        }
        self.answered.store(false, Ordering::Release);
        *sent = Some(now);
        let answered = self.answered.clone();
        self.handle.spawn(async move {
            let _ = tokio::task::spawn_blocking(|| ()).await;
            answered.store(true, Ordering::Release);
        });
        false
    }
}

/// Unregisters a thread from its governor when it exits.
struct Membership {
    governor: &'static Governor,
    tid: i32,
}

impl Drop for Membership {
    fn drop(&mut self) {
        self.governor.unregister(self.tid);
    }
}

thread_local! {
    static MEMBERSHIP: RefCell<Option<Membership>> = const { RefCell::new(None) };
}

#[cfg(target_os = "linux")]
fn current_tid() -> i32 {
    // SAFETY: gettid has no preconditions.
    unsafe { libc::gettid() }
}

#[cfg(not(target_os = "linux"))]
fn current_tid() -> i32 {
    0
}

/// The calling thread as `SCHED_BATCH`, outside any governor (the watchdog).
fn batch_current() {
    apply(0, Mode::Batch);
}

/// Sets `tid`'s policy. Best effort: where the kernel refuses, the thread keeps its policy.
#[cfg(target_os = "linux")]
fn apply(tid: i32, mode: Mode) {
    let policy = match mode {
        Mode::Idle => libc::SCHED_IDLE,
        Mode::Batch => libc::SCHED_BATCH,
    };
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: plain syscall on a thread of this process with a valid parameter.
    if unsafe { libc::sched_setscheduler(tid, policy, &param) } != 0 {
        tracing::debug!(
            error = %std::io::Error::last_os_error(),
            ?mode,
            "background thread keeps its scheduling"
        );
    }
}

#[cfg(not(target_os = "linux"))]
fn apply(_tid: i32, _mode: Mode) {}

/// The policy of thread `tid` as a [`Mode`] (`None`: another policy, or no such thread).
#[cfg(target_os = "linux")]
pub fn current_policy(tid: i32) -> Option<Mode> {
    // SAFETY: reads a thread's policy; a wrong id is an error, not undefined behaviour.
    match unsafe { libc::sched_getscheduler(tid) } {
        libc::SCHED_IDLE => Some(Mode::Idle),
        libc::SCHED_BATCH => Some(Mode::Batch),
        _ => None,
    }
}

#[cfg(not(target_os = "linux"))]
pub fn current_policy(_tid: i32) -> Option<Mode> {
    None
}

/// Ids of this process's threads whose name starts with one of `prefixes`. A thread listed here
/// may exit before its policy is set; its id is then unused or, in the time a pid takes to be
/// handed out again (the kernel allocates them cyclically), still nobody else's.
pub fn threads_named(prefixes: &[&str]) -> Vec<i32> {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|task| {
            let tid: i32 = task.file_name().to_str()?.parse().ok()?;
            let comm = std::fs::read_to_string(task.path().join("comm")).ok()?;
            let name = comm.trim_end_matches('\n');
            prefixes.iter().any(|p| name.starts_with(p)).then_some(tid)
        })
        .collect()
}

/// Whether this process may move a thread from `SCHED_IDLE` back to `SCHED_BATCH`: tried on a
/// throw-away thread.
#[cfg(target_os = "linux")]
pub fn idle_can_be_left() -> bool {
    let tried = std::thread::Builder::new()
        .name("sched-probe".into())
        .spawn(|| {
            let param = libc::sched_param { sched_priority: 0 };
            // SAFETY: plain syscalls on the calling thread with a valid parameter.
            unsafe {
                libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) == 0
                    && libc::sched_setscheduler(0, libc::SCHED_BATCH, &param) == 0
            }
        })
        .map(|t| t.join().unwrap_or(false));
    let can = tried.unwrap_or(false);
    if !can {
        tracing::info!(
            "background threads run as SCHED_BATCH: this process may not raise a thread back from SCHED_IDLE (CAP_SYS_NICE or RLIMIT_NICE 20 allow it)"
        );
    }
    can
}

#[cfg(not(target_os = "linux"))]
pub fn idle_can_be_left() -> bool {
    false
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::sync::mpsc;

    /// Policy of thread `tid`.
    fn policy(tid: i32) -> i32 {
        // SAFETY: reads a thread's policy.
        unsafe { libc::sched_getscheduler(tid) }
    }

    /// A registered thread that stays alive until `stop` is dropped; returns its tid.
    fn member(governor: &'static Governor) -> (i32, mpsc::Sender<()>) {
        let (tid_tx, tid_rx) = mpsc::channel();
        let (stop_tx, stop_rx) = mpsc::channel::<()>();
        std::thread::spawn(move || {
            governor.register_current();
            tid_tx.send(current_tid()).unwrap();
            let _ = stop_rx.recv();
        });
        (tid_rx.recv().unwrap(), stop_tx)
    }

    fn leaked(adaptive: bool, hold: Duration) -> &'static Governor {
        Box::leak(Box::new(Governor::new(adaptive, hold)))
    }

    /// A backlog the test sets.
    struct Flag(std::sync::Arc<AtomicBool>);

    impl Backlog for Flag {
        fn behind(&self, _now: Instant, _mode: Mode) -> bool {
            self.0.load(Ordering::SeqCst)
        }
    }

    #[test]
    fn threads_run_idle_once_engaged_until_a_backlog_promotes_them_for_the_hold() {
        if !idle_can_be_left() {
            // Unprivileged: the governor never uses idle priority (the next test).
            return;
        }
        let governor = leaked(true, Duration::from_secs(5));
        let behind = std::sync::Arc::new(AtomicBool::new(false));
        governor.watch(Box::new(Flag(behind.clone())));
        let (a, _stop_a) = member(governor);
        assert_eq!(policy(a), libc::SCHED_BATCH);
        assert!(governor.enable_idle());
        assert!(!governor.enable_idle());
        let (b, _stop_b) = member(governor);
        assert_eq!((policy(a), policy(b)), (libc::SCHED_IDLE, libc::SCHED_IDLE));

        let t0 = Instant::now();
        behind.store(true, Ordering::SeqCst);
        governor.check(t0);
        assert_eq!(governor.mode(), Mode::Batch);
        assert_eq!(
            (policy(a), policy(b)),
            (libc::SCHED_BATCH, libc::SCHED_BATCH)
        );
        // A thread that starts while promoted joins at the promoted policy.
        let (c, _stop_c) = member(governor);
        assert_eq!(policy(c), libc::SCHED_BATCH);

        // Nothing behind any more, but within the hold: still promoted.
        behind.store(false, Ordering::SeqCst);
        governor.check(t0 + Duration::from_secs(4));
        assert_eq!(policy(a), libc::SCHED_BATCH);
        governor.check(t0 + Duration::from_secs(5));
        assert_eq!(governor.mode(), Mode::Idle);
        assert_eq!(
            (policy(a), policy(b), policy(c)),
            (libc::SCHED_IDLE, libc::SCHED_IDLE, libc::SCHED_IDLE)
        );

        // The usage queue passing its mark promotes without waiting for the watchdog.
        governor.promote();
        assert_eq!(
            (governor.mode(), policy(b)),
            (Mode::Batch, libc::SCHED_BATCH)
        );
    }

    /// A thread named `name` that stays alive until `stop` is dropped; returns its tid.
    fn named(name: &str) -> (i32, mpsc::Sender<()>) {
        let (tid_tx, tid_rx) = mpsc::channel();
        let (stop_tx, stop_rx) = mpsc::channel::<()>();
        std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                tid_tx.send(current_tid()).unwrap();
                let _ = stop_rx.recv();
            })
            .unwrap();
        (tid_rx.recv().unwrap(), stop_tx)
    }

    #[test]
    fn threads_adopted_by_name_follow_the_policy_and_a_late_one_joins_within_a_round() {
        if !idle_can_be_left() {
            return;
        }
        let governor = leaked(true, Duration::from_secs(5));
        let (a, _stop_a) = named("adopt-test-1");
        let (other, _stop_other) = named("unrelated-1");
        governor.adopt_named("adopt-test-");
        assert_eq!(policy(a), libc::SCHED_BATCH);
        assert!(governor.enable_idle());
        assert_eq!(policy(a), libc::SCHED_IDLE);
        assert_eq!(policy(other), libc::SCHED_OTHER);

        // Spawned by a thread at normal priority after the change: adopted at the next round.
        let (b, _stop_b) = named("adopt-test-2");
        assert_eq!(policy(b), libc::SCHED_OTHER);
        let t0 = Instant::now();
        governor.check(t0);
        assert_eq!(policy(b), libc::SCHED_IDLE);

        governor.promote();
        assert_eq!(
            (policy(a), policy(b)),
            (libc::SCHED_BATCH, libc::SCHED_BATCH)
        );
        assert_eq!(policy(other), libc::SCHED_OTHER);
        governor.check(t0 + Duration::from_secs(10));
        assert_eq!((policy(a), policy(b)), (libc::SCHED_IDLE, libc::SCHED_IDLE));
    }

    #[test]
    fn without_the_way_back_threads_stay_batch() {
        let governor = leaked(false, Duration::ZERO);
        let (a, _stop) = member(governor);
        assert_eq!(policy(a), libc::SCHED_BATCH);
        assert!(!governor.enable_idle());
        governor.check(Instant::now() + Duration::from_secs(60));
        assert_eq!(
            (governor.mode(), policy(a)),
            (Mode::Batch, libc::SCHED_BATCH)
        );
    }

    #[test]
    fn a_runtime_is_behind_when_its_ping_does_not_run() {
        let live = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        let ping = RuntimePing::new(live.handle().clone());
        let t0 = Instant::now();
        assert!(!ping.behind(t0, Mode::Idle));
        let deadline = Instant::now() + Duration::from_secs(10);
        while !ping.answered.load(Ordering::SeqCst) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        // Answered: never behind, however late the next question.
        assert!(!ping.behind(t0 + LATE * 10, Mode::Idle));

        // A runtime nothing drives never runs its ping.
        let stalled = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let ping = RuntimePing::new(stalled.handle().clone());
        assert!(!ping.behind(t0, Mode::Idle));
        assert!(!ping.behind(t0 + LATE, Mode::Idle));
        assert!(ping.behind(t0 + LATE * 2, Mode::Idle));
        // Promoted, it is not asked: the late ping is forgotten, and a new one starts the clock.
        assert!(!ping.behind(t0 + LATE * 3, Mode::Batch));
        assert!(!ping.behind(t0 + LATE * 4, Mode::Idle));
        assert!(ping.behind(t0 + LATE * 6, Mode::Idle));
    }

    #[test]
    fn an_exited_thread_leaves_the_registry() {
        let governor = leaked(false, Duration::ZERO);
        let (_a, stop) = member(governor);
        assert_eq!(governor.lock().len(), 1);
        drop(stop);
        let deadline = Instant::now() + Duration::from_secs(5);
        while !governor.lock().is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(governor.lock().is_empty());
    }
}
