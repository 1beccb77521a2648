//! The mock's Vertex AI over a real socket: the service-account token endpoint (assertions
//! signed with the fixture key, refusals like Google's), then Gemini and Claude calls that
//! need a live token (or, for Gemini, an API key).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use common::{Answer, mock, send, send_raw};
use mock_provider::{
    CLOUD_PLATFORM_SCOPE, GOOGLE_TOKEN_AUDIENCES, MockHandle, TEST_CLIENT_EMAIL, TEST_KEY_ID,
    TEST_PROJECT_ID,
};
use ring::rand::SystemRandom;
use ring::signature::{RSA_PKCS1_SHA256, RsaKeyPair};
use serde_json::{Value, json};

const KEY_FILE: &str = include_str!("../fixtures/vertex-test-service-account.json");
const STRANGER: &str = include_str!("../fixtures/vertex-test-stranger-key.pem");
const GRANT: &str = "urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer";
const GEMINI: &str = "gemini-2.5-flash";
const CLAUDE: &str = "claude-sonnet-4-5@20250929";

fn pkcs8(pem: &str) -> RsaKeyPair {
    let b64: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
    RsaKeyPair::from_pkcs8(&STANDARD.decode(b64).unwrap()).unwrap()
}

fn account_key() -> RsaKeyPair {
    let v: Value = serde_json::from_str(KEY_FILE).unwrap();
    pkcs8(v["private_key"].as_str().unwrap())
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// An RS256 assertion for the test account, `aud` as given, signed by `key`.
fn assertion(key: &RsaKeyPair, aud: &str) -> String {
    let header = json!({"alg": "RS256", "typ": "JWT", "kid": TEST_KEY_ID});
    let iat = now();
    let claims = json!({
        "iss": TEST_CLIENT_EMAIL,
        "scope": CLOUD_PLATFORM_SCOPE,
        "aud": aud,
        "iat": iat,
        "exp": iat + 3600,
    });
    let input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let mut sig = vec![0; key.public().modulus_len()];
    key.sign(
        &RSA_PKCS1_SHA256,
        &SystemRandom::new(),
        input.as_bytes(),
        &mut sig,
    )
    .unwrap();
    format!("{input}.{}", URL_SAFE_NO_PAD.encode(sig))
}

async fn exchange(token_url: &str, jwt: &str) -> Answer {
    let form = format!("grant_type={GRANT}&assertion={jwt}");
    send_raw(
        "POST",
        token_url,
        &[],
        Some(("application/x-www-form-urlencoded", &form)),
    )
    .await
}

/// A live token from the mock (scenario `spec` on the token endpoint).
async fn token(m: &MockHandle, spec: &str) -> String {
    let url = if spec.is_empty() {
        format!("{}/token", m.url())
    } else {
        format!("{}/token", m.scenario_url(spec))
    };
    let a = exchange(&url, &assertion(&account_key(), GOOGLE_TOKEN_AUDIENCES[0])).await;
    assert_eq!(a.status, 200, "{}", a.body);
    a.json()["access_token"].as_str().unwrap().to_owned()
}

fn vertex_url(m: &MockHandle, project: &str, publisher: &str, model: &str, method: &str) -> String {
    format!(
        "{}/v1/projects/{project}/locations/us-east5/publishers/{publisher}/models/{model}:{method}",
        m.url()
    )
}

fn gemini_body() -> Value {
    json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]})
}

fn claude_body(stream: bool) -> Value {
    json!({
        "anthropic_version": "vertex-2023-10-16",
        "max_tokens": 64,
        "messages": [{"role": "user", "content": "hi"}],
        "stream": stream,
    })
}

/// `(status, Google status name, message)` of a Google error.
fn google_error(a: &Answer) -> (u16, String, String) {
    let v = a.json();
    assert_eq!(
        v["error"]["code"].as_u64(),
        Some(u64::from(a.status)),
        "{}",
        a.body
    );
    (
        a.status,
        v["error"]["status"].as_str().unwrap_or("").to_owned(),
        v["error"]["message"].as_str().unwrap_or("").to_owned(),
    )
}

/// `(status, error, error_description)` of an OAuth error.
fn oauth_error(a: &Answer) -> (u16, String, String) {
    let v = a.json();
    (
        a.status,
        v["error"].as_str().unwrap_or("").to_owned(),
        v["error_description"].as_str().unwrap_or("").to_owned(),
    )
}

