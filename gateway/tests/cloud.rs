//! Cloud channels end to end over real sockets, against the mock provider's stand-ins that
//! check what the real services check: Azure OpenAI (deployment paths, `api-version`,
//! `api-key`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use serde_json::{Value, json};

async fn mock() -> mock_provider::MockHandle {
    mock_provider::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap()
}

/// The last request the mock saw.
fn last_seen(m: &mock_provider::MockHandle) -> mock_provider::SeenRequest {
    m.with_stats(|s| {
        s.requests
            .last()
            .cloned()
            .expect("a request reached the mock")
    })
}

/// A snapshot of `channels` with every model of them priced.
fn priced(channels: Vec<Value>) -> Value {
    let mut snap = snapshot(channels.clone());
    for c in &channels {
        for m in c["models"].as_array().unwrap() {
            snap["pricing"]["model_ratio"][m.as_str().unwrap()] = json!(1.0);
        }
    }
    snap
}

fn azure_channel(id: i64, base_url: &str, models: &[&str], other: &str) -> Value {
    let mut c = channel(id, base_url, models, 0, 1);
    c["type"] = json!(3);
    c["key"] = json!(format!("azure-key-{id}"));
    c["other"] = json!(other);
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn azure_gets_deployment_paths_api_version_and_api_key() {
    let m = mock().await;
    let mut mapped = azure_channel(1, &m.url(), &["gpt-4o"], "2024-10-21");
    mapped["model_mapping"] = json!({"gpt-4o": "my-gpt4o-deployment"});
    let gw = Gw::start(priced(vec![
        mapped,
        azure_channel(2, &m.url(), &["text-embedding-3-small"], ""),
    ]))
    .await;

    let reply = gw.chat("alice", chat_body("gpt-4o", false)).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let seen = last_seen(&m);
    assert_eq!(
        seen.path,
        "/openai/deployments/my-gpt4o-deployment/chat/completions"
    );
    assert_eq!(seen.query.as_deref(), Some("api-version=2024-10-21"));
    let cred = seen.credential.expect("a key");
    assert_eq!(
        (cred.carrier.as_str(), cred.value.as_str()),
        ("api-key", "azure-key-1")
    );
    assert!(
        seen.authorization.is_none(),
        "Azure gets no Authorization header"
    );

    // Streams keep asking for usage; the default api-version is current.
    let reply = gw.chat("alice", chat_body("gpt-4o", true)).await;
    assert_eq!(reply.status, 200);
    assert!(sse_content(&reply.text()).starts_with("word0"));
    assert_eq!(last_seen(&m).include_usage, Some(true));

    let reply = gw
        .post(
            "/v1/embeddings",
            "alice",
            json!({"model": "text-embedding-3-small", "input": "hi"}),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let seen = last_seen(&m);
    assert_eq!(
        seen.path,
        "/openai/deployments/text-embedding-3-small/embeddings"
    );
    assert_eq!(
        seen.query.as_deref(),
        Some("api-version=2025-04-01-preview")
    );

    // The Responses API has its own path on Azure.
    let reply = gw
        .post(
            "/v1/responses",
            "alice",
            json!({"model": "gpt-4o", "input": "hello"}),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let seen = last_seen(&m);
    assert_eq!(seen.path, "/openai/v1/responses");
    assert_eq!(seen.query.as_deref(), Some("api-version=preview"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn azure_refusals_reach_the_client_as_upstream_errors() {
    let m = mock().await;
    let mut keyless = azure_channel(1, &m.url(), &["gpt-4o"], "");
    keyless["key"] = json!("");
    let gw = Gw::start(priced(vec![keyless])).await;
    let reply = gw.chat("alice", chat_body("gpt-4o", false)).await;
    assert_eq!(reply.status, 401, "{}", reply.text());
}
