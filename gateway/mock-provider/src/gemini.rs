//! Google Gemini (`/v1beta/models/{model}:generateContent`, `:streamGenerateContent`,
//! `:countTokens`, `:embedContent`, `:batchEmbedContents`, `GET /v1beta/models`, and the
//! same calls under `/v1/models/…`): API key auth, request checks, answers and errors in
//! Google's shapes.

use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use crate::gemini_check::{self, EmbedInput};
use crate::scenario::{self, THOUGHT_PIECES};
use crate::{Call, MockBody, Scenario, broken_json, gemini_stream, json_response};

/// `responseId` of every mock answer.
pub(crate) const RESPONSE_ID: &str = "mock-response-01";
const MODELS: [&str; 3] = ["gemini-2.5-flash", "gemini-2.5-pro", "gemini-embedding-001"];

/// What a Gemini path asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Route<'a> {
    /// `GET …/models`.
    List,
    /// `GET …/models/{model}`.
    Get(&'a str),
    /// `POST …/models/{model}:{method}`.
    Call { model: &'a str, method: &'a str },
}

impl<'a> Route<'a> {
    /// The model the path names.
    pub(crate) fn model(&self) -> Option<&'a str> {
        match *self {
            Route::List => None,
            Route::Get(m) | Route::Call { model: m, .. } => Some(m),
        }
    }
}

/// Parses a Gemini path (any prefix before `/v1beta/models` or `/v1/models/…:method`).
pub(crate) fn route(path: &str) -> Option<Route<'_>> {
    let beta = path
        .split_once("/v1beta/models")
        .or_else(|| path.split_once("/v1alpha/models"));
    let name = match beta {
        Some((_, "" | "/")) => return Some(Route::List),
        Some((_, tail)) => tail.strip_prefix('/')?,
        // Under `/v1`, only calls: `GET /v1/models` is OpenAI's list.
        None => path
            .split_once("/v1/models/")
            .map(|(_, tail)| tail)
            .filter(|tail| tail.contains(':'))?,
    };
    Some(match name.split_once(':') {
        Some((model, method)) => Route::Call { model, method },
        None => Route::Get(name),
    })
}

/// A Google error: `{"error":{"code":…,"message":…,"status":…}}`.
pub(crate) fn error(code: u16, message: &str) -> Response<MockBody> {
    error_with(code, message, None)
}

pub(crate) fn error_with(code: u16, message: &str, details: Option<Value>) -> Response<MockBody> {
    let status = match code {
        400 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        409 => "ABORTED",
        429 => "RESOURCE_EXHAUSTED",
        499 => "CANCELLED",
        501 => "NOT_IMPLEMENTED",
        503 => "UNAVAILABLE",
        504 => "DEADLINE_EXCEEDED",
        c if c >= 500 => "INTERNAL",
        _ => "FAILED_PRECONDITION",
    };
    let mut body = json!({"error": {"code": code, "message": message, "status": status}});
    if let Some(d) = details {
        body["error"]["details"] = d;
    }
    let http = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    json_response(http, &body)
}

/// Answers one Gemini request: key, scenario status, route, checks, then the answer.
pub(crate) fn handle(call: &Call) -> Response<MockBody> {
    let Some(route) = route(&call.path) else {
        return error(404, &format!("mock: no route {}", call.path));
    };
    match call
        .header("x-goog-api-key")
        .or_else(|| call.query_param("key"))
    {
        None => {
            return error(
                403,
                "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
            );
        }
        Some("") => {
            let details = json!([{
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "API_KEY_INVALID",
                "domain": "googleapis.com",
            }]);
            return error_with(
                400,
                "API key not valid. Please pass a valid API key.",
                Some(details),
            );
        }
        Some(_) => {}
    }
    respond(call, route)
}

/// Answers a Gemini request whose caller is authenticated (here by API key, on Vertex by
/// token): scenario status, route, checks, then the answer.
pub(crate) fn respond(call: &Call, route: Route<'_>) -> Response<MockBody> {
    let s = &call.scenario;
    if s.status != 200 {
        return error(s.status, &format!("mock error {}", s.status));
    }
    let (model, method) = match route {
        Route::List if call.method == http::Method::GET => {
            let models: Vec<Value> = MODELS.iter().map(|m| model_info(m)).collect();
            return json_response(StatusCode::OK, &json!({"models": models}));
        }
        Route::Get(m) if call.method == http::Method::GET => {
            return json_response(StatusCode::OK, &model_info(m));
        }
        Route::Call { model, method } if call.method == http::Method::POST => (model, method),
        _ => return error(405, &format!("Method {} not allowed", call.method)),
    };
    let Some(body) = &call.json else {
        return error(400, "Invalid JSON payload received. Unexpected token.");
    };
    let answer = match method {
        "generateContent" | "streamGenerateContent" => {
            let seen = match gemini_check::generate(body) {
                Ok(seen) => seen,
                Err(message) => return error(400, &message),
            };
            if method == "streamGenerateContent" {
                let sse = call.query_param("alt") == Some("sse");
                return gemini_stream::response(s, model, seen.images, sse, call.stats.clone());
            }
            Ok(generate(s, model, seen.images))
        }
        "countTokens" => gemini_check::count_tokens(body)
            .map(|_| json!({"totalTokens": s.prompt_tokens + s.cache_read})),
        "embedContent" => gemini_check::embed(body, "")
            .map(|input| json!({"embedding": {"values": vector(&input)}})),
        "batchEmbedContents" => gemini_check::batch_embed(body, model).map(|inputs| {
            let embeddings: Vec<Value> = inputs
                .iter()
                .map(|input| json!({"values": vector(input)}))
                .collect();
            json!({"embeddings": embeddings})
        }),
        other => {
            return error(
                404,
                &format!(
                    "models/{model} is not found for API version v1beta, or is not supported for {other}. Call ListModels to see the list of available models and their supported methods."
                ),
            );
        }
    };
    match answer {
        Err(message) => error(400, &message),
        Ok(_) if s.malformed => broken_json(),
        Ok(v) => json_response(StatusCode::OK, &v),
    }
}

