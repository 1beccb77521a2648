//! Every inbound dialect against every provider protocol over real sockets, against the mock:
//! what reaches the provider (auth header, version header, required fields), what the client
//! gets (its own shapes, errors included), billing from each provider's usage (Claude cache
//! reads and writes), failover across protocols, streams converted event by event.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use bytes::Bytes;
use common::*;
use serde_json::{Value, json};

async fn mock() -> mock_provider::MockHandle {
    mock_provider::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap()
}

/// A channel of `kind` (1 OpenAI, 14 Anthropic, 24 Gemini).
fn typed(id: i64, kind: i64, base: &str, models: &[&str], priority: i64) -> Value {
    let mut c = channel(id, base, models, priority, 1);
    c["type"] = json!(kind);
    c
}

fn priced(channels: Vec<Value>, models: &[&str]) -> Value {
    let mut snap = snapshot(channels);
    for m in models {
        snap["pricing"]["model_ratio"][*m] = json!(1.0);
        snap["pricing"]["completion_ratio"][*m] = json!(2.0);
    }
    snap
}

async fn send_as(gw: &Gw, path: &str, headers: &[(&str, &str)], body: &Value) -> Reply {
    let mut all = vec![("content-type", "application/json")];
    all.extend_from_slice(headers);
    send("POST", &gw.url(path), &all, Bytes::from(body.to_string())).await
}

async fn claude(gw: &Gw, body: &Value) -> Reply {
    send_as(
        gw,
        "/v1/messages",
        &[
            ("x-api-key", "sk-alice"),
            ("anthropic-version", "2023-06-01"),
        ],
        body,
    )
    .await
}

async fn gemini(gw: &Gw, model: &str, stream: bool, body: &Value) -> Reply {
    let path = if stream {
        format!("/v1beta/models/{model}:streamGenerateContent?alt=sse")
    } else {
        format!("/v1beta/models/{model}:generateContent")
    };
    send_as(gw, &path, &[("x-goog-api-key", "sk-alice")], body).await
}

fn claude_body(model: &str, stream: bool) -> Value {
    json!({"model": model, "max_tokens": 64, "stream": stream,
           "messages": [{"role": "user", "content": "hello there"}]})
}

fn gemini_body() -> Value {
    json!({"contents": [{"role": "user", "parts": [{"text": "hello there"}]}]})
}

