//! Cloud channels end to end over real sockets, against the mock provider's stand-ins that
//! check what the real services check: Azure OpenAI (deployment paths, `api-version`,
//! `api-key`), AWS Bedrock (SigV4 recomputed over the request as received, Claude invoke
//! bodies, event-stream answers, Converse) and Google Vertex AI (service-account assertions
//! verified against the key's public key, access tokens, Claude rawPredict bodies).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use serde_json::{Value, json};

async fn mock() -> mock_provider::MockHandle {
    mock_provider::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap()
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

fn bedrock_channel(id: i64, base_url: &str, models: &[&str]) -> Value {
    let mut c = channel(id, base_url, models, 0, 1);
    c["type"] = json!(33);
    c["key"] = json!(format!(
        "{}|{}|us-east-1",
        mock_provider::MOCK_ACCESS_KEY,
        mock_provider::MOCK_SECRET
    ));
    c
}

fn vertex_channel(
    id: i64,
    m: &mock_provider::MockHandle,
    base_url: &str,
    models: &[&str],
) -> Value {
    let mut c = channel(id, base_url, models, 0, 1);
    c["type"] = json!(41);
    c["key"] = json!(mock_provider::test_service_account_json(&format!(
        "{}/token",
        m.url()
    )));
    c["other"] = json!("us-central1");
    c
}

async fn usage_of(gw: &Gw, request_id: &str) -> (i64, i64) {
    let r = gw.record(request_id).await;
    (r.prompt_tokens, r.completion_tokens)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bedrock_serves_claude_through_invoke_and_others_through_converse() {
    let m = mock().await;
    let mut c = bedrock_channel(1, &m.url(), &["claude-3-5-haiku", "nova-pro"]);
    c["model_mapping"] = json!({
        "claude-3-5-haiku": "anthropic.claude-3-5-haiku-20241022-v1:0",
        "nova-pro": "amazon.nova-pro-v1:0",
    });
    let gw = Gw::start(priced(vec![c])).await;

    // OpenAI client, Claude on Bedrock: converted, signed, answered.
    let reply = gw.chat("alice", chat_body("claude-3-5-haiku", false)).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert!(
        reply.json()["choices"][0]["message"]["content"]
            .as_str()
            .unwrap()
            .starts_with("word0")
    );
    let seen = last_seen(&m);
    assert_eq!(seen.dialect, "bedrock");
    assert_eq!(
        seen.path,
        "/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/invoke"
    );
    assert_eq!(seen.credential.unwrap().carrier, "sigv4");

    // Streamed: AWS event-stream frames turned into the client's SSE, usage billed.
    let reply = gw.chat("alice", chat_body("claude-3-5-haiku", true)).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(sse_content(&reply.text()), "word0 word1 word2 word3 word4 ");
    assert_eq!(
        last_seen(&m).path,
        "/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/invoke-with-response-stream"
    );
    let (prompt, completion) = usage_of(&gw, &reply.request_id()).await;
    assert!(prompt > 0 && completion > 0, "{prompt} {completion}");

    // A Claude client passes through (the body loses `model`, gains Bedrock's version).
    let claude = json!({"model": "claude-3-5-haiku", "max_tokens": 50, "stream": true,
                        "messages": [{"role": "user", "content": "hello"}]});
    let reply = gw.post("/v1/messages", "alice", claude).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert!(
        reply.text().contains("event: message_stop"),
        "{}",
        reply.text()
    );

    // Other models speak Converse, plain and streamed.
    for stream in [false, true] {
        let reply = gw.chat("alice", chat_body("nova-pro", stream)).await;
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
        let suffix = if stream {
            "converse-stream"
        } else {
            "converse"
        };
        assert_eq!(
            last_seen(&m).path,
            format!("/model/amazon.nova-pro-v1%3A0/{suffix}")
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bedrock_refuses_a_wrong_secret_and_the_next_channel_answers() {
    let m = mock().await;
    let mut wrong = bedrock_channel(1, &m.scenario_url("tag=wrong"), &["claude-3-5-haiku"]);
    wrong["key"] = json!(format!(
        "{}|not-the-secret|us-east-1",
        mock_provider::MOCK_ACCESS_KEY
    ));
    wrong["priority"] = json!(10);
    wrong["model_mapping"] =
        json!({"claude-3-5-haiku": "anthropic.claude-3-5-haiku-20241022-v1:0"});
    let mut good = bedrock_channel(2, &m.scenario_url("tag=good"), &["claude-3-5-haiku"]);
    good["model_mapping"] = wrong["model_mapping"].clone();
    let gw = Gw::start(priced(vec![wrong.clone()])).await;
    let reply = gw.chat("alice", chat_body("claude-3-5-haiku", false)).await;
    assert_eq!(reply.status, 403, "{}", reply.text());
    let gw = Gw::start(priced(vec![wrong, good])).await;
    let reply = gw.chat("alice", chat_body("claude-3-5-haiku", false)).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!((m.calls("wrong"), m.calls("good")), (2, 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vertex_exchanges_one_token_for_concurrent_requests_and_renews_it() {
    let m = mock().await;
    let mut c = vertex_channel(1, &m, &m.url(), &["gemini-2.5-flash", "claude-sonnet-4-5"]);
    c["model_mapping"] = json!({"claude-sonnet-4-5": "claude-sonnet-4-5@20250929"});
    let gw = Gw::start(priced(vec![c])).await;

    let mut calls = Vec::new();
    for _ in 0..8 {
        calls.push(gw.chat("alice", chat_body("gemini-2.5-flash", false)));
    }
    for reply in futures_util::future::join_all(calls).await {
        assert_eq!(reply.status, 200, "{}", reply.text());
    }
    assert_eq!(m.token_calls(), 1, "one token for all concurrent requests");
    let seen = last_seen(&m);
    assert_eq!(seen.dialect, "vertex");
    assert!(
        seen.path.ends_with(
            "/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent"
        ),
        "{}",
        seen.path
    );

    // Claude on Vertex: rawPredict with Vertex's anthropic_version; streamed to an OpenAI client.
    let reply = gw.chat("alice", chat_body("claude-sonnet-4-5", true)).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(sse_content(&reply.text()), "word0 word1 word2 word3 word4 ");
    assert!(
        last_seen(&m)
            .path
            .ends_with("/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict")
    );
    assert_eq!(m.token_calls(), 1);

    // A token the provider no longer accepts fails that attempt; once it is due, a new one.
    m.expire_tokens();
    let reply = gw.chat("alice", chat_body("gemini-2.5-flash", false)).await;
    assert_eq!(reply.status, 401, "{}", reply.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vertex_renews_a_token_before_it_expires() {
    let m = mock().await;
    // Tokens of this mock live 2 s: the gateway renews them a tenth early.
    let c = vertex_channel(1, &m, &m.scenario_url("token_ttl=2"), &["gemini-2.5-flash"]);
    let mut c = c;
    c["key"] = json!(mock_provider::test_service_account_json(&format!(
        "{}/token",
        m.scenario_url("token_ttl=2")
    )));
    let gw = Gw::start(priced(vec![c])).await;
    let reply = gw.chat("alice", chat_body("gemini-2.5-flash", false)).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    let reply = gw.chat("alice", chat_body("gemini-2.5-flash", false)).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(m.token_calls(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vertex_api_keys_use_express_mode() {
    let m = mock().await;
    let mut c = channel(1, &m.url(), &["gemini-2.5-flash"], 0, 1);
    c["type"] = json!(41);
    c["key"] = json!("AIza-vertex-test-key");
    let gw = Gw::start(priced(vec![c])).await;
    let reply = gw.chat("alice", chat_body("gemini-2.5-flash", true)).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let seen = last_seen(&m);
    assert!(
        seen.path
            .starts_with("/v1/publishers/google/models/gemini-2.5-flash"),
        "{}",
        seen.path
    );
    assert_eq!(m.token_calls(), 0);
}
