//! AWS Bedrock Runtime (`POST /model/{modelId}/invoke`, `/invoke-with-response-stream`,
//! `/converse`, `/converse-stream`, under any prefix such as `/s/{spec}`; and the control
//! plane's `GET /foundation-models`, see `cloud_models.rs`): SigV4 or API key
//! auth checked as AWS does (see `sigv4_check.rs`), Claude bodies checked as Bedrock does,
//! answers in Anthropic's shape (invoke) or Converse's, errors as `{"message"}` with an
//! `x-amzn-errortype` header.
//!
//! Auth: `Authorization: AWS4-HMAC-SHA256 …` signed with the mock credential
//! ([`crate::sigv4_check::MOCK_ACCESS_KEY`] / [`crate::sigv4_check::MOCK_SECRET`]), or
//! `Authorization: Bearer <key>` with a Bedrock API key (`bedrock-api-key-…` short-term or
//! `ABSK…` long-term).

use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use crate::anthropic_check::{self, Endpoint};
use crate::scenario::{self, THINKING_SIGNATURE, THOUGHT_PIECES};
use crate::sigv4_check::{self, Received};
use crate::{Call, MockBody, anthropic, bedrock_stream, broken_json, json_response};

/// The `anthropic_version` Bedrock requires in Claude bodies.
const ANTHROPIC_VERSION: &str = "bedrock-2023-05-31";
/// `toolUseId` of the Converse answers' tool calls.
pub(crate) const TOOL_USE_ID: &str = "tooluse_mock01";

/// What a Bedrock path asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    Invoke,
    InvokeStream,
    Converse,
    ConverseStream,
}

impl Action {
    pub(crate) fn is_stream(self) -> bool {
        matches!(self, Action::InvokeStream | Action::ConverseStream)
    }
}

/// `(model id as sent, action)` of `…/model/{id}/{action}`.
pub(crate) fn route(path: &str) -> Option<(&str, Action)> {
    let mut it = path.rsplitn(4, '/');
    let action = match it.next()? {
        "invoke" => Action::Invoke,
        "invoke-with-response-stream" => Action::InvokeStream,
        "converse" => Action::Converse,
        "converse-stream" => Action::ConverseStream,
        _ => return None,
    };
    let id = it.next().filter(|id| !id.is_empty())?;
    (it.next()? == "model").then_some((id, action))
}

