//! Google Vertex AI: `/v1/projects/{p}/locations/{r}/publishers/google/models/{m}:{method}`
//! answered as Gemini, `/v1/projects/{p}/locations/{r}/publishers/anthropic/models/{m}:rawPredict`
//! and `:streamRawPredict` answered as Anthropic Messages (after Vertex's own body rules:
//! `anthropic_version: "vertex-2023-10-16"`, no `model`), and express mode
//! (`/v1/publishers/google/models/{m}:{method}`, API key). `/v1beta1/…` paths too, and
//! the list of Google's models (`GET /v1beta1/publishers/google/models`, `cloud_models.rs`).
//!
//! Every call needs `Authorization: Bearer` with a live token from `POST /token` (issued to
//! the test account, whose project must be the path's) or, on Google's models only, an API
//! key (`x-goog-api-key` or `?key=`). Errors are Google's (`{"error":{"code","message",
//! "status"}}`); the Anthropic checks' errors keep Anthropic's shape, as Vertex passes them on.
//! Whether `:rawPredict` streams or not follows the body's `stream`, as Anthropic does behind
//! Vertex.

use hyper::Response;
use serde_json::{Value, json};

use crate::gemini::{self, error as google_error};
use crate::{Call, MockBody, anthropic, anthropic_check, lock};

/// The `anthropic_version` Vertex requires in Claude bodies.
pub const VERTEX_ANTHROPIC_VERSION: &str = "vertex-2023-10-16";

const NO_CREDENTIAL: &str = "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.";
const BAD_CREDENTIAL: &str = "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.";
const NO_API_KEYS: &str = "API keys are not supported by this API. Expected OAuth2 access token or other authentication credentials that assert a principal. See https://cloud.google.com/docs/authentication";

/// A Vertex path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Route<'a> {
    /// `None` on express-mode paths.
    pub project: Option<&'a str>,
    pub location: Option<&'a str>,
    /// `google` or `anthropic` (others are parsed, and answered 404).
    pub publisher: &'a str,
    /// As written in the path (percent-encoded).
    pub model: &'a str,
    pub method: &'a str,
}

/// Parses `/{v1|v1beta1}/[projects/{p}/locations/{r}/]publishers/{pub}/models/{m}:{method}`.
pub(crate) fn route(path: &str) -> Option<Route<'_>> {
    let rest = path
        .strip_prefix("/v1/")
        .or_else(|| path.strip_prefix("/v1beta1/"))?;
    let mut seg = rest.split('/');
    let mut next = || seg.next();
    let (project, location, first) = match next()? {
        "projects" => {
            let p = next()?;
            (next()? == "locations").then_some(())?;
            let r = next()?;
            (Some(p), Some(r), next()?)
        }
        first => (None, None, first),
    };
    (first == "publishers").then_some(())?;
    let publisher = next()?;
    (next()? == "models").then_some(())?;
    let (model, method) = next()?.split_once(':')?;
    if next().is_some() || model.is_empty() {
        return None;
    }
    Some(Route {
        project,
        location,
        publisher,
        model,
        method,
    })
}