#[tokio::test]
async fn a_fixture_key_assertion_gets_a_token_that_opens_gemini_and_claude() {
    let m = mock().await;
    let a = exchange(
        &format!("{}/token", m.url()),
        &assertion(&account_key(), GOOGLE_TOKEN_AUDIENCES[0]),
    )
    .await;
    assert_eq!(a.status, 200, "{}", a.body);
    let v = a.json();
    assert!(
        v["access_token"]
            .as_str()
            .unwrap()
            .starts_with("ya29.mock-")
    );
    assert_eq!(v["expires_in"], json!(3599));
    assert_eq!(v["token_type"], json!("Bearer"));
    assert_eq!(m.token_calls(), 1);
    let bearer = format!("Bearer {}", v["access_token"].as_str().unwrap());
    let auth = [("authorization", bearer.as_str())];

    let g = send(
        "POST",
        &vertex_url(&m, TEST_PROJECT_ID, "google", GEMINI, "generateContent"),
        &auth,
        Some(&gemini_body()),
    )
    .await;
    assert_eq!(g.status, 200, "{}", g.body);
    assert_eq!(g.json()["candidates"][0]["content"]["role"], json!("model"));
    let seen = m.with_stats(|s| s.requests.last().unwrap().clone());
    assert_eq!(
        (seen.dialect, seen.model.as_deref()),
        ("vertex", Some(GEMINI))
    );
    assert_eq!(seen.credential.unwrap().value, bearer);

    let c = send(
        "POST",
        &vertex_url(&m, TEST_PROJECT_ID, "anthropic", CLAUDE, "rawPredict"),
        &auth,
        Some(&claude_body(false)),
    )
    .await;
    assert_eq!(c.status, 200, "{}", c.body);
    let msg = c.json();
    assert_eq!(msg["type"], json!("message"));
    assert_eq!(msg["model"], json!("claude-sonnet-4-5-20250929"));
    let seen = m.with_stats(|s| s.requests.last().unwrap().clone());
    assert_eq!(seen.model.as_deref(), Some(CLAUDE));
    assert_eq!(seen.anthropic_version.as_deref(), Some("vertex-2023-10-16"));
    assert!(!seen.stream);

    let s = send(
        "POST",
        &vertex_url(&m, TEST_PROJECT_ID, "anthropic", CLAUDE, "streamRawPredict"),
        &auth,
        Some(&claude_body(true)),
    )
    .await;
    assert_eq!(s.status, 200, "{}", s.body);
    assert!(
        s.content_type.starts_with("text/event-stream"),
        "{}",
        s.content_type
    );
    let events = s.events();
    assert_eq!(events.first(), Some(&"message_start"));
    assert_eq!(events.last(), Some(&"message_stop"));
    assert!(m.with_stats(|s| s.requests.last().unwrap().stream));

    let gs = send(
        "POST",
        &format!(
            "{}?alt=sse",
            vertex_url(
                &m,
                TEST_PROJECT_ID,
                "google",
                GEMINI,
                "streamGenerateContent"
            )
        ),
        &auth,
        Some(&gemini_body()),
    )
    .await;
    assert_eq!(gs.status, 200, "{}", gs.body);
    assert!(!gs.data().is_empty());
    // Token calls are counted apart from the provider calls.
    assert_eq!(m.calls("default"), 4);
    assert_eq!(m.with_stats(|s| s.tokens_issued), 1);
}

