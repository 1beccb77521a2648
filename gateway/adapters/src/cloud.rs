//! Requests to cloud channels, whose URL and credentials come from the channel key, built
//! the same way by both planes (the gateway's relay, the control plane's channel test):
//! AWS Bedrock (region in the key; Claude through InvokeModel, other models through
//! Converse; SigV4 or a Bedrock API key; streams in AWS event-stream framing) and Google
//! Vertex AI (project in the service account, region from the channel's `other`; an access
//! token the caller got, or an API key in express mode). The body the caller encoded for the
//! protocol is finished here: Claude bodies lose `model` and gain the cloud's
//! `anthropic_version`. Pure: time and tokens are passed in.

use bytes::Bytes;

use crate::ParseError;
use crate::bedrock::{self, Action, ChannelKey, StreamKind};
use crate::provider::Protocol;
use crate::vertex::{self, VertexKey};

/// A request ready to send (POST). Its `Debug` names the headers, never their values
/// (signatures, tokens, keys).
pub struct CloudRequest {
    pub url: String,
    pub body: Bytes,
    /// Authentication and `accept`, to set after the usual headers (`content-type:
    /// application/json` is signed and must be sent as is).
    pub headers: Vec<(&'static str, String)>,
    /// `Some` when stream answers come in AWS event-stream framing.
    pub event_stream: Option<StreamKind>,
}

/// What to call: a body encoded for `protocol`, for the upstream `model`.
#[derive(Debug, Clone)]
pub struct Call<'a> {
    pub protocol: Protocol,
    pub model: &'a str,
    pub stream: bool,
    pub body: Bytes,
}

impl std::fmt::Debug for CloudRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| *n).collect();
        f.debug_struct("CloudRequest")
            .field("url", &self.url)
            .field("body_len", &self.body.len())
            .field("headers", &names)
            .field("event_stream", &self.event_stream)
            .finish()
    }
}

fn unsupported(what: &str) -> ParseError {
    ParseError::Invalid(format!("{what} is not served by this channel"))
}

/// A Bedrock call, signed at `unix_time`.
pub fn bedrock_request(
    key: &ChannelKey,
    base_url: &str,
    call: Call<'_>,
    unix_time: i64,
) -> Result<CloudRequest, ParseError> {
    let Call {
        protocol,
        model,
        stream,
        body,
    } = call;
    let (action, body, kind) = match (protocol, stream) {
        (Protocol::Anthropic, _) => (
            if stream {
                Action::InvokeStream
            } else {
                Action::Invoke
            },
            Bytes::from(bedrock::claude_invoke_body(&body)?),
            StreamKind::Invoke,
        ),
        (Protocol::Converse, true) => (Action::ConverseStream, body, StreamKind::Converse),
        (Protocol::Converse, false) => (Action::Converse, body, StreamKind::Converse),
        (
            Protocol::OpenAi
            | Protocol::Gemini
            | Protocol::Ollama
            | Protocol::Cohere
            | Protocol::Task,
            _,
        ) => {
            return Err(unsupported("this call"));
        }
    };
    let base = bedrock::runtime_base(&key.region, base_url);
    let url = bedrock::model_url(&base, &bedrock::resolve_model(model, &key.region), action);
    let mut headers = bedrock::auth_headers(
        key,
        "POST",
        &url,
        &[("content-type", "application/json")],
        &body,
        unix_time,
    )
    .map_err(|e| ParseError::Invalid(e.to_string()))?;
    let accept = if stream {
        "application/vnd.amazon.eventstream"
    } else {
        "application/json"
    };
    headers.push(("accept", accept.to_owned()));
    Ok(CloudRequest {
        url,
        body,
        headers,
        event_stream: stream.then_some(kind),
    })
}

