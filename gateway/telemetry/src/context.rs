//! W3C Trace Context: a client's `traceparent` (and `tracestate`) read strictly, and a span's
//! written into an outgoing request.

use std::str::FromStr;

use http::{HeaderMap, HeaderValue};
use opentelemetry::trace::{SpanContext, SpanId, TraceFlags, TraceId, TraceState};

/// A caller's `traceparent` (version 00, and the leading fields of later versions) with its
/// `tracestate`; `None` when absent or malformed (then the span starts a trace of its own).
pub fn remote_parent(headers: &HeaderMap) -> Option<SpanContext> {
    let value = headers.get("traceparent")?.to_str().ok()?.trim();
    let mut parts = value.split('-');
    let (version, trace_id, span_id, flags) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let hex = |s: &str, len: usize| {
        s.len() == len
            && s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    if !hex(version, 2) || version == "ff" || (version == "00" && parts.next().is_some()) {
        return None;
    }
    if !hex(trace_id, 32) || !hex(span_id, 16) || !hex(flags, 2) {
        return None;
    }
    let trace_id = TraceId::from_hex(trace_id).ok()?;
    let span_id = SpanId::from_hex(span_id).ok()?;
    if trace_id == TraceId::INVALID || span_id == SpanId::INVALID {
        return None;
    }
    let flags = u8::from_str_radix(flags, 16).ok()? & TraceFlags::SAMPLED.to_u8();
    let state = headers
        .get("tracestate")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| TraceState::from_str(v).ok())
        .unwrap_or_default();
    Some(SpanContext::new(
        trace_id,
        span_id,
        TraceFlags::new(flags),
        true,
        state,
    ))
}

/// Writes `span`'s `traceparent` (and its `tracestate`, when any) into `headers`.
pub fn inject(span: &SpanContext, headers: &mut HeaderMap) {
    let value = format!(
        "00-{:032x}-{:016x}-{:02x}",
        span.trace_id(),
        span.span_id(),
        span.trace_flags().to_u8()
    );
    if let Ok(v) = HeaderValue::from_str(&value) {
        headers.insert("traceparent", v);
    }
    let state = span.trace_state().header();
    if !state.is_empty()
        && let Ok(v) = HeaderValue::from_str(&state)
    {
        headers.insert("tracestate", v);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn headers(traceparent: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("traceparent", HeaderValue::from_str(traceparent).unwrap());
        h
    }

    #[test]
    fn a_callers_traceparent_is_read_strictly_and_written_back() {
        let good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let mut h = headers(good);
        h.insert("tracestate", HeaderValue::from_static("vendor=abc"));
        let sc = remote_parent(&h).unwrap();
        assert!(sc.is_sampled() && sc.is_remote());
        let mut out = HeaderMap::new();
        inject(&sc, &mut out);
        assert_eq!(out["traceparent"], good);
        assert_eq!(out["tracestate"], "vendor=abc");
        for bad in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00-xyz92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        ] {
            assert!(remote_parent(&headers(bad)).is_none(), "{bad}");
        }
        // A later version may carry more fields; only the sampled flag is kept.
        let future = "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-fe-what";
        assert!(remote_parent(&headers(future)).is_some_and(|s| !s.is_sampled()));
    }
}