fn other(r: &gateway::usage::UsageRecord) -> Value {
    serde_json::from_str(&r.other).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_client_gets_its_own_shape_from_each_provider() {
    let m = mock().await;
    let snap = priced(
        vec![
            typed(1, 1, &m.url(), &["m-openai"], 0),
            typed(2, 14, &m.url(), &["m-claude"], 0),
            typed(3, 24, &m.url(), &["m-gemini"], 0),
        ],
        &["m-openai", "m-claude", "m-gemini"],
    );
    let gw = Gw::start(snap).await;
    for model in ["m-openai", "m-claude", "m-gemini"] {
        let r = claude(&gw, &claude_body(model, false)).await;
        assert_eq!(r.status, 200, "{model}: {}", r.text());
        let v = r.json();
        assert_eq!(v["type"], "message", "{v}");
        assert_eq!(v["model"], model);
        assert_eq!(v["content"][0]["type"], "text");
        assert!(v["usage"]["output_tokens"].as_i64().unwrap() > 0);

        let r = gemini(&gw, model, false, &gemini_body()).await;
        assert_eq!(r.status, 200, "{model}: {}", r.text());
        let v = r.json();
        assert!(
            v["candidates"][0]["content"]["parts"][0]["text"].is_string(),
            "{v}"
        );
        assert!(v["usageMetadata"]["totalTokenCount"].as_i64().unwrap() > 0);

        let r = gw.chat("alice", chat_body(model, false)).await;
        assert_eq!(r.status, 200, "{model}: {}", r.text());
        assert_eq!(r.json()["object"], "chat.completion");

        let r = gw
            .post(
                "/v1/responses",
                "alice",
                json!({"model": model, "input": "hi"}),
            )
            .await;
        if model == "m-openai" {
            // Passed through to the OpenAI channel as it is.
            assert_eq!(r.status, 200, "{}", r.text());
            assert_eq!(r.json()["object"], "response");
        } else {
            assert_eq!(r.status, 200, "{model}: {}", r.text());
            let v = r.json();
            assert_eq!(v["object"], "response");
            assert_eq!(v["status"], "completed");
            assert_eq!(v["output"][0]["content"][0]["type"], "output_text");
        }
    }
    // What reached the providers: each protocol's own key header and required fields.
    m.with_stats(|s| {
        let anthropic: Vec<_> = s
            .requests
            .iter()
            .filter(|r| r.dialect == "anthropic")
            .collect();
        let google: Vec<_> = s
            .requests
            .iter()
            .filter(|r| r.dialect == "gemini")
            .collect();
        assert!(!anthropic.is_empty() && !google.is_empty());
        for r in anthropic {
            let c = r.credential.as_ref().unwrap();
            assert_eq!(
                (c.carrier.as_str(), c.value.as_str()),
                ("x-api-key", "sk-upstream-2")
            );
            assert_eq!(r.anthropic_version.as_deref(), Some("2023-06-01"));
            assert!(r.authorization.is_none());
        }
        for r in google {
            let c = r.credential.as_ref().unwrap();
            assert_eq!(
                (c.carrier.as_str(), c.value.as_str()),
                ("x-goog-api-key", "sk-upstream-3")
            );
            assert_eq!(r.model.as_deref(), Some("m-gemini"));
        }
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_usage_is_billed_with_cache_reads_and_writes() {
    let m = mock().await;
    let base = m.scenario_url("prompt_tokens=100,cache_read=30,cache_creation=10");
    let mut snap = priced(vec![typed(1, 14, &base, &["c"], 0)], &["c"]);
    snap["pricing"]["cache_ratio"] = json!({"c": 0.1});
    let gw = Gw::start(snap).await;
    for (stream, via_openai) in [(false, false), (true, false), (false, true), (true, true)] {
        let r = if via_openai {
            gw.chat("alice", chat_body("c", stream)).await
        } else {
            claude(&gw, &claude_body("c", stream)).await
        };
        assert_eq!(r.status, 200, "{}", r.text());
        let rec = gw.record(&r.request_id()).await;
        // Prompt = uncached 100 + read 30 + written 10.
        assert_eq!(
            rec.prompt_tokens, 140,
            "stream={stream} openai={via_openai}"
        );
        let o = other(&rec);
        assert_eq!(o["cache_tokens"], 30);
        assert_eq!(o["cache_creation_tokens"], 10);
        assert_eq!(o["cache_creation_ratio"], 1.25);
        // (100 + 30×0.1 + 10×1.25 + completion×2) × 1
        let expected = (100.0 + 3.0 + 12.5 + rec.completion_tokens as f64 * 2.0).round() as i64;
        assert_eq!(rec.quota, expected, "{o}");
        assert!(!o["local_count_tokens"].as_bool().unwrap_or(false));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_come_in_the_clients_dialect() {
    let m = mock().await;
    let gw = Gw::start(priced(vec![typed(1, 14, &m.url(), &["c"], 0)], &["c"])).await;
    // Claude: bad key, missing max_tokens.
    let r = send_as(
        &gw,
        "/v1/messages",
        &[
            ("x-api-key", "sk-nobody"),
            ("anthropic-version", "2023-06-01"),
        ],
        &claude_body("c", false),
    )
    .await;
    assert_eq!(r.status, 401);
    let v = r.json();
    assert_eq!(v["type"], "error", "{v}");
    assert_eq!(v["error"]["type"], "authentication_error");
    let r = claude(
        &gw,
        &json!({"model": "c", "messages": [{"role": "user", "content": "x"}]}),
    )
    .await;
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json()["error"]["type"],
        "invalid_request_error",
        "{}",
        r.text()
    );
    assert!(r.text().contains("max_tokens"));
    // The newest Anthropic SDK sends the key as a Bearer token.
    let r = send_as(
        &gw,
        "/v1/messages",
        &[
            ("authorization", "Bearer sk-alice"),
            ("anthropic-version", "2023-06-01"),
        ],
        &claude_body("c", false),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    // Gemini: no key, bad body, unknown model.
    let r = send_as(&gw, "/v1beta/models/c:generateContent", &[], &gemini_body()).await;
    assert_eq!(r.status, 401);
    assert!(r.json()["error"]["status"].is_string(), "{}", r.text());
    let r = gemini(&gw, "c", false, &json!({"contents": []})).await;
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json()["error"]["status"],
        "INVALID_ARGUMENT",
        "{}",
        r.text()
    );
    let r = gemini(&gw, "nope", false, &gemini_body()).await;
    assert_eq!(r.json()["error"]["code"], r.status, "{}", r.text());
    // An upstream error reaches a Claude client as a Claude error.
    let bad = Gw::start(priced(
        vec![typed(1, 24, &m.scenario_url("status=429"), &["c"], 0)],
        &["c"],
    ))
    .await;
    let r = claude(&bad, &claude_body("c", false)).await;
    assert_eq!(r.status, 429);
    assert_eq!(
        r.json()["error"]["type"],
        "rate_limit_error",
        "{}",
        r.text()
    );
    // Responses errors keep OpenAI's shape.
    let r = gw
        .post("/v1/responses", "alice", json!({"input": "hi"}))
        .await;
    assert_eq!(r.status, 400);
    assert!(r.json()["error"]["message"].is_string());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failover_crosses_protocols_before_the_first_byte() {
    let m = mock().await;
    let snap = priced(
        vec![
            typed(1, 14, &m.scenario_url("tag=claude,status=500"), &["x"], 10),
            typed(2, 24, &m.scenario_url("tag=gemini"), &["x"], 0),
        ],
        &["x"],
    );
    let gw = Gw::start(snap).await;
    let r = claude(&gw, &claude_body("x", true)).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let text = r.text();
    assert!(text.starts_with("event: message_start"), "{text}");
    assert!(text.contains("event: message_stop"), "{text}");
    let rec = gw.record(&r.request_id()).await;
    assert_eq!(rec.channel, 2);
    assert_eq!(other(&rec)["admin_info"]["use_channel"], json!([1, 2]));
    // The log row says which conversion answered.
    assert_eq!(
        other(&rec)["conversion"],
        json!({"client": "claude", "provider": "gemini"})
    );
    assert_eq!((m.calls("claude"), m.calls("gemini")), (1, 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_convert_event_by_event_with_tools_and_thinking() {
    let m = mock().await;
    let snap = priced(
        vec![
            typed(
                1,
                14,
                &m.scenario_url("tool=get_weather"),
                &["claude-tool"],
                0,
            ),
            typed(2, 24, &m.scenario_url("thinking=on"), &["gemini-think"], 0),
        ],
        &["claude-tool", "gemini-think"],
    );
    let gw = Gw::start(snap).await;
    // OpenAI client, Anthropic provider: streamed tool-call arguments.
    let mut body = chat_body("claude-tool", true);
    body["tools"] = json!([{"type": "function", "function": {"name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]);
    let r = gw.chat("alice", body).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let chunks: Vec<Value> = sse_data(&r.text())
        .iter()
        .filter(|d| *d != "[DONE]")
        .map(|d| serde_json::from_str(d).unwrap())
        .collect();
    let args: String = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"].as_str())
        .collect();
    assert_eq!(
        serde_json::from_str::<Value>(&args).unwrap(),
        json!({"city": "Paris"})
    );
    assert!(
        chunks
            .iter()
            .any(|c| c["choices"][0]["finish_reason"] == "tool_calls")
    );
    assert!(r.text().ends_with("data: [DONE]\n\n"));
    // Gemini client, Gemini provider with thoughts: passed through, reasoning billed.
    let r = gemini(&gw, "gemini-think", true, &gemini_body()).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let rec = gw.record(&r.request_id()).await;
    assert!(
        rec.completion_tokens >= 8,
        "thought tokens count as output: {rec:?}"
    );
    assert!(other(&rec).get("conversion").is_none(), "same dialect");
    // Claude client, Gemini provider with thoughts: thinking blocks.
    let r = claude(&gw, &claude_body("gemini-think", true)).await;
    let text = r.text();
    assert!(text.contains("\"thinking_delta\""), "{text}");
    assert!(text.contains("\"text_delta\""), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn counting_and_model_lists_answer_in_each_shape() {
    let m = mock().await;
    let gw = Gw::start(priced(
        vec![
            typed(1, 14, &m.url(), &["c1"], 0),
            typed(2, 24, &m.url(), &["g1"], 0),
        ],
        &["c1", "g1"],
    ))
    .await;
    let r = send_as(
        &gw,
        "/v1/messages/count_tokens",
        &[
            ("x-api-key", "sk-alice"),
            ("anthropic-version", "2023-06-01"),
        ],
        &json!({"model": "c1", "messages": [{"role": "user", "content": "hello there"}]}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.json()["input_tokens"].as_i64().unwrap() > 0);
    assert_eq!(m.calls("default"), 0, "counted locally, nothing relayed");
    let list = send(
        "GET",
        &gw.url("/v1/models"),
        &[
            ("x-api-key", "sk-alice"),
            ("anthropic-version", "2023-06-01"),
        ],
        Bytes::new(),
    )
    .await;
    let v = list.json();
    assert_eq!(v["data"][0]["type"], "model", "{v}");
    assert_eq!(v["has_more"], false);
    let list = send(
        "GET",
        &gw.url("/v1beta/models"),
        &[("x-goog-api-key", "sk-alice")],
        Bytes::new(),
    )
    .await;
    let v = list.json();
    let names: Vec<&str> = v["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["models/c1", "models/g1"]);
    let one = send(
        "GET",
        &gw.url("/v1beta/models/g1"),
        &[("x-goog-api-key", "sk-alice")],
        Bytes::new(),
    )
    .await;
    assert_eq!(one.json()["name"], "models/g1", "{}", one.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_embeddings_reach_gemini_and_openai_channels() {
    let m = mock().await;
    let gw = Gw::start(priced(
        vec![
            typed(1, 24, &m.url(), &["ge"], 0),
            typed(2, 1, &m.url(), &["oe"], 0),
        ],
        &["ge", "oe"],
    ))
    .await;
    for model in ["ge", "oe"] {
        let r = send_as(
            &gw,
            &format!("/v1beta/models/{model}:embedContent"),
            &[("x-goog-api-key", "sk-alice")],
            &json!({"content": {"parts": [{"text": "hello"}]}}),
        )
        .await;
        assert_eq!(r.status, 200, "{model}: {}", r.text());
        assert!(r.json()["embedding"]["values"].as_array().unwrap().len() > 1);
        let r = send_as(
            &gw,
            &format!("/v1beta/models/{model}:batchEmbedContents"),
            &[("x-goog-api-key", "sk-alice")],
            &json!({"requests": [
                {"model": format!("models/{model}"), "content": {"parts": [{"text": "a"}]}},
                {"model": format!("models/{model}"), "content": {"parts": [{"text": "b"}]}}
            ]}),
        )
        .await;
        assert_eq!(r.status, 200, "{model}: {}", r.text());
        assert_eq!(r.json()["embeddings"].as_array().unwrap().len(), 2);
    }
    // A Claude channel cannot embed: the request fails over or is refused, never mis-sent.
    let only_claude = Gw::start(priced(vec![typed(1, 14, &m.url(), &["ce"], 0)], &["ce"])).await;
    let r = send_as(
        &only_claude,
        "/v1beta/models/ce:embedContent",
        &[("x-goog-api-key", "sk-alice")],
        &json!({"content": {"parts": [{"text": "hello"}]}}),
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(
        r.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("cannot serve")
    );
}
