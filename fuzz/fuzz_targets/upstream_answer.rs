//! Plain-HTTP upstream answers, arriving in reads cut where the fuzzer says, through the
//! gateway's own answer reader: the head, then the body by its framing. Nothing may panic; a
//! body read to its end is never longer than what arrived, and a body of a stated length that
//! ends without error has exactly that length.
//!
//! Input: byte 0 is `n` (mod 32), the next `n` bytes are read lengths, the rest is the wire;
//! what the lengths leave over is the last read.

#![no_main]

use std::future::Future;
use std::pin::{Pin, pin};
use std::task::{Context, Poll, Waker};

use bytes::BytesMut;
use gateway::upstream::answer::{BodyReader, Framing, read_head};
use libfuzzer_sys::fuzz_target;
use tokio::io::{AsyncRead, ReadBuf};

fuzz_target!(|data: &[u8]| {
    let (reads, wire) = split(data);
    let mut io = Reads { reads, at: 0 };
    let mut buf = BytesMut::new();
    let Some(Ok(head)) = ready(read_head(&mut io, &mut buf)) else {
        return;
    };
    let mut reader = BodyReader::new(head.body);
    let mut body = 0usize;
    loop {
        match ready(reader.next(&mut io, &mut buf)) {
            Some(Ok(Some(piece))) => {
                assert!(!piece.is_empty());
                body += piece.len();
                assert!(body <= wire.len());
            }
            Some(Ok(None)) => {
                if let Framing::Length(n) = head.body {
                    assert_eq!(body as u64, n);
                }
                return;
            }
            Some(Err(_)) => return,
            None => panic!("an in-memory read never waits"),
        }
    }
});

/// Polls `future` once: its reader never waits, so it must be done.
fn ready<F: Future>(future: F) -> Option<F::Output> {
    let mut future = pin!(future);
    match future.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(out) => Some(out),
        Poll::Pending => None,
    }
}

/// A connection whose reads return the given pieces, then the close.
struct Reads<'a> {
    reads: Vec<&'a [u8]>,
    at: usize,
}

impl AsyncRead for Reads<'_> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        out: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        while let Some(piece) = self.reads.get(self.at).copied() {
            if piece.is_empty() {
                self.at += 1;
                continue;
            }
            let n = piece.len().min(out.remaining());
            out.put_slice(&piece[..n]);
            let at = self.at;
            self.reads[at] = &piece[n..];
            break;
        }
        Poll::Ready(Ok(()))
    }
}

/// The reads and the whole wire.
fn split(data: &[u8]) -> (Vec<&[u8]>, &[u8]) {
    let Some((&n, rest)) = data.split_first() else {
        return (Vec::new(), data);
    };
    let n = usize::from(n % 32).min(rest.len());
    let (lengths, mut wire) = rest.split_at(n);
    let whole = wire;
    let mut reads = Vec::new();
    for &len in lengths {
        let (head, tail) = wire.split_at(usize::from(len).min(wire.len()));
        reads.push(head);
        wire = tail;
    }
    reads.push(wire);
    (reads, whole)
}
