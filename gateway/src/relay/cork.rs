//! Holding an SSE answer's head back until its first event is written, so that both leave the
//! gateway in one TCP segment (`TCP_CORK` on the client's connection while they are written).
//!
//! pingora flushes any response head without `Content-Length` on its own, so a stream's head
//! and first event went out in two sends: two loopback transmits on the relay thread and two
//! wake-ups of the client before it saw its first `data:` line. nginx sends both in one write.
//! Corking costs two `setsockopt` calls per stream and nothing per event.

use std::os::fd::{AsRawFd, RawFd};

use pingora::protocols::l4::stream::Stream as TcpStream;
use pingora::proxy::Session;

/// A client connection corked for as long as this lives; uncorked (everything queued is sent at
/// once) when it is dropped. Only plain-TCP HTTP/1.1 connections are corked: HTTP/2 multiplexes
/// other streams on the same connection, and anything else is left as it is.
pub struct Cork {
    fd: Option<RawFd>,
}

impl Cork {
    /// Corks the session's client connection if it is plain TCP under HTTP/1.1. The session
    /// must outlive the returned value (it owns the descriptor): keep both in one scope.
    pub fn hold(session: &Session) -> Cork {
        let fd = session
            .as_downstream()
            .stream()
            .and_then(|s| s.as_any().downcast_ref::<TcpStream>())
            .map(AsRawFd::as_raw_fd)
            .filter(|&fd| set_cork(fd, true));
        Cork { fd }
    }
}

impl Drop for Cork {
    fn drop(&mut self) {
        if let Some(fd) = self.fd.take() {
            // A failure here means the connection is gone; its queued bytes go with it.
            set_cork(fd, false);
        }
    }
}

/// Sets or clears `TCP_CORK` on `fd`; false if the kernel refused.
fn set_cork(fd: RawFd, on: bool) -> bool {
    #[cfg(target_os = "linux")]
    {
        let value = libc::c_int::from(on);
        // SAFETY: `fd` is an open socket owned by the caller's session for this call; the
        // option value is a c_int on the stack and its exact size is passed.
        let rc = unsafe {
            libc::setsockopt(
                fd,
                libc::IPPROTO_TCP,
                libc::TCP_CORK,
                std::ptr::from_ref(&value).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        rc == 0
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (fd, on);
        false
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::os::fd::AsRawFd;
    use std::time::Duration;

    use super::set_cork;

    /// Reads what has arrived within `wait`.
    fn arrived(conn: &mut TcpStream, wait: Duration) -> Vec<u8> {
        conn.set_read_timeout(Some(wait)).unwrap();
        let mut buf = [0u8; 256];
        match conn.read(&mut buf) {
            Ok(n) => buf[..n].to_vec(),
            Err(_) => Vec::new(),
        }
    }

    #[test]
    fn corked_writes_wait_for_the_uncork_and_arrive_together() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (mut server, _) = listener.accept().unwrap();
        server.set_nodelay(true).unwrap();

        assert!(set_cork(server.as_raw_fd(), true));
        server.write_all(b"head;").unwrap();
        server.write_all(b"first event").unwrap();
        assert!(
            arrived(&mut client, Duration::from_millis(50)).is_empty(),
            "nothing leaves while corked"
        );
        assert!(set_cork(server.as_raw_fd(), false));
        assert_eq!(
            arrived(&mut client, Duration::from_secs(5)),
            b"head;first event"
        );
    }

    #[test]
    fn a_descriptor_that_is_not_a_tcp_socket_is_refused() {
        let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
        assert!(!set_cork(a.as_raw_fd(), true));
    }
}
