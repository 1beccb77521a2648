//! The mock's Anthropic Messages API over a real socket: auth and version headers, request
//! checks, JSON and streamed answers, tool, thinking, cache usage, images, errors, cuts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Answer, PNG, mock, send};
use serde_json::{Value, json};

const AUTH: [(&str, &str); 3] = [
    ("x-api-key", "sk-ant-test"),
    ("anthropic-version", "2023-06-01"),
    ("anthropic-beta", "interleaved-thinking-2025-05-14"),
];

fn hello() -> Value {
    json!({"model": "claude-test", "max_tokens": 2048, "messages": [{"role": "user", "content": "hi"}]})
}

async fn messages(url: &str, body: &Value, scenario: &str) -> Answer {
    let mut headers = AUTH.to_vec();
    if !scenario.is_empty() {
        headers.push(("x-mock-scenario", scenario));
    }
    send("POST", &format!("{url}/v1/messages"), &headers, Some(body)).await
}

fn error_of(a: &Answer) -> (u16, String, String) {
    let v = a.json();
    assert_eq!(v["type"], "error", "{}", a.body);
    (
        a.status,
        v["error"]["type"].as_str().unwrap_or("").to_owned(),
        v["error"]["message"].as_str().unwrap_or("").to_owned(),
    )
}

#[tokio::test]
async fn refuses_missing_key_and_version() {
    let m = mock().await;
    let url = format!("{}/v1/messages", m.url());
    let no_key = send(
        "POST",
        &url,
        &[("anthropic-version", "2023-06-01")],
        Some(&hello()),
    )
    .await;
    assert_eq!(
        error_of(&no_key),
        (
            401,
            "authentication_error".into(),
            "x-api-key header is required".into()
        )
    );
    let no_version = send("POST", &url, &[("x-api-key", "k")], Some(&hello())).await;
    assert_eq!(
        error_of(&no_version),
        (
            400,
            "invalid_request_error".into(),
            "anthropic-version: header is required".into()
        )
    );
}

