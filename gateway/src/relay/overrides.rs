//! A channel's shaping rules applied to one attempt's body, once it is in the channel's
//! dialect with the model mapped: system prompt, the OpenAI reasoning-model fixes, the
//! optional-field policy and the param override (`adapters::shaping`). A channel without
//! rules that apply leaves the body untouched (no parse, no copy).

use bytes::Bytes;
use pingora::proxy::Session;
use serde_json::Value;

use super::Trace;
use super::post::AttemptError;
use crate::config::ChannelEntry;
use crate::error::{GatewayError, RequestError, UpstreamError};
use adapters::shaping::{BodyDialect, HeaderEdits, OverrideContext, ShapingError};

/// A body the rules changed.
pub struct Shaped {
    pub body: Bytes,
    pub header_edits: HeaderEdits,
    /// The model now named upstream, when a reasoning suffix was taken off.
    pub upstream_model: Option<String>,
}

fn failed(channel: &ChannelEntry, e: &ShapingError) -> AttemptError {
    match e {
        ShapingError::ReturnError(_) if !e.retryable() => {
            AttemptError::Gateway(GatewayError::Request(RequestError::RefusedByRule {
                status: e.status(),
                message: e.to_string(),
            }))
        }
        _ => AttemptError::Upstream(UpstreamError::Build(format!("channel {}: {e}", channel.id))),
    }
}

/// One attempt's outgoing body.
pub struct Outgoing<'a> {
    pub dialect: BodyDialect,
    /// The model the client asked for.
    pub original_model: &'a str,
    /// The model named upstream (mapped).
    pub upstream_model: &'a str,
    /// The body as pieces (one piece, or slices of the client's bytes).
    pub body: &'a [Bytes],
    /// What the rules' cheap check reads for fields a policy drops (the client's body will
    /// do; nothing for a body written from the IR, which never carries such fields).
    pub probe: &'a [u8],
}

/// The attempt's body after the channel's rules, or `None` when none applies.
pub fn shape(
    session: &Session,
    trace: &Trace,
    channel: &ChannelEntry,
    out: Outgoing<'_>,
) -> Result<Option<Shaped>, AttemptError> {
    let Outgoing {
        dialect,
        original_model,
        upstream_model,
        body,
        probe,
    } = out;
    let rules = channel.shaping.as_ref().map_err(|e| failed(channel, e))?;
    if !rules.needs_body(dialect, upstream_model, probe) {
        return Ok(None);
    }
    let joined: Vec<u8> = body.concat();
    let mut value: Value = serde_json::from_slice(&joined)
        .map_err(|e| AttemptError::Upstream(UpstreamError::Build(format!("body to shape: {e}"))))?;
    let req = session.req_header();
    let last = trace.channel_failures.last();
    let ctx = OverrideContext {
        original_model,
        upstream_model,
        request_path: req.uri.path(),
        client_headers: Some(&req.headers),
        retry_index: u32::try_from(trace.tried.len().saturating_sub(1)).unwrap_or(u32::MAX),
        is_channel_test: false,
        last_error_status: last.map(|f| f.status).filter(|s| *s > 0),
        last_error_code: None,
        header_override: None,
    };
    let outcome = rules
        .shape_body(&mut value, dialect, &ctx)
        .map_err(|e| failed(channel, &e))?;
    let body = serde_json::to_vec(&value)
        .map_err(|e| AttemptError::Upstream(UpstreamError::Build(e.to_string())))?;
    Ok(Some(Shaped {
        body: Bytes::from(body),
        header_edits: outcome.header_edits,
        upstream_model: outcome.upstream_model,
    }))
}
