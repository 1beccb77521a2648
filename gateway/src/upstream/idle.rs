//! Idle plain-HTTP upstream connections kept for reuse: per address, the most recently used
//! first; at most a fixed number in all; none older than the idle time, and none the server has
//! closed or written to while idle (both seen from the socket's readiness, without a syscall
//! unless the socket has something to read). A sweeper thread closes such connections while
//! no request takes them, so a gateway whose traffic stopped holds no dead sockets.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use tokio::net::TcpStream;

/// The idle connections of every upstream address.
pub struct IdlePool {
    idle_for: Duration,
    max: usize,
    inner: Mutex<Inner>,
}

struct Inner {
    /// Per address, oldest first.
    by_address: HashMap<SocketAddr, Vec<Idle>>,
    count: usize,
}

struct Idle {
    stream: TcpStream,
    since: Instant,
}

impl Idle {
    /// Whether the connection can carry a request: within its idle time, and nothing (not even
    /// the server's close) waiting to be read on it.
    fn usable(&self, now: Instant, idle_for: Duration) -> bool {
        if now.duration_since(self.since) >= idle_for {
            return false;
        }
        let mut probe = [0u8; 1];
        matches!(self.stream.try_read(&mut probe), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
    }
}

impl IdlePool {
    /// A pool keeping connections idle at most `idle_for`, and at most `max` of them, swept
    /// every `sweep_every` by a thread of its own that ends once the pool is dropped.
    pub fn start(idle_for: Duration, max: usize, sweep_every: Duration) -> Arc<IdlePool> {
        let pool = Arc::new(IdlePool {
            idle_for,
            max,
            inner: Mutex::new(Inner {
                by_address: HashMap::new(),
                count: 0,
            }),
        });
        let watched = Arc::downgrade(&pool);
        let sweeper = std::thread::Builder::new()
            .name("upstream-idle".into())
            .stack_size(64 * 1024)
            .spawn(move || sweep_while_alive(&watched, sweep_every));
        if let Err(error) = sweeper {
            // Still correct: a dead connection is dropped when a request would take it.
            tracing::warn!(%error, "no sweeper for idle upstream connections");
        }
        pool
    }

