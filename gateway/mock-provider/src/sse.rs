//! Sends prepared stream frames with the scenario's pacing and mid-stream cut, and counts
//! how each stream ended.

use bytes::Bytes;
use futures_util::stream;
use http_body_util::{BodyExt, StreamBody};
use hyper::Response;
use hyper::body::Frame;

use crate::{MockBody, Scenario, SharedStats, lock};

/// Counts how a stream ended when it is dropped.
struct StreamGuard {
    stats: SharedStats,
    finished: bool,
}

impl StreamGuard {
    fn finish(&mut self) {
        self.finished = true;
    }
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        let mut st = lock(&self.stats);
        if self.finished {
            st.completed_streams += 1;
        } else {
            st.aborted_streams += 1;
        }
    }
}

/// Index at which a `cut_after=n` stream is cut, given the indexes of its content events:
/// the `n`-th content event (counting from 0), or the event after the last one.
pub(crate) fn cut_index(content: &[usize], n: usize) -> usize {
    content
        .get(n)
        .copied()
        .unwrap_or_else(|| content.last().map_or(0, |last| last + 1))
}

/// Streams `frames` in order; frame `cut` (if any) is replaced by a connection reset.
pub(crate) fn response(
    frames: Vec<Bytes>,
    cut: Option<usize>,
    s: &Scenario,
    stats: SharedStats,
    content_type: &'static str,
) -> Response<MockBody> {
    let guard = StreamGuard {
        stats,
        finished: false,
    };
    let (delay, first) = (s.chunk_delay, s.first_event);
    let state = (frames.into_iter().enumerate(), guard, cut);
    let body = stream::unfold(state, move |(mut it, mut guard, cut)| async move {
        let Some((i, frame)) = it.next() else {
            guard.finish();
            return None;
        };
        let wait = if i == 0 { first } else { delay };
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
        if cut == Some(i) {
            let err = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "mock cut");
            return Some((Err(err), (it, guard, None)));
        }
        Some((Ok(Frame::data(frame)), (it, guard, cut)))
    });
    let mut resp = Response::new(BodyExt::boxed(StreamBody::new(body)));
    let headers = resp.headers_mut();
    headers.insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static(content_type),
    );
    headers.insert(
        http::header::CACHE_CONTROL,
        http::HeaderValue::from_static("no-cache"),
    );
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_at_the_nth_content_event_or_after_the_last() {
        let content = [2, 3, 5];
        assert_eq!(cut_index(&content, 0), 2);
        assert_eq!(cut_index(&content, 2), 5);
        assert_eq!(cut_index(&content, 3), 6);
        assert_eq!(cut_index(&[], 1), 0);
    }
}
