//! New plain-TCP upstream connections that carry the first bytes of a request from inside
//! `connect`. connect(2) on a non-blocking socket says "in progress" even when the handshake
//! completed inside the call, as it does on loopback and often on a LAN. Such a connection
//! takes the request at once, without a turn of the event loop to learn that it is writable
//! (a turn that, under load, waits behind every other ready task of the thread). Otherwise the
//! handshake is awaited, as `TcpStream::connect` does.

use std::io;
use std::net::SocketAddr;

use tokio::net::TcpStream;

/// A connection to `address` with `TCP_NODELAY`, and how many bytes of `first` already left on
/// it (all, some or none; the caller writes the rest). Only the wait for the handshake is
/// bounded by `timeout`; `Err(None)` when it ran out.
pub async fn open(
    address: SocketAddr,
    first: &[u8],
    timeout: std::time::Duration,
) -> Result<(TcpStream, usize), Option<io::Error>> {
    #[cfg(target_os = "linux")]
    {
        open_sending(address, first, timeout).await
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = first;
        let stream = tokio::time::timeout(timeout, TcpStream::connect(address))
            .await
            .map_err(|_| None)??;
        stream.set_nodelay(true)?;
        Ok((stream, 0))
    }
}

#[cfg(target_os = "linux")]
async fn open_sending(
    address: SocketAddr,
    first: &[u8],
    timeout: std::time::Duration,
) -> Result<(TcpStream, usize), Option<io::Error>> {
    use socket2::{Domain, Protocol, Socket, Type};

    let socket = Socket::new(
        Domain::for_address(address),
        Type::STREAM.nonblocking(),
        Some(Protocol::TCP),
    )?;
    socket.set_tcp_nodelay(true)?;
    let established = match socket.connect(&address.into()) {
        Ok(()) => true,
        Err(e) if e.raw_os_error() == Some(libc::EINPROGRESS) => socket.peer_addr().is_ok(),
        Err(e) => return Err(Some(e)),
    };
    // A send that fails here (the server already gone) leaves the whole request to the
    // caller's write, which meets the same error and reports it as it always did.
    let sent = if established {
        socket
            .send_with_flags(first, libc::MSG_NOSIGNAL)
            .unwrap_or(0)
    } else {
        0
    };
    let stream = TcpStream::from_std(socket.into())?;
    if !established {
        tokio::time::timeout(timeout, stream.writable())
            .await
            .map_err(|_| None)??;
        if let Some(e) = stream.take_error()? {
            return Err(Some(e));
        }
    }
    Ok((stream, sent))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::time::Duration;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    use super::*;

    #[tokio::test]
    async fn a_new_connection_carries_the_request_whether_or_not_it_left_inside_connect() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let mut inside_connect = 0;
        for _ in 0..20 {
            let (mut stream, sent) = open(address, b"ping", Duration::from_secs(5))
                .await
                .unwrap();
            assert!(sent == 0 || sent == 4, "{sent}");
            assert!(stream.nodelay().unwrap());
            inside_connect += usize::from(sent == 4);
            stream.write_all(&b"ping"[sent..]).await.unwrap();
            let (mut conn, _) = listener.accept().await.unwrap();
            let mut got = [0u8; 4];
            conn.read_exact(&mut got).await.unwrap();
            assert_eq!(&got, b"ping");
            conn.write_all(b"pong").await.unwrap();
            stream.read_exact(&mut got).await.unwrap();
            assert_eq!(
                &got, b"pong",
                "the stream reads through the runtime afterwards"
            );
        }
        // On Linux loopback the handshake completes inside connect(2) (the kernel may defer
        // that work to its softirq thread under load, so not necessarily every time).
        if cfg!(target_os = "linux") {
            assert!(inside_connect > 0, "no request left inside connect");
        }
    }

    #[tokio::test]
    async fn a_refused_connection_is_an_error_not_a_stream() {
        let closed = TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap()
            .local_addr()
            .unwrap();
        let refused = open(closed, b"ping", Duration::from_secs(5)).await;
        let Err(Some(e)) = refused else {
            panic!("a connection to a closed port: {refused:?}");
        };
        assert_eq!(e.kind(), io::ErrorKind::ConnectionRefused);
    }
}