#[tokio::test]
async fn assertions_from_another_key_or_for_another_audience_are_refused() {
    let m = mock().await;
    let url = format!("{}/token", m.url());
    let stranger = exchange(
        &url,
        &assertion(&pkcs8(STRANGER), GOOGLE_TOKEN_AUDIENCES[0]),
    )
    .await;
    assert_eq!(
        oauth_error(&stranger),
        (400, "invalid_grant".into(), "Invalid JWT Signature.".into())
    );
    // The URL the mock is reached at is not Google's audience.
    let wrong_aud = exchange(&url, &assertion(&account_key(), &url)).await;
    let (status, kind, description) = oauth_error(&wrong_aud);
    assert_eq!((status, kind.as_str()), (400, "invalid_grant"));
    assert!(description.contains("audience"), "{description}");
    // Unless a test says the mock stands for an endpoint with that audience.
    m.set_token_audience(Some(&url));
    assert_eq!(
        exchange(&url, &assertion(&account_key(), &url))
            .await
            .status,
        200
    );
    m.set_token_audience(None);

    let bad_grant = send_raw(
        "POST",
        &url,
        &[],
        Some((
            "application/x-www-form-urlencoded",
            "grant_type=client_credentials",
        )),
    )
    .await;
    assert_eq!(oauth_error(&bad_grant).1, "unsupported_grant_type");
    let no_assertion = send_raw(
        "POST",
        &url,
        &[],
        Some((
            "application/x-www-form-urlencoded",
            &format!("grant_type={GRANT}"),
        )),
    )
    .await;
    assert_eq!(oauth_error(&no_assertion).1, "invalid_request");
    let down = exchange(
        &format!("{}/token", m.scenario_url("status=503")),
        &assertion(&account_key(), GOOGLE_TOKEN_AUDIENCES[0]),
    )
    .await;
    assert_eq!(
        (down.status, oauth_error(&down).1.as_str()),
        (503, "internal_failure")
    );
    assert_eq!(m.token_calls(), 6);
    assert_eq!(m.with_stats(|s| s.tokens_issued), 1);
    assert_eq!(m.calls("default"), 0);
}

#[tokio::test]
async fn vertex_calls_without_a_live_token_of_the_project_are_refused() {
    let m = mock().await;
    let gemini = vertex_url(&m, TEST_PROJECT_ID, "google", GEMINI, "generateContent");
    let claude = vertex_url(&m, TEST_PROJECT_ID, "anthropic", CLAUDE, "rawPredict");
    let call = |url: String, auth: Option<String>, body: Value| async move {
        let headers: Vec<(&str, &str)> = auth
            .as_deref()
            .map(|a| vec![("authorization", a)])
            .unwrap_or_default();
        send("POST", &url, &headers, Some(&body)).await
    };
    let (status, kind, _) = google_error(&call(gemini.clone(), None, gemini_body()).await);
    assert_eq!((status, kind.as_str()), (401, "UNAUTHENTICATED"));
    let forged = call(
        claude.clone(),
        Some("Bearer ya29.forged".into()),
        claude_body(false),
    )
    .await;
    assert_eq!(google_error(&forged).1, "UNAUTHENTICATED");

    // A token born dead (token_ttl=0), then a live one expired by the test.
    let dead = token(&m, "token_ttl=0").await;
    let a = call(
        gemini.clone(),
        Some(format!("Bearer {dead}")),
        gemini_body(),
    )
    .await;
    assert_eq!(a.status, 401, "{}", a.body);
    let live = format!("Bearer {}", token(&m, "").await);
    assert_eq!(
        call(gemini.clone(), Some(live.clone()), gemini_body())
            .await
            .status,
        200
    );
    let other_project = vertex_url(&m, "someone-else", "google", GEMINI, "generateContent");
    let a = call(other_project, Some(live.clone()), gemini_body()).await;
    assert_eq!(google_error(&a).1, "PERMISSION_DENIED");
    m.expire_tokens();
    assert_eq!(
        call(gemini.clone(), Some(live), gemini_body()).await.status,
        401
    );

    // API keys: Google's models (express mode or project paths), never Claude.
    let key = [("x-goog-api-key", "AQ.test-key")];
    let express = format!(
        "{}/v1/publishers/google/models/{GEMINI}:generateContent",
        m.url()
    );
    let a = send("POST", &express, &key, Some(&gemini_body())).await;
    assert_eq!(a.status, 200, "{}", a.body);
    let cred = m
        .with_stats(|s| s.requests.last().unwrap().credential.clone())
        .unwrap();
    assert_eq!(
        (cred.carrier.as_str(), cred.value.as_str()),
        ("x-goog-api-key", "AQ.test-key")
    );
    let by_query = send(
        "POST",
        &format!("{express}?key=AQ.q"),
        &[],
        Some(&gemini_body()),
    )
    .await;
    assert_eq!(by_query.status, 200, "{}", by_query.body);
    let a = send("POST", &claude, &key, Some(&claude_body(false))).await;
    let (status, kind, message) = google_error(&a);
    assert_eq!((status, kind.as_str()), (401, "UNAUTHENTICATED"));
    assert!(message.contains("API keys are not supported"), "{message}");
}

