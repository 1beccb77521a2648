//! Writing answers to the client through pingora's session (headers, JSON, SSE framing).

use bytes::Bytes;
use http::HeaderValue;
use pingora::http::ResponseHeader;
use pingora::proxy::Session;

use super::Trace;

/// Response header carrying the request id.
pub const REQUEST_ID_HEADER: &str = "X-Oneapi-Request-Id";

/// What a page from an allowed origin may read of an answer: the request id and the rate-limit
/// headers of a 429.
const EXPOSED_HEADERS: &str = "X-Oneapi-Request-Id, Retry-After, X-Ratelimit-Limit-Requests, \
    X-Ratelimit-Remaining-Requests, X-Ratelimit-Reset-Requests, X-Ratelimit-Limit-Tokens, \
    X-Ratelimit-Remaining-Tokens, X-Ratelimit-Reset-Tokens";

/// Adds the CORS headers of an answer to an allowed browser origin.
fn cors(h: &mut ResponseHeader, trace: &Trace) -> pingora::Result<()> {
    if let Some(origin) = &trace.cors_origin {
        h.insert_header("access-control-allow-origin", origin.as_str())?;
        h.insert_header("access-control-expose-headers", EXPOSED_HEADERS)?;
        if origin != "*" {
            h.insert_header(http::header::VARY, "Origin")?;
        }
    }
    Ok(())
}

/// Writes a JSON error answer with `extra` headers (`Retry-After` of a 429).
pub async fn send_error(
    session: &mut Session,
    status: u16,
    trace: &Trace,
    body: Bytes,
    extra: &[(&'static str, String)],
) -> pingora::Result<()> {
    let mut h = ResponseHeader::build(status, Some(7 + extra.len()))?;
    h.insert_header(http::header::CONTENT_TYPE, "application/json")?;
    h.insert_header(http::header::CONTENT_LENGTH, body.len().to_string())?;
    h.insert_header(REQUEST_ID_HEADER, trace.request_id.as_str())?;
    for (name, value) in extra {
        h.insert_header(*name, value.as_str())?;
    }
    cors(&mut h, trace)?;
    session.write_response_header(Box::new(h), false).await?;
    session.write_response_body(Some(body), true).await
}

/// Writes a complete answer with a known length.
pub async fn send_full(
    session: &mut Session,
    status: u16,
    content_type: &str,
    trace: &Trace,
    body: Bytes,
) -> pingora::Result<()> {
    let mut h = ResponseHeader::build(status, Some(7))?;
    h.insert_header(http::header::CONTENT_TYPE, content_type)?;
    h.insert_header(http::header::CONTENT_LENGTH, HeaderValue::from(body.len()))?;
    h.insert_header(REQUEST_ID_HEADER, trace.request_id.as_str())?;
    cors(&mut h, trace)?;
    session.write_response_header(Box::new(h), false).await?;
    session.write_response_body(Some(body), true).await
}

/// Answers a CORS preflight (`OPTIONS`) with 204.
pub async fn send_preflight(
    session: &mut Session,
    headers: &[(&'static str, String)],
) -> pingora::Result<()> {
    let mut h = ResponseHeader::build(204, Some(headers.len() + 1))?;
    h.insert_header(http::header::CONTENT_LENGTH, "0")?;
    for (k, v) in headers {
        h.insert_header(*k, v.as_str())?;
    }
    session.write_response_header(Box::new(h), true).await
}

/// Writes the head of an SSE answer (chunked on HTTP/1.1).
pub async fn start_stream(session: &mut Session, trace: &Trace) -> pingora::Result<()> {
    let mut h = ResponseHeader::build(200, Some(8))?;
    h.insert_header(http::header::CONTENT_TYPE, "text/event-stream")?;
    h.insert_header(http::header::CACHE_CONTROL, "no-cache")?;
    h.insert_header("x-accel-buffering", "no")?;
    if !session.is_http2() {
        h.insert_header(http::header::TRANSFER_ENCODING, "chunked")?;
    }
    h.insert_header(REQUEST_ID_HEADER, trace.request_id.as_str())?;
    cors(&mut h, trace)?;
    session.write_response_header(Box::new(h), false).await
}
