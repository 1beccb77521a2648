//! Ollama (type 4, native `/api/chat` with NDJSON streams and `/api/embed`) and Cohere (type
//! 34, v2 chat) end to end over real sockets, against the mock provider's stand-ins.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use serde_json::{Value, json};

async fn mock() -> mock_provider::MockHandle {
    mock_provider::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap()
}

fn typed(id: i64, kind: i64, base_url: &str, models: &[&str]) -> Value {
    let mut c = channel(id, base_url, models, 0, 1);
    c["type"] = json!(kind);
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ollama_answers_chat_streams_and_embeddings_natively() {
    let m = mock().await;
    let mut keyless = typed(1, 4, &m.url(), &["llama3.2", "nomic-embed-text"]);
    keyless["key"] = json!("");
    let gw = Gw::start(priced(vec![keyless])).await;

    let reply = gw.chat("alice", chat_body("llama3.2", false)).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let v = reply.json();
    assert_eq!(v["model"], "llama3.2");
    assert!(
        v["choices"][0]["message"]["content"]
            .as_str()
            .unwrap()
            .starts_with("word0")
    );
    assert!(v["usage"]["prompt_tokens"].as_i64().unwrap() > 0);
    let seen = last_seen(&m);
    assert_eq!((seen.dialect, seen.path.as_str()), ("ollama", "/api/chat"));
    assert!(
        seen.authorization.is_none(),
        "a keyless channel sends no key"
    );

    // NDJSON lines become the client's SSE chunks.
    let reply = gw.chat("alice", chat_body("llama3.2", true)).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(sse_content(&reply.text()), "word0 word1 word2 word3 word4 ");
    assert!(reply.text().trim_end().ends_with("data: [DONE]"));

    // A Claude client streams from Ollama too.
    let claude = json!({"model": "llama3.2", "max_tokens": 50, "stream": true,
                        "messages": [{"role": "user", "content": "hello"}]});
    let reply = gw.post("/v1/messages", "alice", claude).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert!(reply.text().contains("event: message_stop"));

    let reply = gw
        .post(
            "/v1/embeddings",
            "alice",
            json!({"model": "nomic-embed-text", "input": ["a", "b"]}),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json()["data"].as_array().unwrap().len(), 2);
    assert_eq!(last_seen(&m).path, "/api/embed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cohere_answers_chat_and_streams_through_v2() {
    let m = mock().await;
    let gw = Gw::start(priced(vec![typed(1, 34, &m.url(), &["command-r-plus"])])).await;
    for stream in [false, true] {
        let reply = gw.chat("alice", chat_body("command-r-plus", stream)).await;
        assert_eq!(reply.status, 200, "{}", reply.text());
        let text = if stream {
            sse_content(&reply.text())
        } else {
            reply.json()["choices"][0]["message"]["content"]
                .as_str()
                .unwrap()
                .to_owned()
        };
        assert!(text.starts_with("word0"), "{text}");
        let seen = last_seen(&m);
        assert_eq!((seen.dialect, seen.path.as_str()), ("cohere", "/v2/chat"));
        assert_eq!(seen.authorization.as_deref(), Some("Bearer sk-upstream-1"));
    }
    // Tool calls come back in the client's shape.
    let m2 = mock().await;
    let gw = Gw::start(priced(vec![typed(
        1,
        34,
        &m2.scenario_url("tool=get_weather"),
        &["command-r-plus"],
    )]))
    .await;
    let reply = gw.chat("alice", chat_body("command-r-plus", false)).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let call = &reply.json()["choices"][0]["message"]["tool_calls"][0];
    assert_eq!(call["function"]["name"], "get_weather");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cohere_reranks_in_the_jina_shape() {
    let m = mock().await;
    let gw = Gw::start(priced(vec![typed(1, 34, &m.url(), &["rerank-v3.5"])])).await;
    let body = json!({"model": "rerank-v3.5", "query": "capital of France",
                      "documents": ["Paris is the capital.", "Berlin is in Germany.", "Rome."],
                      "top_n": 2});
    let reply = gw.post("/v1/rerank", "alice", body).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let v = reply.json();
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{v}");
    assert!(results[0]["relevance_score"].as_f64().is_some());
    assert!(results[0]["document"]["text"].as_str().is_some(), "{v}");
    let seen = last_seen(&m);
    assert_eq!((seen.dialect, seen.path.as_str()), ("cohere", "/v2/rerank"));
    let record = gw.record(&reply.request_id()).await;
    assert!(record.quota > 0, "billed: {}", record.quota);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deepseek_and_moonshot_cache_hits_bill_at_the_cache_ratio() {
    let m = mock().await;
    let spec = "prompt_tokens=1000,cached_tokens=800,chunks=5";
    let deepseek = typed(
        1,
        43,
        &m.scenario_url(&format!("{spec},cache_usage=deepseek")),
        &["deepseek-chat"],
    );
    let moonshot = typed(
        2,
        25,
        &m.scenario_url(&format!("{spec},cache_usage=moonshot")),
        &["kimi-k2"],
    );
    let mut snap = priced(vec![deepseek, moonshot]);
    snap["pricing"]["cache_ratio"] = json!({"deepseek-chat": 0.1, "kimi-k2": 0.1});
    let gw = Gw::start(snap).await;
    // (1000 - 800) + 800 × 0.1 + 5 completion tokens, model ratio 1.
    for model in ["deepseek-chat", "kimi-k2"] {
        for stream in [false, true] {
            let reply = gw.chat("alice", chat_body(model, stream)).await;
            assert_eq!(reply.status, 200, "{}", reply.text());
            let record = gw.record(&reply.request_id()).await;
            assert_eq!(
                (record.prompt_tokens, record.completion_tokens, record.quota),
                (1000, 5, 285),
                "{model} stream={stream}: {}",
                record.other
            );
        }
    }
}
