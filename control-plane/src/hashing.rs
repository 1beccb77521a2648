//! The password-hashing pool: argon2id hashes and checks run on blocking threads, at most N at
//! once (each takes about 19 MiB), so a burst of sign-ins or registrations waits instead of
//! exhausting memory; a request that waits too long is answered 503. A sign-in for an account
//! that does not exist is checked against a dummy hash, so it costs the same as a wrong password.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use prometheus::IntCounterVec;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::domain::{password, secrets};

/// Why a hash or check did not run.
#[derive(Debug, thiserror::Error)]
pub enum HashError {
    /// No slot freed up within the wait.
    #[error("every password-hashing slot is busy")]
    Busy,
    #[error("password hashing: {0}")]
    Failed(String),
}

/// Bounded password hashing, shared by every request.
pub struct PasswordPool {
    slots: Arc<Semaphore>,
    capacity: usize,
    wait: Duration,
    running: Arc<AtomicUsize>,
    peak: Arc<AtomicUsize>,
    dummy: tokio::sync::OnceCell<String>,
    /// `control_plane_password_hashes_total{op}`.
    counter: IntCounterVec,
}

impl PasswordPool {
    /// A pool running at most `capacity` (at least 1) hashes at once; a request waits `wait` for a
    /// slot.
    pub fn new(capacity: usize, wait: Duration, counter: IntCounterVec) -> Self {
        let capacity = capacity.max(1);
        PasswordPool {
            slots: Arc::new(Semaphore::new(capacity)),
            capacity,
            wait,
            running: Arc::new(AtomicUsize::new(0)),
            peak: Arc::new(AtomicUsize::new(0)),
            dummy: tokio::sync::OnceCell::new(),
            counter,
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The most hashes that ever ran at once.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Acquire)
    }

    /// Takes a slot, waiting at most the configured time. The pool's own work holds its slot
    /// until the hash finishes, even when the request that asked for it is gone.
    pub async fn acquire(&self) -> Result<OwnedSemaphorePermit, HashError> {
        match tokio::time::timeout(self.wait, self.slots.clone().acquire_owned()).await {
            Ok(Ok(permit)) => Ok(permit),
            Ok(Err(_closed)) => Err(HashError::Failed("the pool is closed".into())),
            Err(_elapsed) => Err(HashError::Busy),
        }
    }

    async fn run<T, F>(&self, op: &'static str, work: F) -> Result<T, HashError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let permit = self.acquire().await?;
        let (running, peak) = (self.running.clone(), self.peak.clone());
        let counter = self.counter.with_label_values(&[op]);
        tokio::task::spawn_blocking(move || {
            let now = running.fetch_add(1, Ordering::AcqRel) + 1;
            peak.fetch_max(now, Ordering::AcqRel);
            let out = work();
            running.fetch_sub(1, Ordering::AcqRel);
            counter.inc();
            drop(permit);
            out
        })
        .await
        .map_err(|e| HashError::Failed(e.to_string()))
    }

    /// A new argon2id hash of `password`.
    pub async fn hash(&self, password: String) -> Result<String, HashError> {
        self.run("hash", move || password::hash(&password))
            .await?
            .map_err(HashError::Failed)
    }

    /// Whether `password` matches `stored`. A stored value that is no hash at all (an account
    /// without a password) is never matched, after the same work as a real check.
    pub async fn verify(&self, password: &str, stored: &str) -> Result<bool, HashError> {
        if !password::is_hash(stored) {
            self.verify_absent(password).await?;
            return Ok(false);
        }
        let (password, stored) = (password.to_owned(), stored.to_owned());
        self.run("verify", move || password::verify(&password, &stored))
            .await
    }

    /// The work of a check when there is no account: `password` against a dummy hash.
    pub async fn verify_absent(&self, password: &str) -> Result<(), HashError> {
        let dummy = self
            .dummy
            .get_or_try_init(|| self.hash(secrets::random_alphanumeric(32)))
            .await?
            .clone();
        let password = password.to_owned();
        self.run("verify", move || password::verify(&password, &dummy))
            .await?;
        Ok(())
    }
}
