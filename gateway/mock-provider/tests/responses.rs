//! The mock's OpenAI Responses API over a real socket: Bearer auth, request checks, the
//! Response object, function calls, reasoning, images, the streamed event sequence, errors,
//! cuts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Answer, PNG, mock, send};
use serde_json::{Value, json};

const AUTH: [(&str, &str); 1] = [("authorization", "Bearer sk-test")];

fn hello() -> Value {
    json!({"model": "gpt-test", "input": "hi"})
}

async fn responses(url: &str, body: &Value, scenario: &str) -> Answer {
    let mut headers = AUTH.to_vec();
    if !scenario.is_empty() {
        headers.push(("x-mock-scenario", scenario));
    }
    send("POST", &format!("{url}/v1/responses"), &headers, Some(body)).await
}

/// `(status, type, param, message)` of an OpenAI error.
fn error_of(a: &Answer) -> (u16, String, Value, String) {
    let e = &a.json()["error"];
    assert!(e.is_object(), "{}", a.body);
    (
        a.status,
        e["type"].as_str().unwrap_or("").to_owned(),
        e["param"].clone(),
        e["message"].as_str().unwrap_or("").to_owned(),
    )
}

#[tokio::test]
async fn refuses_missing_key_and_bad_bodies() {
    let m = mock().await;
    let url = format!("{}/v1/responses", m.url());
    let no_key = send("POST", &url, &[], Some(&hello())).await;
    assert_eq!(no_key.status, 401);
    assert!(error_of(&no_key).3.contains("didn't provide an API key"));
    let cases = [
        (
            json!({"input": "hi"}),
            "model",
            "Missing required parameter: 'model'.",
        ),
        (
            json!({"model": "m"}),
            "input",
            "Missing required parameter: 'input'.",
        ),
        (
            json!({"model": "m", "input": 7}),
            "input",
            "Invalid type for 'input': expected one of a string or array of input items, but got a number instead.",
        ),
        (
            json!({"model": "m", "input": "x", "tools": [{"type": "function", "function": {"name": "w"}}]}),
            "tools[0].name",
            "Missing required parameter: 'tools[0].name'.",
        ),
        (
            json!({"model": "m", "input": [{"role": "user", "content": [
                {"type": "input_image", "image_url": "data:image/jpeg;base64,".to_owned() + PNG}]}]}),
            "input[0].content[0].image_url",
            "You uploaded an unsupported image.",
        ),
        (
            json!({"model": "m", "input": [{"type": "function_call_output", "call_id": "call_x", "output": "ok"}]}),
            "input",
            "No tool call found for function call output with call_id call_x.",
        ),
    ];
    for (body, param, want) in cases {
        let (status, kind, got_param, message) = error_of(&responses(&m.url(), &body, "").await);
        assert_eq!(
            (status, kind.as_str(), got_param),
            (400, "invalid_request_error", json!(param)),
            "{body}"
        );
        assert!(message.starts_with(want), "{body}: {message}");
    }
}

