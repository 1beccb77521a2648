//! The mock's Gemini API over a real socket: API key, request checks, JSON answers, SSE and
//! JSON-array streams, tool, thinking, cache usage, images, embeddings, errors.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Answer, PNG, mock, send};
use serde_json::{Value, json};

const KEY: [(&str, &str); 1] = [("x-goog-api-key", "AIza-test")];

fn hello() -> Value {
    json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]})
}

async fn generate(url: &str, method: &str, body: &Value, scenario: &str) -> Answer {
    let mut headers = KEY.to_vec();
    if !scenario.is_empty() {
        headers.push(("x-mock-scenario", scenario));
    }
    let url = format!("{url}/v1beta/models/gemini-2.5-flash:{method}");
    send("POST", &url, &headers, Some(body)).await
}

fn error_of(a: &Answer) -> (u16, String, String) {
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

#[tokio::test]
async fn wants_an_api_key_in_header_or_query() {
    let m = mock().await;
    let path = format!("{}/v1beta/models/gemini-2.5-flash:generateContent", m.url());
    let (status, kind, message) = error_of(&send("POST", &path, &[], Some(&hello())).await);
    assert_eq!((status, kind.as_str()), (403, "PERMISSION_DENIED"));
    assert!(message.contains("unregistered callers"));
    let empty = send("POST", &format!("{path}?key="), &[], Some(&hello())).await;
    assert_eq!(error_of(&empty).1, "INVALID_ARGUMENT");

    let by_query = send("POST", &format!("{path}?key=AIza-q"), &[], Some(&hello())).await;
    assert_eq!(by_query.status, 200, "{}", by_query.body);
    let seen = m.with_stats(|s| s.requests.last().unwrap().clone());
    let cred = seen.credential.unwrap();
    assert_eq!(
        (cred.carrier.as_str(), cred.value.as_str()),
        ("query:key", "AIza-q")
    );
    assert_eq!(
        (seen.dialect, seen.model.as_deref()),
        ("gemini", Some("gemini-2.5-flash"))
    );

    generate(&m.url(), "generateContent", &hello(), "").await;
    let cred = m
        .with_stats(|s| s.requests.last().unwrap().credential.clone())
        .unwrap();
    assert_eq!(
        (cred.carrier.as_str(), cred.value.as_str()),
        ("x-goog-api-key", "AIza-test")
    );
}

#[tokio::test]
async fn refuses_bodies_the_real_api_refuses() {
    let m = mock().await;
    let cases = [
        (json!({"contents": []}), "contents is not specified"),
        (
            json!({"contents": [{"role": "user", "parts": []}]}),
            "contents[0].parts: contents.parts must not be empty",
        ),
        (
            json!({"contents": [{"role": "assistant", "parts": [{"text": "x"}]}]}),
            "Please use a valid role: user, model.",
        ),
        (
            json!({"contents": [{"role": "user", "parts": [{"functionResponse": {"response": {"ok": true}}}]}]}),
            "contents[0].parts[0].function_response.name: Name cannot be empty",
        ),
        (
            json!({"contents": [{"parts": [{"text": "x"}]}], "tools": [{"functionDeclarations": [{
                "name": "get_weather",
                "parameters": {"type": "object", "additionalProperties": false,
                    "properties": {"city": {"type": "string"}}}}]}]}),
            "Unknown name \"additionalProperties\" at 'tools[0].function_declarations[0].parameters': Cannot find field.",
        ),
        (
            json!({"contents": [{"parts": [{"text": "x"}]}], "tools": [{"function_declarations": [{
                "name": "w", "parameters": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}}]}]}),
            "Unknown name \"$schema\"",
        ),
        (
            json!({"contents": [{"parts": [{"inlineData": {"mimeType": "image/png", "data": "not base64!"}}]}]}),
            "Base64 decoding failed",
        ),
    ];
    for (body, want) in cases {
        let (status, kind, message) =
            error_of(&generate(&m.url(), "generateContent", &body, "").await);
        assert_eq!((status, kind.as_str()), (400, "INVALID_ARGUMENT"), "{body}");
        assert!(message.contains(want), "{body}: {message}");
    }
}

#[tokio::test]
async fn answers_with_usage_metadata() {
    let m = mock().await;
    let a = generate(
        &m.url(),
        "generateContent",
        &hello(),
        "chunks=3,prompt_tokens=20,cache_read=30",
    )
    .await;
    assert_eq!(a.status, 200);
    let v = a.json();
    let candidate = &v["candidates"][0];
    assert_eq!(
        candidate["content"],
        json!({"role": "model", "parts": [{"text": "word0 word1 word2 "}]})
    );
    assert_eq!(
        (
            candidate["finishReason"].clone(),
            candidate["index"].clone()
        ),
        (json!("STOP"), json!(0))
    );
    assert_eq!(
        v["usageMetadata"],
        json!({"promptTokenCount": 50, "candidatesTokenCount": 3, "totalTokenCount": 53, "cachedContentTokenCount": 30})
    );
    assert_eq!(v["modelVersion"], "gemini-2.5-flash");
    assert!(v["responseId"].is_string());
    // The same call under `/v1`.
    let v1 = send(
        "POST",
        &format!("{}/v1/models/gemini-2.5-pro:generateContent", m.url()),
        &KEY,
        Some(&hello()),
    )
    .await;
    assert_eq!(v1.json()["modelVersion"], "gemini-2.5-pro");
}

