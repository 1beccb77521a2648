//! The mock's Cohere v2 API over a real socket: Bearer key, request checks, chat JSON and
//! SSE streams with Cohere's event names (text, thinking, tool calls, usage), rerank.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Answer, mock, send};
use serde_json::{Value, json};

async fn post(url: &str, path: &str, body: &Value, scenario: &str) -> Answer {
    let headers = [
        ("authorization", "Bearer co-test"),
        ("x-mock-scenario", scenario),
    ];
    send("POST", &format!("{url}{path}"), &headers, Some(body)).await
}

fn hello() -> Value {
    json!({"model": "command-a-03-2025", "messages": [{"role": "user", "content": "hi"}]})
}

#[tokio::test]
async fn wants_a_bearer_key() {
    let m = mock().await;
    let url = format!("{}/v2/chat", m.url());
    let none = send("POST", &url, &[], Some(&hello())).await;
    assert_eq!(
        (none.status, none.json()["message"].clone()),
        (401, json!("no api key supplied"))
    );
    let bad = send(
        "POST",
        &url,
        &[("authorization", "co-test")],
        Some(&hello()),
    )
    .await;
    assert_eq!(bad.status, 401);
    let ok = post(&m.url(), "/v2/chat", &hello(), "").await;
    assert_eq!(ok.status, 200, "{}", ok.body);
    let seen = m.with_stats(|s| s.requests.last().unwrap().clone());
    assert_eq!(
        (seen.dialect, seen.model.as_deref()),
        ("cohere", Some("command-a-03-2025"))
    );
    assert_eq!(seen.credential.unwrap().value, "Bearer co-test");
}

#[tokio::test]
async fn answers_json_with_billed_usage() {
    let m = mock().await;
    let v = post(&m.url(), "/v2/chat", &hello(), "chunks=2,prompt_tokens=30")
        .await
        .json();
    assert_eq!(v["finish_reason"], "COMPLETE");
    assert_eq!(
        v["message"]["content"][0],
        json!({"type": "text", "text": "word0 word1 "})
    );
    assert_eq!(
        v["usage"]["billed_units"],
        json!({"input_tokens": 30, "output_tokens": 2})
    );
    assert_eq!(v["usage"]["tokens"]["input_tokens"], 130);
    let v = post(&m.url(), "/v2/chat", &hello(), "tool=get_weather")
        .await
        .json();
    assert_eq!(v["finish_reason"], "TOOL_CALL");
    let call = &v["message"]["tool_calls"][0];
    assert_eq!(call["function"]["name"], "get_weather");
    let args: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, json!({"city": "Paris"}));
    let err = post(&m.url(), "/v2/chat", &hello(), "status=429").await;
    assert_eq!(
        (err.status, err.json()["message"].clone()),
        (429, json!("mock error 429"))
    );
}

#[tokio::test]
async fn streams_cohere_events() {
    let m = mock().await;
    let mut body = hello();
    body["stream"] = json!(true);
    let a = post(&m.url(), "/v2/chat", &body, "chunks=2,thinking=on").await;
    assert_eq!(a.content_type, "text/event-stream");
    assert_eq!(
        a.events(),
        [
            "message-start",
            "content-start",
            "content-delta",
            "content-delta",
            "content-end",
            "content-start",
            "content-delta",
            "content-delta",
            "content-end",
            "message-end"
        ]
    );
    let data = a.data();
    assert!(data.iter().zip(a.events()).all(|(d, e)| d["type"] == e));
    assert_eq!(
        data[2]["delta"]["message"]["content"]["thinking"],
        "Let me think"
    );
    assert_eq!(data[6]["delta"]["message"]["content"]["text"], "word0 ");
    assert_eq!(
        data[9]["delta"]["usage"]["billed_units"]["output_tokens"],
        10
    );

    let t = post(&m.url(), "/v2/chat", &body, "tool=get_weather").await;
    assert_eq!(
        t.events(),
        [
            "message-start",
            "tool-plan-delta",
            "tool-call-start",
            "tool-call-delta",
            "tool-call-delta",
            "tool-call-delta",
            "tool-call-end",
            "message-end"
        ]
    );
    let args: String = t.data()[3..6]
        .iter()
        .map(|d| {
            d["delta"]["message"]["tool_calls"]["function"]["arguments"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        serde_json::from_str::<Value>(&args).unwrap(),
        json!({"city": "Paris"})
    );
    assert_eq!(t.data()[7]["delta"]["finish_reason"], "TOOL_CALL");
    let cut = post(
        &m.url(),
        "/v2/chat",
        &body,
        "chunks=3,cut_after=1,chunk_delay_ms=20",
    )
    .await;
    assert!(cut.cut);
    let deltas = cut
        .events()
        .iter()
        .filter(|e| **e == "content-delta")
        .count();
    assert_eq!(deltas, 1);
}

#[tokio::test]
async fn checks_chat_bodies() {
    let m = mock().await;
    let no_model = post(
        &m.url(),
        "/v2/chat",
        &json!({"messages": [{"role": "user", "content": "x"}]}),
        "",
    )
    .await;
    assert_eq!(no_model.status, 400);
    let empty = post(
        &m.url(),
        "/v2/chat",
        &json!({"model": "c", "messages": []}),
        "",
    )
    .await;
    assert_eq!(empty.status, 400);
    let orphan = json!({"model": "c", "messages": [{"role": "user", "content": "x"},
        {"role": "tool", "tool_call_id": "nope", "content": "18C"}]});
    assert!(
        post(&m.url(), "/v2/chat", &orphan, "").await.json()["message"]
            .as_str()
            .unwrap()
            .contains("tool_call_id")
    );
    let paired = json!({"model": "c", "messages": [{"role": "user", "content": "x"},
        {"role": "assistant", "tool_calls": [{"id": "get_weather_1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "get_weather_1", "content": "18C"}]});
    assert_eq!(post(&m.url(), "/v2/chat", &paired, "").await.status, 200);
    let object_args = json!({"model": "c", "messages": [{"role": "assistant", "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "f", "arguments": {}}}]}]});
    assert_eq!(
        post(&m.url(), "/v2/chat", &object_args, "").await.status,
        400
    );
}

#[tokio::test]
async fn reranks() {
    let m = mock().await;
    let body =
        json!({"model": "rerank-v3.5", "query": "q", "documents": ["a", "b", "c"], "top_n": 2});
    let v = post(&m.url(), "/v2/rerank", &body, "").await.json();
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["index"], 2);
    assert!(results[0]["relevance_score"].as_f64() > results[1]["relevance_score"].as_f64());
    assert_eq!(v["meta"]["billed_units"]["search_units"], 1);
    let objects = json!({"model": "rerank-v3.5", "query": "q", "documents": [{"text": "a"}]});
    assert_eq!(post(&m.url(), "/v2/rerank", &objects, "").await.status, 400);
    let no_query = json!({"model": "rerank-v3.5", "documents": ["a"]});
    assert_eq!(
        post(&m.url(), "/v2/rerank", &no_query, "").await.status,
        400
    );
}