fn model_info(name: &str) -> Value {
    let methods = if name.contains("embedding") {
        json!(["embedContent", "batchEmbedContents"])
    } else {
        json!(["generateContent", "streamGenerateContent", "countTokens"])
    };
    json!({
        "name": format!("models/{name}"),
        "version": "001",
        "displayName": name,
        "inputTokenLimit": 1_048_576,
        "outputTokenLimit": 65_536,
        "supportedGenerationMethods": methods,
    })
}

/// The thought part (`thinking=on`).
pub(crate) fn thought_part() -> Value {
    json!({"text": THOUGHT_PIECES.concat(), "thought": true})
}

/// The function call part (`tool=NAME`).
pub(crate) fn call_part(name: &str) -> Value {
    json!({"functionCall": {"name": name, "args": scenario::tool_input()}})
}

/// `usageMetadata`: `promptTokenCount` includes the cached tokens, `candidatesTokenCount`
/// excludes the thoughts.
pub(crate) fn usage(s: &Scenario) -> Value {
    let prompt = s.prompt_tokens + s.cache_read;
    let candidates = s.chunks as u64;
    let thoughts = s.thinking_tokens();
    let mut u = json!({
        "promptTokenCount": prompt,
        "candidatesTokenCount": candidates,
        "totalTokenCount": prompt + candidates + thoughts,
    });
    if thoughts > 0 {
        u["thoughtsTokenCount"] = json!(thoughts);
    }
    if s.cache_read > 0 {
        u["cachedContentTokenCount"] = json!(s.cache_read);
    }
    u
}

/// A response (or stream chunk) holding `parts`; `finish` adds the finish reason.
pub(crate) fn envelope(parts: Vec<Value>, finish: bool, model: &str) -> Value {
    let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
    if finish {
        candidate["finishReason"] = json!("STOP");
    }
    json!({"candidates": [candidate], "modelVersion": model, "responseId": RESPONSE_ID})
}

/// The complete `generateContent` answer.
fn generate(s: &Scenario, model: &str, images: usize) -> Value {
    let mut parts = Vec::with_capacity(2);
    if s.thinking {
        parts.push(thought_part());
    }
    parts.push(match &s.tool {
        Some(name) => call_part(name),
        None => json!({"text": s.text_pieces(images).concat()}),
    });
    let mut v = envelope(parts, true, model);
    if s.usage {
        v["usageMetadata"] = usage(s);
    }
    v
}

/// A deterministic unit-range vector for `input`: the same text always gives the same one.
fn vector(input: &EmbedInput) -> Vec<f64> {
    // FNV-1a seeds a xorshift generator.
    let mut h = input.text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    }) | 1;
    (0..input.dims)
        .map(|_| {
            h ^= h << 13;
            h ^= h >> 7;
            h ^= h << 17;
            (h % 2001) as f64 / 1000.0 - 1.0
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_routes() {
        assert_eq!(route("/v1beta/models"), Some(Route::List));
        assert_eq!(
            route("/v1beta/models/gemini-2.5-flash:streamGenerateContent"),
            Some(Route::Call {
                model: "gemini-2.5-flash",
                method: "streamGenerateContent"
            })
        );
        assert_eq!(
            route("/v1/models/g:generateContent").and_then(|r| r.model()),
            Some("g")
        );
        assert_eq!(route("/v1beta/models/g"), Some(Route::Get("g")));
        assert_eq!(route("/v1/models"), None, "OpenAI's model list");
        assert_eq!(route("/v1/chat/completions"), None);
    }

    #[test]
    fn vectors_are_deterministic() {
        let input = |t: &str| EmbedInput {
            text: t.to_owned(),
            dims: 4,
        };
        assert_eq!(vector(&input("a")), vector(&input("a")));
        assert_ne!(vector(&input("a")), vector(&input("b")));
        assert!(vector(&input("a")).iter().all(|x| (-1.0..=1.0).contains(x)));
    }
}
