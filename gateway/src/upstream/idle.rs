//! Idle plain-HTTP upstream connections kept for reuse: per address, the most recently used
//! first; at most a fixed number in all; none older than the idle time, and none the server has
//! closed or written to while idle (both seen from the socket's readiness, without a syscall
//! unless the socket has something to read).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tokio::net::TcpStream;

/// How often a put also looks over every address for connections past their time.
const SWEEP_EVERY: Duration = Duration::from_secs(10);

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
    swept: Instant,
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
    /// A pool keeping connections idle at most `idle_for`, and at most `max` of them.
    pub fn new(idle_for: Duration, max: usize) -> IdlePool {
        IdlePool {
            idle_for,
            max,
            inner: Mutex::new(Inner {
                by_address: HashMap::new(),
                count: 0,
                swept: Instant::now(),
            }),
        }
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
        let now = Instant::now();
        let mut stale = Vec::new();
        {
            let mut inner = self.locked();
            if now.duration_since(inner.swept) >= SWEEP_EVERY {
                inner.swept = now;
                let idle_for = self.idle_for;
                let Inner {
                    by_address, count, ..
                } = &mut *inner;
                by_address.retain(|_, idle| {
                    let before = idle.len();
                    let (keep, gone): (Vec<Idle>, Vec<Idle>) = std::mem::take(idle)
                        .into_iter()
                        .partition(|c| c.usable(now, idle_for));
                    *count -= before - keep.len();
                    stale.extend(gone);
                    *idle = keep;
                    !idle.is_empty()
                });
            }
            if inner.count < self.max {
                inner.count += 1;
                inner
                    .by_address
                    .entry(address)
                    .or_default()
                    .push(Idle { stream, since: now });
            } else {
                stale.push(Idle { stream, since: now });
            }
        }
        drop(stale);
    }

    /// How many connections are kept.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.locked().count
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
        let pool = IdlePool::new(Duration::from_secs(90), 10);
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
        let pool = IdlePool::new(Duration::from_millis(50), 2);
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
}
