//! The mock's Ollama API over a real socket: chat JSON and NDJSON streams (text, tool
//! calls, thinking, usage, cut), request checks, errors, embeddings and tags.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Answer, PNG, mock, send};
use serde_json::{Value, json};

async fn chat(url: &str, body: &Value, scenario: &str) -> Answer {
    let headers = [("x-mock-scenario", scenario)];
    send("POST", &format!("{url}/api/chat"), &headers, Some(body)).await
}

fn hello(stream: Option<bool>) -> Value {
    let mut v = json!({"model": "llama3.2", "messages": [{"role": "user", "content": "hi"}]});
    if let Some(s) = stream {
        v["stream"] = json!(s);
    }
    v
}

/// The NDJSON lines of a body.
fn lines(a: &Answer) -> Vec<Value> {
    a.body
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test]
async fn answers_json_with_usage_and_records_the_request() {
    let m = mock().await;
    let a = chat(&m.url(), &hello(Some(false)), "chunks=2,prompt_tokens=26").await;
    assert_eq!(a.status, 200, "{}", a.body);
    let v = a.json();
    assert_eq!(v["message"]["content"], "word0 word1 ");
    assert_eq!(
        (v["done"].clone(), v["done_reason"].clone()),
        (json!(true), json!("stop"))
    );
    assert_eq!(
        (v["prompt_eval_count"].clone(), v["eval_count"].clone()),
        (json!(26), json!(2))
    );
    let seen = m.with_stats(|s| s.requests.last().unwrap().clone());
    assert_eq!(
        (seen.dialect, seen.model.as_deref(), seen.stream),
        ("ollama", Some("llama3.2"), false)
    );
    let a = chat(&m.url(), &hello(Some(false)), "usage=off").await;
    assert!(a.json().get("eval_count").is_none());
}

#[tokio::test]
async fn streams_ndjson_by_default() {
    let m = mock().await;
    let a = chat(&m.url(), &hello(None), "chunks=3,thinking=on").await;
    assert_eq!(a.content_type, "application/x-ndjson");
    assert!(!a.body.contains("data:"));
    let l = lines(&a);
    assert_eq!(l.len(), 2 + 3 + 1);
    assert_eq!(l[0]["message"]["thinking"], "Let me think");
    assert_eq!(l[2]["message"]["content"], "word0 ");
    let last = l.last().unwrap();
    assert_eq!(
        (last["done"].clone(), last["eval_count"].clone()),
        (json!(true), json!(3 + 8))
    );
    assert!(l[..5].iter().all(|x| x["done"] == false));
    assert!(m.with_stats(|s| s.requests.last().unwrap().stream));

    let cut = chat(
        &m.url(),
        &hello(Some(true)),
        "chunks=4,cut_after=2,chunk_delay_ms=20",
    )
    .await;
    assert!(cut.cut);
    assert_eq!(lines(&cut).len(), 2);
}

#[tokio::test]
async fn calls_tools_whole() {
    let m = mock().await;
    let a = chat(&m.url(), &hello(Some(false)), "tool=get_weather").await;
    let call = &a.json()["message"]["tool_calls"][0]["function"];
    assert_eq!(
        (call["name"].clone(), call["arguments"].clone()),
        (json!("get_weather"), json!({"city": "Paris"}))
    );
    let s = chat(&m.url(), &hello(Some(true)), "tool=get_weather").await;
    let l = lines(&s);
    assert_eq!(
        l[0]["message"]["tool_calls"][0]["function"]["arguments"]["city"],
        "Paris"
    );
    assert_eq!(l.len(), 2);
}

#[tokio::test]
async fn checks_requests_like_ollama() {
    let m = mock().await;
    let no_model = chat(&m.url(), &json!({"messages": []}), "").await;
    assert_eq!(
        (no_model.status, no_model.json()["error"].clone()),
        (400, json!("model is required"))
    );
    let bad_image = json!({"model": "m", "stream": false, "messages": [{"role": "user", "content": "x", "images": ["data:image/png;base64,AAA"]}]});
    let a = chat(&m.url(), &bad_image, "").await;
    assert_eq!(a.status, 400);
    assert!(a.json()["error"].as_str().unwrap().contains("base64"));
    let good_image = json!({"model": "m", "stream": false, "messages": [{"role": "user", "content": "x", "images": [PNG]}]});
    let a = chat(&m.url(), &good_image, "chunks=1").await;
    assert_eq!(a.json()["message"]["content"], "images: 1 word0 ");
    let string_args = json!({"model": "m", "stream": false, "messages": [{"role": "assistant", "content": "",
        "tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]}]});
    assert_eq!(chat(&m.url(), &string_args, "").await.status, 400);
    let parts = json!({"model": "m", "stream": false, "messages": [{"role": "user", "content": [{"type": "text"}]}]});
    assert_eq!(chat(&m.url(), &parts, "").await.status, 400);
    let err = chat(&m.url(), &hello(Some(false)), "status=503").await;
    assert_eq!(
        (err.status, err.json()["error"].clone()),
        (503, json!("mock error 503"))
    );
}

#[tokio::test]
async fn embeds_and_lists_tags() {
    let m = mock().await;
    let body = json!({"model": "nomic-embed-text", "input": ["a", "b"], "dimensions": 4});
    let a = send("POST", &format!("{}/api/embed", m.url()), &[], Some(&body)).await;
    let v = a.json();
    assert_eq!(v["embeddings"].as_array().unwrap().len(), 2);
    assert_eq!(v["embeddings"][0].as_array().unwrap().len(), 4);
    assert_eq!(v["prompt_eval_count"], 12);
    let bad = send(
        "POST",
        &format!("{}/api/embed", m.url()),
        &[],
        Some(&json!({"model": "e", "input": [1]})),
    )
    .await;
    assert_eq!(bad.status, 400);
    let tags = send("GET", &format!("{}/api/tags", m.url()), &[], None).await;
    assert_eq!(tags.json()["models"][0]["name"], "llama3.2:latest");
    let seen = m.with_stats(|s| s.requests.last().unwrap().clone());
    assert_eq!(seen.dialect, "ollama");
}