#[tokio::test]
async fn refuses_bodies_the_real_api_refuses() {
    let m = mock().await;
    let cases = [
        (
            json!({"max_tokens": 10, "messages": [{"role": "user", "content": "x"}]}),
            "model: Field required",
        ),
        (
            json!({"model": "c", "messages": [{"role": "user", "content": "x"}]}),
            "max_tokens: Field required",
        ),
        (
            json!({"model": "c", "max_tokens": 0, "messages": [{"role": "user", "content": "x"}]}),
            "max_tokens: Input should be greater than or equal to 1",
        ),
        (
            json!({"model": "c", "max_tokens": 10, "messages": []}),
            "messages: at least one message is required",
        ),
        (
            json!({"model": "c", "max_tokens": 10, "messages": [{"role": "assistant", "content": "x"}]}),
            "first message must use the \"user\" role",
        ),
        (
            json!({"model": "c", "max_tokens": 10, "messages": [
                {"role": "user", "content": "x"}, {"role": "user", "content": "y"}]}),
            "roles must alternate",
        ),
        (
            json!({"model": "c", "max_tokens": 10, "messages": [
                {"role": "user", "content": "x"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_a", "name": "w", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_b", "content": "ok"}]}]}),
            "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_b",
        ),
        (
            json!({"model": "c", "max_tokens": 4000, "thinking": {"type": "enabled", "budget_tokens": 512},
                "messages": [{"role": "user", "content": "x"}]}),
            "budget_tokens: Input should be greater than or equal to 1024",
        ),
        (
            json!({"model": "c", "max_tokens": 1024, "thinking": {"type": "enabled", "budget_tokens": 1024},
                "messages": [{"role": "user", "content": "x"}]}),
            "`max_tokens` must be greater than `thinking.budget_tokens`",
        ),
        (
            json!({"model": "c", "max_tokens": 4000, "temperature": 0.3,
                "thinking": {"type": "enabled", "budget_tokens": 1024},
                "messages": [{"role": "user", "content": "x"}]}),
            "`temperature` may only be set to 1 when thinking is enabled",
        ),
        (
            json!({"model": "c", "max_tokens": 10, "messages": [{"role": "user", "content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "%%%"}}]}]}),
            "messages.0.content.0.image.source.base64.data: Invalid base64 data",
        ),
    ];
    for (body, want) in cases {
        let a = messages(&m.url(), &body, "").await;
        let (status, kind, message) = error_of(&a);
        assert_eq!(
            (status, kind.as_str()),
            (400, "invalid_request_error"),
            "{body}"
        );
        assert!(message.contains(want), "{body}: {message}");
    }
}

#[tokio::test]
async fn answers_a_message_with_cache_usage() {
    let m = mock().await;
    let a = messages(
        &m.url(),
        &hello(),
        "chunks=3,prompt_tokens=20,cache_read=30,cache_creation=5",
    )
    .await;
    assert_eq!(a.status, 200);
    let v = a.json();
    assert!(v["id"].as_str().unwrap().starts_with("msg_mock"));
    assert_eq!(
        (v["type"].clone(), v["role"].clone(), v["model"].clone()),
        (json!("message"), json!("assistant"), json!("claude-test"))
    );
    assert_eq!(
        v["content"],
        json!([{"type": "text", "text": "word0 word1 word2 "}])
    );
    assert_eq!(
        (v["stop_reason"].clone(), v["stop_sequence"].clone()),
        (json!("end_turn"), Value::Null)
    );
    assert_eq!(
        v["usage"],
        json!({"input_tokens": 20, "output_tokens": 3, "cache_read_input_tokens": 30, "cache_creation_input_tokens": 5})
    );
    let seen = m.with_stats(|s| s.requests.last().unwrap().clone());
    assert_eq!(
        (seen.dialect, seen.model.as_deref()),
        ("anthropic", Some("claude-test"))
    );
    let cred = seen.credential.unwrap();
    assert_eq!(
        (cred.carrier.as_str(), cred.value.as_str()),
        ("x-api-key", "sk-ant-test")
    );
    assert_eq!(seen.anthropic_version.as_deref(), Some("2023-06-01"));
    assert_eq!(
        seen.anthropic_beta.as_deref(),
        Some("interleaved-thinking-2025-05-14")
    );
    let count = send(
        "POST",
        &format!(
            "{}/v1/messages/count_tokens",
            m.scenario_url("prompt_tokens=20")
        ),
        &AUTH,
        Some(&json!({"model": "c", "messages": [{"role": "user", "content": "x"}]})),
    )
    .await;
    assert_eq!(
        (count.status, count.json()),
        (200, json!({"input_tokens": 20}))
    );
}

#[tokio::test]
async fn streams_the_real_event_sequence() {
    let m = mock().await;
    let mut body = hello();
    body["stream"] = json!(true);
    let a = messages(&m.url(), &body, "chunks=2,cache_read=7").await;
    assert_eq!(
        (a.status, a.content_type.as_str(), a.cut),
        (200, "text/event-stream", false)
    );
    assert_eq!(
        a.events(),
        [
            "message_start",
            "content_block_start",
            "ping",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    let data = a.data();
    // Every data payload names its own event type.
    let types: Vec<&str> = data.iter().map(|d| d["type"].as_str().unwrap()).collect();
    assert_eq!(types, a.events());
    assert_eq!(data[0]["message"]["usage"]["cache_read_input_tokens"], 7);
    assert_eq!(
        data[1]["content_block"],
        json!({"type": "text", "text": ""})
    );
    assert_eq!(
        data[3]["delta"],
        json!({"type": "text_delta", "text": "word0 "})
    );
    assert_eq!(data[6]["delta"]["stop_reason"], "end_turn");
    assert_eq!(data[6]["usage"], json!({"output_tokens": 2}));
    assert_eq!(m.with_stats(|s| s.completed_streams), 1);
    assert!(m.with_stats(|s| s.requests.last().unwrap().stream));
}

#[tokio::test]
async fn calls_a_tool_in_json_and_stream() {
    let m = mock().await;
    let a = messages(&m.url(), &hello(), "tool=get_weather").await;
    let v = a.json();
    assert_eq!(v["stop_reason"], "tool_use");
    let block = &v["content"][0];
    assert_eq!(
        (block["type"].clone(), block["name"].clone()),
        (json!("tool_use"), json!("get_weather"))
    );
    assert!(block["id"].as_str().unwrap().starts_with("toolu_"));
    assert_eq!(block["input"], json!({"city": "Paris"}));

    let mut body = hello();
    body["stream"] = json!(true);
    let data = messages(&m.url(), &body, "tool=get_weather").await.data();
    assert_eq!(data[1]["content_block"]["type"], "tool_use");
    assert_eq!(data[1]["content_block"]["input"], json!({}));
    let partial: String = data
        .iter()
        .filter(|d| d["delta"]["type"] == "input_json_delta")
        .map(|d| d["delta"]["partial_json"].as_str().unwrap())
        .collect();
    assert_eq!(
        serde_json::from_str::<Value>(&partial).unwrap(),
        json!({"city": "Paris"})
    );
    let end = data.iter().find(|d| d["type"] == "message_delta").unwrap();
    assert_eq!(end["delta"]["stop_reason"], "tool_use");
}

#[tokio::test]
async fn thinks_before_answering() {
    let m = mock().await;
    let mut body = hello();
    body["thinking"] = json!({"type": "enabled", "budget_tokens": 1024});
    let v = messages(&m.url(), &body, "thinking=on,chunks=1")
        .await
        .json();
    assert_eq!(v["content"][0]["type"], "thinking");
    assert!(!v["content"][0]["thinking"].as_str().unwrap().is_empty());
    assert!(!v["content"][0]["signature"].as_str().unwrap().is_empty());
    assert_eq!(v["content"][1]["type"], "text");
    assert_eq!(v["usage"]["output_tokens"], 1 + 8);

    body["stream"] = json!(true);
    let a = messages(&m.url(), &body, "thinking=on,chunks=1").await;
    let deltas: Vec<(u64, String)> = a
        .data()
        .iter()
        .filter(|d| d["type"] == "content_block_delta")
        .map(|d| {
            (
                d["index"].as_u64().unwrap(),
                d["delta"]["type"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let kinds: Vec<(u64, &str)> = deltas.iter().map(|(i, k)| (*i, k.as_str())).collect();
    assert_eq!(
        kinds,
        [
            (0, "thinking_delta"),
            (0, "thinking_delta"),
            (0, "signature_delta"),
            (1, "text_delta")
        ]
    );
}

#[tokio::test]
async fn counts_images_it_was_sent() {
    let m = mock().await;
    let body = json!({"model": "c", "max_tokens": 100, "messages": [{"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
        {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.jpg"}},
        {"type": "text", "text": "what are these?"},
    ]}]});
    let v = messages(&m.url(), &body, "chunks=1").await.json();
    assert_eq!(v["content"][0]["text"], "images: 2 word0 ");
}

#[tokio::test]
async fn errors_use_anthropic_shapes() {
    let m = mock().await;
    for (status, kind) in [
        (429, "rate_limit_error"),
        (529, "overloaded_error"),
        (500, "api_error"),
        (503, "api_error"),
    ] {
        let a = messages(&m.url(), &hello(), &format!("status={status}")).await;
        let (got, got_kind, _) = error_of(&a);
        assert_eq!((got, got_kind.as_str()), (status, kind));
    }
}

#[tokio::test]
async fn cuts_and_breaks_streams() {
    let m = mock().await;
    let mut body = hello();
    body["stream"] = json!(true);
    // Paced so the frames before the cut are flushed before the reset.
    let a = messages(&m.url(), &body, "chunks=4,cut_after=2,chunk_delay_ms=20").await;
    assert!(a.cut);
    assert_eq!(
        a.events()
            .iter()
            .filter(|e| **e == "content_block_delta")
            .count(),
        2
    );
    assert!(!a.events().contains(&"message_stop"));
    // The server drops the stream just after the reset; give it a moment.
    for _ in 0..100 {
        if m.with_stats(|s| s.aborted_streams) == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(m.with_stats(|s| s.aborted_streams), 1);

    let broken = messages(&m.url(), &body, "malformed=1").await;
    let first = broken
        .body
        .lines()
        .nth(1)
        .unwrap()
        .strip_prefix("data: ")
        .unwrap();
    assert!(serde_json::from_str::<Value>(first).is_err());
    let plain = messages(&m.url(), &hello(), "malformed=1").await;
    assert!(serde_json::from_str::<Value>(&plain.body).is_err());
}