    fn locked(&self) -> std::sync::MutexGuard<'_, Inner> {
        match self.inner.lock() {
            Ok(inner) => inner,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// The most recently used connection to `address` that can still carry a request.
    pub fn take(&self, address: SocketAddr) -> Option<TcpStream> {
        let now = Instant::now();
        let mut stale = Vec::new();
        let found = {
            let mut inner = self.locked();
            let Inner {
                by_address, count, ..
            } = &mut *inner;
            let idle = by_address.get_mut(&address)?;
            let mut found = None;
            while let Some(candidate) = idle.pop() {
                *count -= 1;
                if candidate.usable(now, self.idle_for) {
                    found = Some(candidate.stream);
                    break;
                }
                stale.push(candidate);
            }
            if idle.is_empty() {
                by_address.remove(&address);
            }
            found
        };
        // Closed outside the lock.
        drop(stale);
        found
    }

    /// Keeps `stream`, just used to `address`, for another request (unless the pool is full).
    pub fn put(&self, address: SocketAddr, stream: TcpStream) {
        let idle = Idle {
            stream,
            since: Instant::now(),
        };
        let refused = {
            let mut inner = self.locked();
            if inner.count < self.max {
                inner.count += 1;
                inner.by_address.entry(address).or_default().push(idle);
                None
            } else {
                Some(idle)
            }
        };
        // Closed outside the lock.
        drop(refused);
    }

    /// Closes every kept connection that is past its idle time, closed or written to.
    fn sweep(&self) {
        let now = Instant::now();
        let mut stale = Vec::new();
        {
            let mut inner = self.locked();
            let Inner { by_address, count } = &mut *inner;
            by_address.retain(|_, idle| {
                let before = idle.len();
                let (keep, gone): (Vec<Idle>, Vec<Idle>) = std::mem::take(idle)
                    .into_iter()
                    .partition(|c| c.usable(now, self.idle_for));
                *count -= before - keep.len();
                stale.extend(gone);
                *idle = keep;
                !idle.is_empty()
            });
        }
        drop(stale);
    }

    /// How many connections are kept.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.locked().count
    }
}

/// The sweeper thread's loop: a sweep every `every`, until the pool is gone.
fn sweep_while_alive(pool: &Weak<IdlePool>, every: Duration) {
    loop {
        std::thread::sleep(every);
        match pool.upgrade() {
            Some(pool) => pool.sweep(),
            None => return,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use tokio::io::AsyncWriteExt;
    use tokio::net::TcpListener;

    use super::*;

    /// A connected pair: (our side, the server's side).
    async fn pair(listener: &TcpListener) -> (TcpStream, TcpStream) {
        let address = listener.local_addr().unwrap();
        let (ours, theirs) = tokio::join!(TcpStream::connect(address), listener.accept());
        (ours.unwrap(), theirs.unwrap().0)
    }

    /// Lets the runtime's reactor see what happened on the sockets.
    async fn settle() {
        for _ in 0..20 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    #[tokio::test]
    async fn the_newest_connection_is_taken_and_closed_or_chatty_ones_are_dropped() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let pool = IdlePool::start(Duration::from_secs(90), 10, Duration::from_secs(3600));
        let (a, _a_server) = pair(&listener).await;
        let (b, mut b_server) = pair(&listener).await;
        let (c, c_server) = pair(&listener).await;
        let (a_port, c_port) = (a.local_addr().unwrap(), c.local_addr().unwrap());
        pool.put(address, a);
        pool.put(address, b);
        pool.put(address, c);
        assert_eq!(pool.len(), 3);
        // The server closes c and writes on b while they are idle.
        drop(c_server);
        b_server.write_all(b"unasked").await.unwrap();
        settle().await;
        let taken = pool.take(address).unwrap();
        assert_eq!(taken.local_addr().unwrap(), a_port);
        assert_ne!(taken.local_addr().unwrap(), c_port);
        assert_eq!(pool.len(), 0);
        assert!(pool.take(address).is_none());
        let elsewhere: SocketAddr = "127.0.0.1:9".parse().unwrap();
        assert!(pool.take(elsewhere).is_none());
    }

    #[tokio::test]
    async fn connections_past_their_idle_time_or_the_limit_are_not_kept() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let pool = IdlePool::start(Duration::from_millis(50), 2, Duration::from_secs(3600));
        let mut servers = Vec::new();
        for _ in 0..3 {
            let (ours, theirs) = pair(&listener).await;
            servers.push(theirs);
            pool.put(address, ours);
        }
        assert_eq!(pool.len(), 2, "the third is closed at once");
        tokio::time::sleep(Duration::from_millis(60)).await;
        assert!(pool.take(address).is_none(), "too old");
        assert_eq!(pool.len(), 0);
    }

    /// Waits until `done` holds, at most 10 s.
    async fn until(mut done: impl FnMut() -> bool) -> bool {
        for _ in 0..1000 {
            if done() {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        done()
    }

    #[tokio::test]
    async fn the_sweeper_closes_dead_and_old_connections_while_no_request_comes() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let pool = IdlePool::start(Duration::from_secs(2), 10, Duration::from_millis(20));
        let (closed, closed_server) = pair(&listener).await;
        let (old, _old_server) = pair(&listener).await;
        let put_at = Instant::now();
        pool.put(address, old);
        pool.put(address, closed);
        drop(closed_server);
        assert!(
            until(|| pool.len() == 1).await,
            "the connection its server closed is gone"
        );
        assert!(
            put_at.elapsed() < Duration::from_secs(2),
            "too slow to tell the two apart"
        );
        assert!(
            until(|| pool.len() == 0).await,
            "the one past its idle time is gone"
        );
        let watched = Arc::downgrade(&pool);
        drop(pool);
        assert!(
            until(|| watched.upgrade().is_none()).await,
            "the sweeper does not keep the pool alive"
        );
    }
}
