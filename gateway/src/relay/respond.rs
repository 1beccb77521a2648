//! Writing answers to the client through pingora's session (headers, JSON, SSE framing).

use bytes::Bytes;
use pingora::http::ResponseHeader;
use pingora::proxy::Session;

/// Response header carrying the request id.
pub const REQUEST_ID_HEADER: &str = "X-Oneapi-Request-Id";

/// Writes a complete answer with a known length.
pub async fn send_full(
    session: &mut Session,
    status: u16,
    content_type: &str,
    request_id: &str,
    body: Bytes,
) -> pingora::Result<()> {
    let mut h = ResponseHeader::build(status, Some(4))?;
    h.insert_header(http::header::CONTENT_TYPE, content_type)?;
    h.insert_header(http::header::CONTENT_LENGTH, body.len().to_string())?;
    h.insert_header(REQUEST_ID_HEADER, request_id)?;
    session.write_response_header(Box::new(h), false).await?;
    session.write_response_body(Some(body), true).await
}

/// Writes the head of an SSE answer (chunked on HTTP/1.1).
pub async fn start_stream(session: &mut Session, request_id: &str) -> pingora::Result<()> {
    let mut h = ResponseHeader::build(200, Some(5))?;
    h.insert_header(http::header::CONTENT_TYPE, "text/event-stream")?;
    h.insert_header(http::header::CACHE_CONTROL, "no-cache")?;
    h.insert_header("x-accel-buffering", "no")?;
    if !session.is_http2() {
        h.insert_header(http::header::TRANSFER_ENCODING, "chunked")?;
    }
    h.insert_header(REQUEST_ID_HEADER, request_id)?;
    session.write_response_header(Box::new(h), false).await
}
