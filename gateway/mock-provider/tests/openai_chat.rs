//! The mock's OpenAI Chat Completions over a real socket: tool calls (JSON and streamed
//! argument fragments), echoed images, and the tool-call pairing check.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Answer, PNG, mock, send};
use serde_json::{Value, json};

async fn chat(url: &str, body: &Value, scenario: &str) -> Answer {
    let headers = [
        ("authorization", "Bearer sk-test"),
        ("x-mock-scenario", scenario),
    ];
    send(
        "POST",
        &format!("{url}/v1/chat/completions"),
        &headers,
        Some(body),
    )
    .await
}

fn hello() -> Value {
    json!({"model": "gpt-test", "messages": [{"role": "user", "content": "hi"}]})
}

#[tokio::test]
async fn calls_a_tool_in_json_and_stream() {
    let m = mock().await;
    let v = chat(&m.url(), &hello(), "tool=get_weather").await.json();
    let choice = &v["choices"][0];
    assert_eq!(choice["finish_reason"], "tool_calls");
    assert_eq!(choice["message"]["content"], Value::Null);
    let call = &choice["message"]["tool_calls"][0];
    assert_eq!(
        (&call["id"], &call["type"], &call["function"]["name"]),
        (
            &json!("call_mock01"),
            &json!("function"),
            &json!("get_weather")
        )
    );
    let args: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, json!({"city": "Paris"}));

    let mut body = hello();
    body["stream"] = json!(true);
    let data: Vec<Value> = chat(&m.url(), &body, "tool=get_weather")
        .await
        .body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter(|d| *d != "[DONE]")
        .map(|d| serde_json::from_str(d).unwrap())
        .collect();
    let first = &data[0]["choices"][0]["delta"];
    assert_eq!(first["role"], "assistant");
    assert_eq!(first["tool_calls"][0]["function"]["name"], "get_weather");
    let partial: String = data
        .iter()
        .filter_map(|d| d["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"].as_str())
        .collect();
    assert_eq!(
        serde_json::from_str::<Value>(&partial).unwrap(),
        json!({"city": "Paris"})
    );
    assert_eq!(
        data.last().unwrap()["choices"][0]["finish_reason"],
        "tool_calls"
    );
}

#[tokio::test]
async fn echoes_images_and_pairs_tool_results() {
    let m = mock().await;
    let call = json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1",
        "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]});
    let body = json!({"model": "m", "messages": [
        {"role": "user", "content": [{"type": "text", "text": "hi"},
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PNG}")}}]},
        call, {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}]});
    let v = chat(&m.url(), &body, "chunks=1").await.json();
    assert_eq!(v["choices"][0]["message"]["content"], "images: 1 word0 ");

    let unanswered = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}, call]});
    let a = chat(&m.url(), &unanswered, "").await;
    let e = &a.json()["error"];
    assert_eq!(
        (a.status, &e["type"]),
        (400, &json!("invalid_request_error"))
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .ends_with("did not have response messages: call_1")
    );
}

#[tokio::test]
async fn reports_cached_tokens_in_each_providers_shape() {
    let m = mock().await;
    let usage = |a: &Answer| a.json()["usage"].clone();
    let a = chat(&m.url(), &hello(), "prompt_tokens=100,cached_tokens=64").await;
    assert_eq!(usage(&a)["prompt_tokens_details"]["cached_tokens"], 64);
    let a = chat(
        &m.url(),
        &hello(),
        "prompt_tokens=100,cached_tokens=64,cache_usage=deepseek",
    )
    .await;
    let u = usage(&a);
    assert_eq!(
        (
            &u["prompt_cache_hit_tokens"],
            &u["prompt_cache_miss_tokens"],
            &u["prompt_tokens"]
        ),
        (&json!(64), &json!(36), &json!(100))
    );
    assert!(u.get("prompt_tokens_details").is_none());
    let a = chat(
        &m.url(),
        &hello(),
        "prompt_tokens=100,cached_tokens=64,cache_usage=moonshot",
    )
    .await;
    assert_eq!(usage(&a)["cached_tokens"], 64);
    // Streams carry the same usage in their last chunk.
    let mut body = hello();
    body["stream"] = json!(true);
    body["stream_options"] = json!({"include_usage": true});
    let a = chat(
        &m.url(),
        &body,
        "prompt_tokens=100,cached_tokens=64,cache_usage=deepseek",
    )
    .await;
    let last: Value = a
        .body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter(|d| d.contains("\"usage\""))
        .map(|d| serde_json::from_str(d).unwrap())
        .next_back()
        .unwrap();
    assert_eq!(last["usage"]["prompt_cache_hit_tokens"], 64);
}
