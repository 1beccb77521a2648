//! The mock's AWS Bedrock Runtime over a real socket: SigV4 requests signed by a tiny
//! signer written here (accepted; tampered, stale or foreign ones refused), API keys, Claude
//! invoke bodies, event-stream answers, Converse JSON and streams, and what the mock records.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use base64::Engine as _;
use hmac::{Hmac, KeyInit, Mac};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use mock_provider::{MOCK_ACCESS_KEY, MOCK_SECRET};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const CLAUDE_PATH: &str = "/model/anthropic.claude-3-5-sonnet-20241022-v2%3A0";

struct Answer {
    status: u16,
    headers: http::HeaderMap,
    body: Vec<u8>,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }

    fn error(&self) -> (u16, String) {
        let kind = self.headers["x-amzn-errortype"]
            .to_str()
            .unwrap()
            .to_owned();
        assert!(self.json()["message"].is_string());
        (self.status, kind)
    }
}

fn hmac(key: &[u8], data: &str) -> Vec<u8> {
    let mut m = Hmac::<Sha256>::new_from_slice(key).unwrap();
    m.update(data.as_bytes());
    m.finalize().into_bytes().to_vec()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// `YYYYMMDDTHHMMSSZ` through `date -u`-free arithmetic (days from the epoch).
fn amz_date(t: i64) -> String {
    let (days, secs) = (t / 86_400, t % 86_400);
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}{m:02}{d:02}T{:02}{:02}{:02}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// SigV4 headers for `POST {path}` to `host` with `body`, signed at `t` with `secret`
/// (path segments encoded once more in the canonical URI).
fn sign(
    host: &str,
    path: &str,
    body: &[u8],
    key: &str,
    secret: &str,
    t: i64,
) -> Vec<(String, String)> {
    let date = amz_date(t);
    let hash = hex(&Sha256::digest(body));
    let canonical_uri: String = path
        .split('/')
        .map(|seg| {
            seg.bytes()
                .map(|b| match b {
                    b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                        char::from(b).to_string()
                    }
                    _ => format!("%{b:02X}"),
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("/");
    let canonical = format!(
        "POST\n{canonical_uri}\n\ncontent-type:application/json\nhost:{host}\nx-amz-content-sha256:{hash}\nx-amz-date:{date}\n\ncontent-type;host;x-amz-content-sha256;x-amz-date\n{hash}"
    );
    let scope = format!("{}/us-east-1/bedrock/aws4_request", &date[..8]);
    let to_sign = format!(
        "AWS4-HMAC-SHA256\n{date}\n{scope}\n{}",
        hex(&Sha256::digest(canonical.as_bytes()))
    );
    let mut k = hmac(format!("AWS4{secret}").as_bytes(), &date[..8]);
    for part in ["us-east-1", "bedrock", "aws4_request"] {
        k = hmac(&k, part);
    }
    let sig = hex(&hmac(&k, &to_sign));
    vec![
        ("x-amz-date".into(), date),
        ("x-amz-content-sha256".into(), hash),
        (
            "authorization".into(),
            format!(
                "AWS4-HMAC-SHA256 Credential={key}/{scope}, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date, Signature={sig}"
            ),
        ),
    ]
}

async fn post(url: &str, headers: &[(String, String)], body: &[u8]) -> Answer {
    let client = Client::builder(TokioExecutor::new()).build_http::<Full<bytes::Bytes>>();
    let mut req = http::Request::builder()
        .method("POST")
        .uri(url)
        .header("content-type", "application/json");
    for (k, v) in headers {
        req = req.header(k, v);
    }
    let resp = client
        .request(
            req.body(Full::new(bytes::Bytes::copy_from_slice(body)))
                .unwrap(),
        )
        .await
        .unwrap();
    let (parts, incoming) = resp.into_parts();
    let body = incoming.collect().await.unwrap().to_bytes().to_vec();
    Answer {
        status: parts.status.as_u16(),
        headers: parts.headers,
        body,
    }
}

/// Sends `body` to `{base}{path}` signed with the mock credential (or `secret`).
async fn signed(base: &str, path: &str, body: &Value, secret: &str, t: i64) -> Answer {
    let host = base
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap();
    let full_path = format!(
        "{}{path}",
        base.trim_start_matches("http://").trim_start_matches(host)
    );
    let bytes = body.to_string().into_bytes();
    let headers = sign(host, &full_path, &bytes, MOCK_ACCESS_KEY, secret, t);
    post(&format!("{base}{path}"), &headers, &bytes).await
}

fn claude_body() -> Value {
    json!({"anthropic_version": "bedrock-2023-05-31", "max_tokens": 64,
           "messages": [{"role": "user", "content": "hi"}]})
}

/// Decodes event-stream frames: each message's `:event-type` (or `:exception-type`) and
/// payload, checking both CRCs.
fn frames(mut b: &[u8]) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    while !b.is_empty() {
        let total = u32::from_be_bytes(b[0..4].try_into().unwrap()) as usize;
        let hlen = u32::from_be_bytes(b[4..8].try_into().unwrap()) as usize;
        assert_eq!(
            crc32fast::hash(&b[..8]),
            u32::from_be_bytes(b[8..12].try_into().unwrap())
        );
        assert_eq!(
            crc32fast::hash(&b[..total - 4]),
            u32::from_be_bytes(b[total - 4..total].try_into().unwrap())
        );
        let mut h = &b[12..12 + hlen];
        let mut kind = String::new();
        while !h.is_empty() {
            let n = h[0] as usize;
            let name = std::str::from_utf8(&h[1..1 + n]).unwrap();
            assert_eq!(h[1 + n], 7, "string headers only");
            let len = u16::from_be_bytes([h[2 + n], h[3 + n]]) as usize;
            let value = std::str::from_utf8(&h[4 + n..4 + n + len]).unwrap();
            if name == ":event-type" || name == ":exception-type" {
                kind = value.to_owned();
            }
            h = &h[4 + n + len..];
        }
        let payload: Value = serde_json::from_slice(&b[12 + hlen..total - 4]).unwrap();
        out.push((kind, payload));
        b = &b[total..];
    }
    out
}

#[tokio::test]
async fn a_signed_claude_invoke_is_answered_and_recorded() {
    let m = common::mock().await;
    let a = signed(
        &m.url(),
        &format!("{CLAUDE_PATH}/invoke"),
        &claude_body(),
        MOCK_SECRET,
        now(),
    )
    .await;
    assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
    let v = a.json();
    assert_eq!(v["type"], "message");
    assert_eq!(v["model"], "anthropic.claude-3-5-sonnet-20241022-v2:0");
    assert_eq!(v["usage"]["input_tokens"], 12);
    let seen = m.with_stats(|s| s.requests.last().unwrap().clone());
    assert_eq!(seen.dialect, "bedrock");
    assert_eq!(
        seen.model.as_deref(),
        Some("anthropic.claude-3-5-sonnet-20241022-v2:0")
    );
    assert!(!seen.stream);
    let cred = seen.credential.unwrap();
    assert_eq!(
        (cred.carrier.as_str(), cred.value.as_str()),
        ("sigv4", MOCK_ACCESS_KEY)
    );
}

#[tokio::test]
async fn tampered_stale_and_foreign_signatures_are_refused() {
    let m = common::mock().await;
    let path = format!("{CLAUDE_PATH}/invoke");
    let body = claude_body().to_string().into_bytes();
    let host = m.url().trim_start_matches("http://").to_owned();
    let headers = sign(&host, &path, &body, MOCK_ACCESS_KEY, MOCK_SECRET, now());
    let mut tampered = body.clone();
    tampered[body.len() - 2] = b' ';
    let a = post(&format!("{}{path}", m.url()), &headers, &tampered).await;
    assert_eq!(a.error(), (403, "InvalidSignatureException".into()));
    let a = signed(&m.url(), &path, &claude_body(), "wrong-secret", now()).await;
    assert_eq!(a.error(), (403, "InvalidSignatureException".into()));
    let a = signed(&m.url(), &path, &claude_body(), MOCK_SECRET, now() - 600).await;
    assert_eq!(a.error(), (403, "InvalidSignatureException".into()));
    let foreign = sign(&host, &path, &body, "AKIDSTRANGER", MOCK_SECRET, now());
    let a = post(&format!("{}{path}", m.url()), &foreign, &body).await;
    assert_eq!(a.error(), (403, "UnrecognizedClientException".into()));
    let a = post(&format!("{}{path}", m.url()), &[], &body).await;
    assert_eq!(
        a.error(),
        (403, "MissingAuthenticationTokenException".into())
    );
    let bearer = [(
        "authorization".to_owned(),
        "Bearer sk-not-bedrock".to_owned(),
    )];
    let a = post(&format!("{}{path}", m.url()), &bearer, &body).await;
    assert_eq!(a.error(), (403, "UnrecognizedClientException".into()));
}

#[tokio::test]
async fn claude_bodies_are_checked_as_bedrock_does() {
    let m = common::mock().await;
    let path = format!("{CLAUDE_PATH}/invoke");
    let mut with_model = claude_body();
    with_model["model"] = json!("claude-3-5-sonnet-20241022");
    let mut old_version = claude_body();
    old_version["anthropic_version"] = json!("2023-06-01");
    let mut no_max = claude_body();
    no_max.as_object_mut().unwrap().remove("max_tokens");
    for bad in [with_model, old_version, no_max, json!({"messages": []})] {
        let a = signed(&m.url(), &path, &bad, MOCK_SECRET, now()).await;
        assert_eq!(a.error(), (400, "ValidationException".into()), "{bad}");
    }
    let a = signed(
        &m.scenario_url("status=429"),
        &path,
        &claude_body(),
        MOCK_SECRET,
        now(),
    )
    .await;
    assert_eq!(a.error(), (429, "ThrottlingException".into()));
}

#[tokio::test]
async fn invoke_streams_carry_anthropic_events_with_usage() {
    let m = common::mock().await;
    let base = m.scenario_url("thinking=on,chunks=2,cache_read=30");
    let a = signed(
        &base,
        &format!("{CLAUDE_PATH}/invoke-with-response-stream"),
        &claude_body(),
        MOCK_SECRET,
        now(),
    )
    .await;
    assert_eq!(a.status, 200);
    assert_eq!(
        a.headers["content-type"],
        "application/vnd.amazon.eventstream"
    );
    let events: Vec<Value> = frames(&a.body)
        .into_iter()
        .map(|(kind, payload)| {
            assert_eq!(kind, "chunk");
            let raw = base64::engine::general_purpose::STANDARD
                .decode(payload["bytes"].as_str().unwrap())
                .unwrap();
            serde_json::from_slice(&raw).unwrap()
        })
        .collect();
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types.first(), Some(&"message_start"));
    assert_eq!(types.last(), Some(&"message_stop"));
    assert!(types.contains(&"content_block_delta"));
    assert_eq!(events[0]["message"]["usage"]["cache_read_input_tokens"], 30);
    let delta = events
        .iter()
        .find(|e| e["type"] == "message_delta")
        .unwrap();
    assert_eq!(delta["usage"]["output_tokens"], 2 + 8);
    assert!(events.last().unwrap()["amazon-bedrock-invocationMetrics"].is_object());
    assert!(m.with_stats(|s| s.requests.last().unwrap().stream));
}

#[tokio::test]
async fn converse_answers_with_an_api_key() {
    let m = common::mock().await;
    let body = json!({
        "messages": [{"role": "user", "content": [{"text": "weather?"}]}],
        "inferenceConfig": {"maxTokens": 100},
        "toolConfig": {"tools": [{"toolSpec": {"name": "weather", "inputSchema": {"json": {"type": "object"}}}}]},
    });
    let key = [(
        "authorization".to_owned(),
        "Bearer bedrock-api-key-test".to_owned(),
    )];
    let url = format!(
        "{}/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse",
        m.scenario_url("tool=weather,cache_read=5,cache_creation=3")
    );
    let a = post(&url, &key, body.to_string().as_bytes()).await;
    assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
    let v = a.json();
    assert_eq!(v["stopReason"], "tool_use");
    assert_eq!(
        v["output"]["message"]["content"][0]["toolUse"]["input"],
        json!({"city": "Paris"})
    );
    assert_eq!(
        v["usage"],
        json!({"inputTokens": 12, "outputTokens": 5, "totalTokens": 25,
               "cacheReadInputTokens": 5, "cacheWriteInputTokens": 3})
    );
    let seen = m.with_stats(|s| s.requests.last().unwrap().clone());
    assert_eq!(seen.credential.unwrap().carrier, "authorization");
    // Tool blocks without a toolConfig, and a conversation not starting with the user.
    for bad in [
        json!({"messages": [{"role": "user", "content": [{"toolResult": {"toolUseId": "t", "content": []}}]}]}),
        json!({"messages": [{"role": "assistant", "content": [{"text": "x"}]}]}),
    ] {
        let a = post(&url, &key, bad.to_string().as_bytes()).await;
        assert_eq!(a.error(), (400, "ValidationException".into()), "{bad}");
    }
}

#[tokio::test]
async fn converse_streams_send_the_event_sequence_with_cache_usage() {
    let m = common::mock().await;
    let body = json!({"messages": [{"role": "user", "content": [{"text": "hi"}]}]});
    let base = m.scenario_url("chunks=2,cache_read=7,cache_creation=2");
    let a = signed(
        &base,
        "/model/amazon.nova-pro-v1%3A0/converse-stream",
        &body,
        MOCK_SECRET,
        now(),
    )
    .await;
    assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
    let events = frames(&a.body);
    let kinds: Vec<&str> = events.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "messageStart",
            "contentBlockDelta",
            "contentBlockDelta",
            "contentBlockStop",
            "messageStop",
            "metadata"
        ]
    );
    assert_eq!(events[1].1["delta"]["text"], "word0 ");
    assert_eq!(events[4].1["stopReason"], "end_turn");
    assert_eq!(events[5].1["usage"]["cacheReadInputTokens"], 7);
    assert_eq!(events[5].1["usage"]["cacheWriteInputTokens"], 2);
    assert_eq!(events[5].1["usage"]["inputTokens"], 12);
}

#[tokio::test]
async fn foundation_models_are_listed_to_authenticated_callers() {
    let m = common::mock().await;
    let url = format!("{}/foundation-models", m.scenario_url("tag=list"));
    let anonymous = common::send("GET", &url, &[], None).await;
    assert_eq!(anonymous.status, 403, "{}", anonymous.body);
    let key = [("authorization", "Bearer ABSK-list-test")];
    let all = common::send("GET", &url, &key, None).await;
    assert_eq!(all.status, 200, "{}", all.body);
    let ids = |a: &common::Answer| -> Vec<String> {
        a.json()["modelSummaries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["modelId"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(ids(&all).len(), 4);
    let embedding = common::send(
        "GET",
        &format!("{url}?byOutputModality=EMBEDDING"),
        &key,
        None,
    )
    .await;
    assert_eq!(ids(&embedding), ["amazon.titan-embed-text-v2:0"]);
    let seen = m.with_stats(|s| s.requests.last().unwrap().clone());
    assert_eq!(
        (seen.dialect, seen.path.as_str()),
        ("bedrock", "/foundation-models")
    );
}