#[tokio::test]
async fn streams_sse_with_alt_sse_and_an_array_without() {
    let m = mock().await;
    let url = format!(
        "{}/v1beta/models/gemini-2.5-flash:streamGenerateContent",
        m.url()
    );
    let sse = send("POST", &format!("{url}?alt=sse"), &KEY, Some(&hello())).await;
    assert_eq!(
        (sse.status, sse.content_type.as_str()),
        (200, "text/event-stream")
    );
    assert_eq!(sse.body.matches("\r\n\r\n").count(), 5 + 1);
    let chunks = sse.data();
    let texts: String = chunks
        .iter()
        .filter_map(|c| c["candidates"][0]["content"]["parts"][0]["text"].as_str())
        .collect();
    assert_eq!(texts, "word0 word1 word2 word3 word4 ");
    assert!(
        chunks[..5]
            .iter()
            .all(|c| c["candidates"][0].get("finishReason").is_none())
    );
    let last = chunks.last().unwrap();
    assert_eq!(last["candidates"][0]["finishReason"], "STOP");
    assert_eq!(last["usageMetadata"]["candidatesTokenCount"], 5);
    assert!(m.with_stats(|s| s.requests.last().unwrap().stream));

    let array = send("POST", &url, &KEY, Some(&hello())).await;
    assert_eq!(
        (array.status, array.content_type.as_str()),
        (200, "application/json")
    );
    let items = array.json();
    assert_eq!(items.as_array().unwrap().len(), 6);
    assert_eq!(items[5]["candidates"][0]["finishReason"], "STOP");
    assert_eq!(m.with_stats(|s| s.completed_streams), 2);
}

#[tokio::test]
async fn calls_a_tool_and_thinks() {
    let m = mock().await;
    let v = generate(
        &m.url(),
        "generateContent",
        &hello(),
        "tool=get_weather,thinking=on",
    )
    .await
    .json();
    let parts = &v["candidates"][0]["content"]["parts"];
    assert_eq!(parts[0]["thought"], true);
    assert!(parts[0]["text"].is_string());
    assert_eq!(
        parts[1],
        json!({"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}})
    );
    assert_eq!(v["usageMetadata"]["thoughtsTokenCount"], 8);
    assert_eq!(v["usageMetadata"]["totalTokenCount"], 12 + 5 + 8);

    let url = format!(
        "{}/v1beta/models/g:streamGenerateContent?alt=sse",
        m.scenario_url("tool=get_weather,thinking=on")
    );
    let chunks = send("POST", &url, &KEY, Some(&hello())).await.data();
    assert_eq!(chunks.len(), 3);
    assert_eq!(
        chunks[0]["candidates"][0]["content"]["parts"][0]["thought"],
        true
    );
    assert_eq!(
        chunks[1]["candidates"][0]["content"]["parts"][0]["functionCall"]["name"],
        "get_weather"
    );
}

#[tokio::test]
async fn counts_images_it_was_sent() {
    let m = mock().await;
    let body = json!({"contents": [{"role": "user", "parts": [
        {"text": "what are these?"},
        {"inlineData": {"mimeType": "image/png", "data": PNG}},
        {"fileData": {"mimeType": "image/jpeg", "fileUri": "https://generativelanguage.googleapis.com/v1beta/files/abc"}},
    ]}]});
    let v = generate(&m.url(), "generateContent", &body, "chunks=1")
        .await
        .json();
    assert_eq!(
        v["candidates"][0]["content"]["parts"][0]["text"],
        "images: 2 word0 "
    );
}

#[tokio::test]
async fn errors_use_google_shapes() {
    let m = mock().await;
    for (status, name) in [
        (429, "RESOURCE_EXHAUSTED"),
        (500, "INTERNAL"),
        (503, "UNAVAILABLE"),
        (400, "INVALID_ARGUMENT"),
    ] {
        let a = generate(
            &m.url(),
            "generateContent",
            &hello(),
            &format!("status={status}"),
        )
        .await;
        assert_eq!(error_of(&a).1, name);
    }
    let cut = send(
        "POST",
        &format!(
            "{}/v1beta/models/g:streamGenerateContent?alt=sse",
            m.scenario_url("cut_after=2,chunk_delay_ms=20")
        ),
        &KEY,
        Some(&hello()),
    )
    .await;
    assert!(cut.cut);
    assert_eq!(cut.data().len(), 2);
    let broken = generate(&m.url(), "generateContent", &hello(), "malformed=1").await;
    assert!(serde_json::from_str::<Value>(&broken.body).is_err());
}

#[tokio::test]
async fn embeds_and_lists_models() {
    let m = mock().await;
    let url = |method: &str| format!("{}/v1beta/models/gemini-embedding-001:{method}", m.url());
    let content = json!({"parts": [{"text": "hello"}]});
    let one = send(
        "POST",
        &url("embedContent"),
        &KEY,
        Some(&json!({"content": content})),
    )
    .await
    .json();
    let values = one["embedding"]["values"].as_array().unwrap();
    assert_eq!(values.len(), 8);
    let batch = json!({"requests": [
        {"model": "models/gemini-embedding-001", "content": content, "outputDimensionality": 4},
        {"model": "models/gemini-embedding-001", "content": content},
    ]});
    let many = send("POST", &url("batchEmbedContents"), &KEY, Some(&batch))
        .await
        .json();
    assert_eq!(many["embeddings"][0]["values"].as_array().unwrap().len(), 4);
    assert_eq!(
        many["embeddings"][1]["values"], one["embedding"]["values"],
        "deterministic"
    );

    let list = send("GET", &format!("{}/v1beta/models", m.url()), &KEY, None)
        .await
        .json();
    assert!(
        list["models"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["name"] == "models/gemini-2.5-flash")
    );
    let tokens = generate(&m.url(), "countTokens", &hello(), "prompt_tokens=9")
        .await
        .json();
    assert_eq!(tokens, json!({"totalTokens": 9}));
}