#[tokio::test]
async fn claude_bodies_follow_vertex_rules_then_anthropics() {
    let m = mock().await;
    let bearer = format!("Bearer {}", token(&m, "").await);
    let auth = [("authorization", bearer.as_str())];
    let url = vertex_url(&m, TEST_PROJECT_ID, "anthropic", CLAUDE, "rawPredict");
    let post = |body: Value| {
        let url = url.clone();
        async move { send("POST", &url, &auth, Some(&body)).await }
    };
    let mut no_version = claude_body(false);
    no_version
        .as_object_mut()
        .unwrap()
        .remove("anthropic_version");
    let (status, kind, message) = google_error(&post(no_version).await);
    assert_eq!((status, kind.as_str()), (400, "INVALID_ARGUMENT"));
    assert!(message.contains("anthropic_version"), "{message}");
    let mut header_version = claude_body(false);
    header_version["anthropic_version"] = json!("2023-06-01");
    assert!(
        google_error(&post(header_version).await)
            .2
            .contains("vertex-2023-10-16")
    );
    let mut with_model = claude_body(false);
    with_model["model"] = json!(CLAUDE);
    let (status, _, message) = google_error(&post(with_model).await);
    assert_eq!(status, 400);
    assert!(message.contains("model"), "{message}");
    // Past Vertex's rules, Anthropic's checks answer in Anthropic's shape.
    let mut no_max = claude_body(false);
    no_max.as_object_mut().unwrap().remove("max_tokens");
    let a = post(no_max).await;
    assert_eq!(a.status, 400);
    assert_eq!(
        a.json()["error"]["type"],
        json!("invalid_request_error"),
        "{}",
        a.body
    );
    // Scenario knobs still apply.
    let limited = send(
        "POST",
        &url,
        &[
            ("authorization", bearer.as_str()),
            ("x-mock-scenario", "status=429,tag=v"),
        ],
        Some(&claude_body(false)),
    )
    .await;
    assert_eq!(google_error(&limited).1, "RESOURCE_EXHAUSTED");
    assert_eq!(m.calls("v"), 1);
    let tool = send(
        "POST",
        &url,
        &[
            ("authorization", bearer.as_str()),
            ("x-mock-scenario", "tool=get_weather"),
        ],
        Some(&claude_body(false)),
    )
    .await;
    assert_eq!(
        tool.json()["stop_reason"],
        json!("tool_use"),
        "{}",
        tool.body
    );
}

#[tokio::test]
async fn the_fixture_key_file_can_point_at_the_mock() {
    let v: Value = serde_json::from_str(&mock_provider::test_service_account_json(
        "http://m:1/token",
    ))
    .unwrap();
    assert_eq!(v["token_uri"], json!("http://m:1/token"));
    assert_eq!(v["client_email"], json!(TEST_CLIENT_EMAIL));
    assert_eq!(v["project_id"], json!(TEST_PROJECT_ID));
    assert_eq!(v["private_key_id"], json!(TEST_KEY_ID));
}

#[tokio::test]
async fn publisher_models_are_listed_in_pages_to_a_token_or_an_api_key() {
    let m = common::mock().await;
    let url = format!("{}/v1beta1/publishers/google/models", m.url());
    let anonymous = send("GET", &url, &[], None).await;
    assert_eq!(google_error(&anonymous).0, 401);
    let bearer = format!("Bearer {}", token(&m, "").await);
    let mut names = Vec::new();
    let mut page_url = url.clone();
    loop {
        let page = send(
            "GET",
            &page_url,
            &[("authorization", bearer.as_str())],
            None,
        )
        .await;
        assert_eq!(page.status, 200, "{}", page.body);
        let v = page.json();
        let models = v["publisherModels"].as_array().unwrap();
        assert!(models.len() <= mock_provider::VERTEX_PAGE);
        names.extend(
            models
                .iter()
                .map(|p| p["name"].as_str().unwrap().to_owned()),
        );
        match v["nextPageToken"].as_str() {
            Some(next) => page_url = format!("{url}?pageToken={next}"),
            None => break,
        }
    }
    assert_eq!(names.len(), 5);
    assert!(names.contains(&"publishers/google/models/gemini-2.5-flash".to_owned()));
    let keyed = send("GET", &url, &[("x-goog-api-key", "AIza-test")], None).await;
    assert_eq!(keyed.status, 200, "{}", keyed.body);
    let bad = send(
        "GET",
        &format!("{url}?pageToken=zz"),
        &[("x-goog-api-key", "AIza-test")],
        None,
    )
    .await;
    assert_eq!(google_error(&bad).0, 400);
}