/// The model id of a path, percent-decoded (`%3A` → `:`).
pub(crate) fn model_of(path: &str) -> Option<String> {
    let (id, _) = route(path)?;
    let b = id.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match id.get(i + 1..i + 3).map(|h| u8::from_str_radix(h, 16)) {
            Some(Ok(v)) if b[i] == b'%' => {
                out.push(v);
                i += 3;
            }
            _ => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// A Bedrock error: `{"message": …}` and the exception name in `x-amzn-errortype`.
pub(crate) fn error(status: u16, kind: &str, message: &str) -> Response<MockBody> {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut resp = json_response(code, &json!({ "message": message }));
    if let Ok(v) = http::HeaderValue::from_str(kind) {
        resp.headers_mut().insert("x-amzn-errortype", v);
    }
    resp
}

/// The exception AWS names for a status (the `status=` scenario).
fn exception_of(status: u16) -> &'static str {
    match status {
        400 => "ValidationException",
        403 => "AccessDeniedException",
        404 => "ResourceNotFoundException",
        408 => "ModelTimeoutException",
        424 => "ModelErrorException",
        429 => "ThrottlingException",
        503 => "ServiceUnavailableException",
        _ => "InternalServerException",
    }
}

/// Checks the credentials, SigV4 (verified) or a Bedrock API key; `Some(refusal)` when they
/// do not hold.
pub(crate) fn refusal(call: &Call, now: i64) -> Option<Response<MockBody>> {
    let Some(auth) = call.header("authorization") else {
        return Some(error(
            403,
            "MissingAuthenticationTokenException",
            "Missing Authentication Token",
        ));
    };
    if let Some(key) = auth.strip_prefix("Bearer ") {
        if key.starts_with("bedrock-api-key-") || key.starts_with("ABSK") {
            return None;
        }
        return Some(error(
            403,
            "UnrecognizedClientException",
            "Invalid API Key format: Must start with pre-defined prefix",
        ));
    }
    let received = Received {
        method: call.method.as_str(),
        raw_path: &call.raw_path,
        query: call.query.as_deref(),
        headers: &call.headers,
        authority: call.authority.as_deref(),
        body: &call.body,
    };
    sigv4_check::verify(&received, auth, now)
        .err()
        .map(|r| error(403, r.kind, &r.message))
}

/// Answers one Bedrock request: auth, scenario status, route, body checks, answer.
pub(crate) fn handle(call: &Call, now: i64) -> Response<MockBody> {
    let s = &call.scenario;
    if let Some(refused) = refusal(call, now) {
        return refused;
    }
    if s.status != 200 {
        return error(
            s.status,
            exception_of(s.status),
            &format!("mock error {}", s.status),
        );
    }
    if call.path == crate::cloud_models::FOUNDATION_MODELS_PATH {
        return crate::cloud_models::bedrock(call);
    }
    let Some((_, action)) = route(&call.path) else {
        return error(404, "UnknownOperationException", "Unknown operation");
    };
    if call.method != http::Method::POST {
        return error(405, "UnknownOperationException", "Method not allowed");
    }
    let model = model_of(&call.path).unwrap_or_default();
    let Some(body) = call.json.as_ref().filter(|b| b.is_object()) else {
        return error(
            400,
            "ValidationException",
            "Malformed input request, please reformat your input and try again.",
        );
    };
    match action {
        Action::Invoke | Action::InvokeStream => {
            if !model.contains("anthropic.claude") {
                return error(
                    400,
                    "ValidationException",
                    "The mock serves InvokeModel for Claude models only.",
                );
            }
            let images = match claude_body(body, &model) {
                Ok(images) => images,
                Err(m) => return error(400, "ValidationException", &m),
            };
            if action.is_stream() {
                return bedrock_stream::invoke(s, &model, images, call.stats.clone());
            }
            if s.malformed {
                return broken_json();
            }
            json_response(StatusCode::OK, &anthropic::message(s, &model, images))
        }
        Action::Converse | Action::ConverseStream => {
            let images = match converse_body(body) {
                Ok(images) => images,
                Err(m) => return error(400, "ValidationException", &m),
            };
            if action.is_stream() {
                return bedrock_stream::converse(s, images, call.stats.clone());
            }
            if s.malformed {
                return broken_json();
            }
            json_response(StatusCode::OK, &converse_answer(s, images))
        }
    }
}

/// Bedrock's checks of a Claude body (`anthropic_version`, no `model`, no `stream`), then
/// Anthropic's (with the model of the URL). Returns the images seen.
fn claude_body(body: &Value, model: &str) -> Result<usize, String> {
    match body.get("anthropic_version").and_then(Value::as_str) {
        Some(ANTHROPIC_VERSION) => {}
        Some(v) => return Err(format!("invalid anthropic_version: {v}")),
        None => return Err("Malformed input request: #: required key [anthropic_version] not found, please reformat your input and try again.".into()),
    }
    for key in ["model", "stream"] {
        if body.get(key).is_some() {
            return Err(format!(
                "Malformed input request: #: extraneous key [{key}] is not permitted, please reformat your input and try again."
            ));
        }
    }
    let mut as_anthropic = body.clone();
    if let Some(o) = as_anthropic.as_object_mut() {
        o.remove("anthropic_version");
        o.insert("model".into(), model.into());
    }
    anthropic_check::request(&as_anthropic, Endpoint::Messages).map(|seen| seen.images)
}

/// Converse checks: messages present, alternating from `user`, blocks with one known member,
/// tool blocks only with a `toolConfig`, `maxTokens` positive. Returns the images seen.
fn converse_body(body: &Value) -> Result<usize, String> {
    let Some(messages) = body
        .get("messages")
        .and_then(Value::as_array)
        .filter(|m| !m.is_empty())
    else {
        return Err("The model requires at least one message: messages must not be empty.".into());
    };
    if let Some(m) = body.pointer("/inferenceConfig/maxTokens")
        && m.as_i64().is_none_or(|n| n < 1)
    {
        return Err("The value at inferenceConfig.maxTokens must be at least 1.".into());
    }
    let has_tools = body
        .pointer("/toolConfig/tools")
        .and_then(Value::as_array)
        .is_some_and(|t| !t.is_empty());
    let mut images = 0;
    let mut expected = "user";
    for (i, m) in messages.iter().enumerate() {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("");
        if role != expected {
            return Err(if i == 0 {
                "A conversation must start with a user message. Try again with a conversation that starts with a user message.".into()
            } else {
                "A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.".into()
            });
        }
        expected = if role == "user" { "assistant" } else { "user" };
        let Some(blocks) = m.get("content").and_then(Value::as_array) else {
            return Err(format!("messages.{i}.content must be a list"));
        };
        for b in blocks {
            let Some(kind) = b
                .as_object()
                .filter(|o| o.len() == 1)
                .and_then(|o| o.keys().next())
            else {
                return Err(format!(
                    "messages.{i}: a content block has exactly one member"
                ));
            };
            match kind.as_str() {
                "text" if b["text"].as_str().is_some_and(|t| t.trim().is_empty()) => {
                    return Err("The text field in the ContentBlock object is blank. Add text to the text field, and try again.".into());
                }
                "image" => images += 1,
                "toolUse" | "toolResult" if !has_tools => {
                    return Err("The toolConfig field must be defined when using toolUse and toolResult content blocks.".into());
                }
                "text" | "toolUse" | "toolResult" | "reasoningContent" | "document" | "video"
                | "cachePoint" | "guardContent" => {}
                other => return Err(format!("messages.{i}: unknown content block {other}")),
            }
        }
    }
    Ok(images)
}

/// The complete Converse answer.
fn converse_answer(s: &crate::Scenario, images: usize) -> Value {
    let content: Vec<Value> = anthropic::plan(s, images)
        .into_iter()
        .map(|b| match b {
            anthropic::Block::Thinking => json!({"reasoningContent": {"reasoningText": {
                "text": THOUGHT_PIECES.concat(), "signature": THINKING_SIGNATURE}}}),
            anthropic::Block::Text(pieces) => json!({"text": pieces.concat()}),
            anthropic::Block::ToolUse(name) => json!({"toolUse": {
                "toolUseId": TOOL_USE_ID, "name": name, "input": scenario::tool_input()}}),
        })
        .collect();
    let mut v = json!({
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": anthropic::stop_reason(s),
        "metrics": {"latencyMs": 42},
    });
    if s.usage {
        v["usage"] = converse_usage(s);
    }
    v
}

/// Converse usage: `inputTokens` without the cache reads and writes, which come apart.
pub(crate) fn converse_usage(s: &crate::Scenario) -> Value {
    let output = anthropic::output_tokens(s);
    json!({
        "inputTokens": s.prompt_tokens,
        "outputTokens": output,
        "totalTokens": s.prompt_tokens + s.cache_read + s.cache_creation + output,
        "cacheReadInputTokens": s.cache_read,
        "cacheWriteInputTokens": s.cache_creation,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_the_four_calls() {
        assert_eq!(
            route("/model/a%3A0/invoke"),
            Some(("a%3A0", Action::Invoke))
        );
        assert_eq!(
            route("/x/model/m/converse-stream"),
            Some(("m", Action::ConverseStream))
        );
        assert_eq!(route("/model//converse"), None);
        assert_eq!(route("/v1/messages"), None);
        assert_eq!(route("/models/m/invoke"), None);
        assert_eq!(
            model_of("/model/us.anthropic.x-v1%3A0/invoke").as_deref(),
            Some("us.anthropic.x-v1:0")
        );
    }
}