/// A Vertex AI call; `bearer` is the `Authorization` value of a service account's access
/// token (unused with an API key), `other` the channel's region setting.
pub fn vertex_request(
    key: &VertexKey,
    bearer: Option<&str>,
    other: &str,
    base_url: &str,
    call: Call<'_>,
) -> Result<CloudRequest, ParseError> {
    let Call {
        protocol,
        model,
        stream,
        body,
    } = call;
    let body = match protocol {
        Protocol::Anthropic => Bytes::from(vertex::claude_body(&body)?),
        Protocol::Gemini => body,
        Protocol::OpenAi
        | Protocol::Converse
        | Protocol::Ollama
        | Protocol::Cohere
        | Protocol::Task => {
            return Err(unsupported("this call"));
        }
    };
    let (url, auth) = match key {
        VertexKey::ServiceAccount(sa) => {
            let bearer = bearer.ok_or_else(|| {
                ParseError::Invalid("a Vertex service account needs an access token".to_owned())
            })?;
            let region = vertex::region_for(other, model);
            let base = vertex::base(&region, base_url);
            (
                vertex::url(&base, &sa.project_id, &region, model, stream),
                ("authorization", bearer.to_owned()),
            )
        }
        VertexKey::ApiKey(k) => {
            let base = vertex::base(vertex::GLOBAL, base_url);
            (
                vertex::express_url(&base, model, stream)?,
                (vertex::API_KEY_HEADER, k.clone()),
            )
        }
    };
    Ok(CloudRequest {
        url,
        body,
        headers: vec![auth],
        event_stream: None,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::{Value, json};

    fn claude_body() -> Bytes {
        Bytes::from(
            json!({"model": "claude-sonnet-4-5", "max_tokens": 10, "stream": true,
                   "messages": [{"role": "user", "content": "hi"}]})
            .to_string(),
        )
    }

    #[test]
    fn bedrock_claude_goes_through_invoke_signed() {
        let key = bedrock::parse_key("AKIDEXAMPLE|secret|us-east-1").unwrap();
        let call = Call {
            protocol: Protocol::Anthropic,
            model: "anthropic.claude-3-haiku-20240307-v1:0",
            stream: true,
            body: claude_body(),
        };
        let r = bedrock_request(&key, "http://127.0.0.1:9/", call, 1_700_000_000).unwrap();
        assert_eq!(
            r.url,
            "http://127.0.0.1:9/model/anthropic.claude-3-haiku-20240307-v1%3A0/invoke-with-response-stream"
        );
        let body: Value = serde_json::from_slice(&r.body).unwrap();
        assert!(body.get("model").is_none() && body.get("stream").is_none());
        assert_eq!(body["anthropic_version"], "bedrock-2023-05-31");
        let names: Vec<_> = r.headers.iter().map(|(n, _)| *n).collect();
        assert!(names.contains(&"authorization") && names.contains(&"x-amz-date"));
        assert_eq!(r.event_stream, Some(StreamKind::Invoke));
        let shown = format!("{r:?}");
        assert!(
            shown.contains("authorization") && !shown.contains("AWS4-HMAC-SHA256"),
            "{shown}"
        );
        let call = Call {
            protocol: Protocol::Converse,
            model: "amazon.nova-pro-v1:0",
            stream: false,
            body: Bytes::from_static(b"{}"),
        };
        let converse = bedrock_request(&key, "", call, 1_700_000_000).unwrap();
        assert_eq!(
            converse.url,
            "https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.nova-pro-v1%3A0/converse"
        );
        assert!(converse.event_stream.is_none());
        let gemini = Call {
            protocol: Protocol::Gemini,
            model: "m",
            stream: false,
            body: Bytes::new(),
        };
        assert!(bedrock_request(&key, "", gemini, 0).is_err());
    }

    #[test]
    fn vertex_uses_the_token_or_the_api_key() {
        let api = VertexKey::parse("AIza-test", None).unwrap();
        let gemini = Call {
            protocol: Protocol::Gemini,
            model: "gemini-2.5-flash",
            stream: false,
            body: Bytes::from_static(b"{}"),
        };
        let r = vertex_request(&api, None, "", "", gemini).unwrap();
        assert!(
            r.url
                .ends_with("/publishers/google/models/gemini-2.5-flash:generateContent")
        );
        assert_eq!(r.headers, vec![("x-goog-api-key", "AIza-test".to_owned())]);
        // Express mode serves Gemini models only.
        let claude = Call {
            protocol: Protocol::Anthropic,
            model: "claude-sonnet-4-5",
            stream: false,
            body: claude_body(),
        };
        assert!(vertex_request(&api, None, "", "", claude).is_err());
    }
}