#[tokio::test]
async fn answers_a_response_with_usage() {
    let m = mock().await;
    let mut body = hello();
    body["instructions"] = json!("be brief");
    let a = responses(&m.url(), &body, "chunks=3,prompt_tokens=20,cached_tokens=4").await;
    assert_eq!(a.status, 200);
    let v = a.json();
    assert!(v["id"].as_str().unwrap().starts_with("resp_"));
    assert_eq!(
        (&v["object"], &v["status"], &v["model"], &v["instructions"]),
        (
            &json!("response"),
            &json!("completed"),
            &json!("gpt-test"),
            &json!("be brief")
        )
    );
    assert_eq!(
        v["output"],
        json!([{"id": "msg_mock01", "type": "message", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": "word0 word1 word2 ", "annotations": [], "logprobs": []}]}])
    );
    assert_eq!(
        v["usage"],
        json!({"input_tokens": 20, "input_tokens_details": {"cached_tokens": 4, "cache_write_tokens": 0},
            "output_tokens": 3, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 23})
    );
    let seen = m.with_stats(|s| s.requests.last().unwrap().clone());
    assert_eq!(
        (seen.dialect, seen.path.as_str(), seen.model.as_deref()),
        ("openai", "/v1/responses", Some("gpt-test"))
    );
    let usage_off = responses(&m.url(), &hello(), "usage=off").await.json();
    assert_eq!(usage_off["usage"], Value::Null);
}

#[tokio::test]
async fn calls_a_function_reasons_and_counts_images() {
    let m = mock().await;
    let tools = json!([{"type": "function", "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]);
    let mut body = hello();
    body["tools"] = tools.clone();
    let v = responses(&m.url(), &body, "tool=get_weather,thinking=on")
        .await
        .json();
    assert_eq!(v["tools"], tools);
    let (reasoning, call) = (&v["output"][0], &v["output"][1]);
    assert_eq!(reasoning["type"], "reasoning");
    assert_eq!(reasoning["summary"][0]["type"], "summary_text");
    assert_eq!(
        (&call["type"], &call["name"], &call["call_id"]),
        (
            &json!("function_call"),
            &json!("get_weather"),
            &json!("call_mock01")
        )
    );
    let args: Value = serde_json::from_str(call["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, json!({"city": "Paris"}));
    assert_eq!(v["usage"]["output_tokens"], 5 + 8);
    assert_eq!(v["usage"]["output_tokens_details"]["reasoning_tokens"], 8);

    let second = json!({"model": "m", "tools": tools, "input": [
        {"role": "user", "content": [
            {"type": "input_text", "text": "weather here?"},
            {"type": "input_image", "image_url": format!("data:image/png;base64,{PNG}")},
            {"type": "input_image", "image_url": "https://example.com/cat.png"}]},
        call, {"type": "function_call_output", "call_id": "call_mock01", "output": "sunny"}]});
    let v = responses(&m.url(), &second, "chunks=1").await.json();
    assert_eq!(v["output"][0]["content"][0]["text"], "images: 2 word0 ");
}

#[tokio::test]
async fn streams_the_real_event_sequence() {
    let m = mock().await;
    let mut body = hello();
    body["stream"] = json!(true);
    let a = responses(&m.url(), &body, "chunks=2").await;
    assert_eq!((a.status, a.cut), (200, false));
    assert!(a.content_type.starts_with("text/event-stream"));
    assert_eq!(
        a.events(),
        [
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.content_part.added",
            "response.output_text.delta",
            "response.output_text.delta",
            "response.output_text.done",
            "response.content_part.done",
            "response.output_item.done",
            "response.completed",
        ]
    );
    let data = a.data();
    let types: Vec<&str> = data.iter().map(|d| d["type"].as_str().unwrap()).collect();
    assert_eq!(types, a.events());
    let numbers: Vec<u64> = data
        .iter()
        .map(|d| d["sequence_number"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, (0..10).collect::<Vec<u64>>());
    assert_eq!(data[0]["response"]["status"], "in_progress");
    assert_eq!(data[0]["response"]["usage"], Value::Null);
    assert_eq!(data[2]["item"]["content"], json!([]));
    assert_eq!(
        (&data[4]["delta"], &data[4]["item_id"]),
        (&json!("word0 "), &json!("msg_mock01"))
    );
    assert_eq!(data[6]["text"], "word0 word1 ");
    let done = &data[9]["response"];
    assert_eq!(done["status"], "completed");
    assert_eq!(done["output"][0]["content"][0]["text"], "word0 word1 ");
    assert_eq!(done["usage"]["total_tokens"], 12 + 2);
    assert_eq!(m.with_stats(|s| s.completed_streams), 1);
    assert!(m.with_stats(|s| s.requests.last().unwrap().stream));
}

#[tokio::test]
async fn streams_function_call_arguments() {
    let m = mock().await;
    let mut body = hello();
    body["stream"] = json!(true);
    let data = responses(&m.url(), &body, "tool=get_weather").await.data();
    let added = data
        .iter()
        .find(|d| d["type"] == "response.output_item.added")
        .unwrap();
    assert_eq!(
        (&added["item"]["type"], &added["item"]["arguments"]),
        (&json!("function_call"), &json!(""))
    );
    let partial: String = data
        .iter()
        .filter(|d| d["type"] == "response.function_call_arguments.delta")
        .map(|d| d["delta"].as_str().unwrap())
        .collect();
    let done = data
        .iter()
        .find(|d| d["type"] == "response.function_call_arguments.done")
        .unwrap();
    assert_eq!(done["arguments"].as_str(), Some(partial.as_str()));
    assert_eq!(
        serde_json::from_str::<Value>(&partial).unwrap(),
        json!({"city": "Paris"})
    );
    let last = data.last().unwrap();
    assert_eq!(last["type"], "response.completed");
    assert_eq!(last["response"]["output"][0]["name"], "get_weather");
}

#[tokio::test]
async fn errors_cuts_and_broken_bodies() {
    let m = mock().await;
    for status in [429, 500, 503] {
        let a = responses(&m.url(), &hello(), &format!("status={status}")).await;
        let v = a.json();
        assert_eq!(
            (a.status, v["error"]["code"].clone()),
            (status, json!(format!("mock_{status}")))
        );
    }
    let mut body = hello();
    body["stream"] = json!(true);
    let cut = responses(&m.url(), &body, "chunks=4,cut_after=2,chunk_delay_ms=20").await;
    assert!(cut.cut);
    let deltas = cut
        .events()
        .iter()
        .filter(|e| e.ends_with(".delta"))
        .count();
    assert_eq!(deltas, 2);
    assert!(!cut.events().contains(&"response.completed"));
    let broken = responses(&m.url(), &body, "malformed=1").await;
    let first = broken
        .body
        .lines()
        .nth(1)
        .unwrap()
        .strip_prefix("data: ")
        .unwrap();
    assert!(serde_json::from_str::<Value>(first).is_err());
    let plain = responses(&m.url(), &hello(), "malformed=1").await;
    assert!(serde_json::from_str::<Value>(&plain.body).is_err());
}