/// `%XX` sequences of a path segment decoded (the model of a `claude-…%4020250929` path).
pub(crate) fn decode_segment(s: &str) -> String {
    let b = s.as_bytes();
    let hex = |c: u8| char::from(c).to_digit(16);
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Answers one Vertex request: credentials, scenario status, route, checks, answer.
pub(crate) fn handle(call: &Call) -> Response<MockBody> {
    if call.path == crate::cloud_models::PUBLISHER_MODELS_PATH {
        return model_list(call);
    }
    let Some(r) = route(&call.path) else {
        return google_error(404, &format!("mock: no route {}", call.path));
    };
    let model = decode_segment(r.model);
    if let Some(refused) = authenticate(call, &r) {
        return refused;
    }
    if call.method != http::Method::POST {
        return google_error(405, &format!("Method {} not allowed", call.method));
    }
    match r.publisher {
        "google" => gemini::respond(
            call,
            gemini::Route::Call {
                model: &model,
                method: r.method,
            },
        ),
        "anthropic" => claude(call, &r, &model),
        other => google_error(
            404,
            &format!("Publisher Model `publishers/{other}/models/{model}` not found."),
        ),
    }
}

/// Google's publisher models, to a live token or an API key (no project in the path).
fn model_list(call: &Call) -> Response<MockBody> {
    let listing = Route {
        project: None,
        location: None,
        publisher: "google",
        model: "",
        method: "list",
    };
    if let Some(refused) = authenticate(call, &listing) {
        return refused;
    }
    if call.scenario.status != 200 {
        let s = call.scenario.status;
        return google_error(s, &format!("mock error {s}"));
    }
    crate::cloud_models::vertex(call)
}

/// Checks the caller's credential: a live token of this mock (for the path's project), or an
/// API key on Google's models. The refusal, if any.
fn authenticate(call: &Call, r: &Route<'_>) -> Option<Response<MockBody>> {
    if let Some(auth) = call.header("authorization") {
        let Some(token) = auth.strip_prefix("Bearer ").filter(|t| !t.is_empty()) else {
            return Some(google_error(401, BAD_CREDENTIAL));
        };
        let st = lock(&call.stats);
        let Ok(issued) = st.oauth.check(token) else {
            return Some(google_error(401, BAD_CREDENTIAL));
        };
        return match r.project {
            Some(project) if project != issued.project_id => Some(google_error(
                403,
                &format!(
                    "Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/{project}/locations/{}/publishers/{}/models/{}' (or it may not exist).",
                    r.location.unwrap_or("global"),
                    r.publisher,
                    r.model
                ),
            )),
            _ => None,
        };
    }
    let key = call
        .header("x-goog-api-key")
        .or_else(|| call.query_param("key"));
    match key {
        None => Some(google_error(401, NO_CREDENTIAL)),
        Some(_) if r.publisher != "google" => Some(google_error(401, NO_API_KEYS)),
        Some("") => {
            let details = json!([{
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "API_KEY_INVALID",
                "domain": "googleapis.com",
            }]);
            Some(gemini::error_with(
                400,
                "API key not valid. Please pass a valid API key.",
                Some(details),
            ))
        }
        Some(_) => None,
    }
}

/// A Claude call: Vertex's body rules, then Anthropic's checks and answer.
fn claude(call: &Call, r: &Route<'_>, model: &str) -> Response<MockBody> {
    let s = &call.scenario;
    if r.project.is_none() {
        return google_error(
            404,
            &format!(
                "Publisher Model `publishers/anthropic/models/{model}` is not served in express mode."
            ),
        );
    }
    if s.status != 200 {
        return google_error(s.status, &format!("mock error {}", s.status));
    }
    if !matches!(r.method, "rawPredict" | "streamRawPredict") {
        return google_error(
            400,
            &format!(
                "Method {} is not supported by publisher model {model}.",
                r.method
            ),
        );
    }
    let Some(body) = call.json.as_ref().and_then(Value::as_object) else {
        return google_error(400, "Invalid JSON payload received.");
    };
    match body.get("anthropic_version").and_then(Value::as_str) {
        Some(VERTEX_ANTHROPIC_VERSION) => {}
        Some(other) => {
            return google_error(
                400,
                &format!(
                    "anthropic_version: Input should be '{VERTEX_ANTHROPIC_VERSION}', got '{other}'"
                ),
            );
        }
        None => return google_error(400, "anthropic_version: Field required"),
    }
    if body.contains_key("model") {
        return google_error(
            400,
            "model: Extra inputs are not permitted (the model is named in the URL)",
        );
    }
    // Anthropic's checks run on the body as Anthropic sees it: the model from the URL.
    let mut checked = body.clone();
    checked.remove("anthropic_version");
    checked.insert("model".to_owned(), json!(model));
    let seen = match anthropic_check::request(
        &Value::Object(checked),
        anthropic_check::Endpoint::Messages,
    ) {
        Ok(seen) => seen,
        Err(message) => return anthropic::error(400, &message),
    };
    let stream = body.get("stream").and_then(Value::as_bool) == Some(true);
    // Vertex answers with Anthropic's name of the version (`claude-x-20250929`).
    anthropic::answer(call, &model.replace('@', "-"), seen.images, stream)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn parses_routes() {
        assert_eq!(
            route(
                "/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-x@2025:streamRawPredict"
            ),
            Some(Route {
                project: Some("p"),
                location: Some("us-east5"),
                publisher: "anthropic",
                model: "claude-x@2025",
                method: "streamRawPredict"
            })
        );
        let express =
            route("/v1beta1/publishers/google/models/gemini-2.5-flash:generateContent").unwrap();
        assert_eq!((express.project, express.model), (None, "gemini-2.5-flash"));
        for not_vertex in [
            "/v1/models/gemini:generateContent",
            "/v1beta/models/gemini:generateContent",
            "/v1/chat/completions",
            "/v1/messages",
            "/v1/projects/p/locations/r/publishers/google/models/m",
            "/v1/projects/p/publishers/google/models/m:generateContent",
            "/v1/projects/p/locations/r/publishers/google/models/m:x/y",
        ] {
            assert_eq!(route(not_vertex), None, "{not_vertex}");
        }
        assert_eq!(decode_segment("claude-x%4020250929%"), "claude-x@20250929%");
    }
}
