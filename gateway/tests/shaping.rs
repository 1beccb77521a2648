//! Per-channel request shaping end to end: what the mock provider receives after a channel's
//! model prefix, input-token limit, param and header overrides, system prompt and proxy, and
//! that a rule that cannot apply fails over to the next channel instead of failing every
//! request.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use serde_json::{Value, json};

async fn mock() -> mock_provider::MockHandle {
    mock_provider::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap()
}

/// The requests the mock saw for `tag`, oldest first.
fn seen(m: &mock_provider::MockHandle, tag: &str) -> Vec<mock_provider::SeenRequest> {
    m.with_stats(|s| {
        s.requests
            .iter()
            .filter(|r| r.tag == tag)
            .cloned()
            .collect()
    })
}

fn snap(channels: Vec<Value>) -> Value {
    let mut s = snapshot(channels);
    for m in ["gpt-4o", "openai/gpt-4o", "o3-mini"] {
        s["pricing"]["model_ratio"][m] = json!(1.0);
    }
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_prefix_is_added_once_to_the_upstream_name() {
    let m = mock().await;
    let mut c = channel(
        1,
        &m.scenario_url("tag=p"),
        &["gpt-4o", "openai/gpt-4o"],
        0,
        1,
    );
    c["model_prefix"] = json!("openai/");
    let gw = Gw::start(snap(vec![c])).await;
    for model in ["gpt-4o", "openai/gpt-4o"] {
        let reply = gw.chat("alice", chat_body(model, false)).await;
        assert_eq!(reply.status, 200, "{}", reply.text());
    }
    let models: Vec<_> = seen(&m, "p")
        .into_iter()
        .map(|r| r.model.unwrap())
        .collect();
    assert_eq!(models, ["openai/gpt-4o", "openai/gpt-4o"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_longer_than_a_channel_accepts_goes_to_another() {
    let m = mock().await;
    let mut small = channel(1, &m.scenario_url("tag=small"), &["gpt-4o"], 10, 1);
    small["max_input_tokens"] = json!(50);
    let large = channel(2, &m.scenario_url("tag=large"), &["gpt-4o"], 0, 1);
    let gw = Gw::start(snap(vec![small.clone(), large])).await;

    let short = gw.chat("alice", chat_body("gpt-4o", false)).await;
    assert_eq!(short.status, 200);
    let long_text = "many words ".repeat(200);
    let long = json!({"model": "gpt-4o", "messages": [{"role": "user", "content": long_text}]});
    let reply = gw.chat("alice", long.clone()).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!((m.calls("small"), m.calls("large")), (1, 1));

    // With no channel large enough, the client is told so (nothing is sent upstream).
    let gw = Gw::start(snap(vec![small])).await;
    let reply = gw.chat("alice", long).await;
    reply.assert_error(400, "context_length_exceeded");
    assert_eq!(m.calls("small"), 1);
}

/// A minimal HTTP CONNECT proxy: records each tunnel's target and `Proxy-Authorization`.
async fn connect_proxy() -> (
    std::net::SocketAddr,
    std::sync::Arc<std::sync::Mutex<Vec<String>>>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let log = log.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    if client.read_exact(&mut byte).await.is_err() {
                        return;
                    }
                    head.push(byte[0]);
                }
                let head = String::from_utf8_lossy(&head).to_string();
                let target = head.split_whitespace().nth(1).unwrap_or("").to_owned();
                let auth = head
                    .lines()
                    .find_map(|l| {
                        let (name, value) = l.split_once(':')?;
                        name.eq_ignore_ascii_case("proxy-authorization")
                            .then(|| value.trim().to_owned())
                    })
                    .unwrap_or_default();
                log.lock().unwrap().push(format!("{target} {auth}"));
                let Ok(mut upstream) = tokio::net::TcpStream::connect(&target).await else {
                    let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\n\r\n").await;
                    return;
                };
                let _ = client
                    .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                    .await;
                let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
            });
        }
    });
    (addr, seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_channel_proxy_carries_its_calls_and_a_dead_one_fails_over() {
    let m = mock().await;
    let (proxy, tunnels) = connect_proxy().await;
    let mut proxied = channel(1, &m.scenario_url("tag=proxied"), &["gpt-4o"], 10, 1);
    proxied["setting"] = json!(json!({"proxy": format!("http://user:p%40ss@{proxy}")}).to_string());
    let gw = Gw::start(snap(vec![proxied])).await;
    for stream in [false, true] {
        let reply = gw.chat("alice", chat_body("gpt-4o", stream)).await;
        assert_eq!(reply.status, 200, "{}", reply.text());
    }
    assert_eq!(m.calls("proxied"), 2);
    let tunnels = tunnels.lock().unwrap().clone();
    assert!(!tunnels.is_empty(), "the calls went through the proxy");
    // user:p@ss, as Basic credentials.
    let expected = format!("{} Basic dXNlcjpwQHNz", m.addr);
    assert!(tunnels.iter().all(|t| *t == expected), "{tunnels:?}");

    // A proxy that refuses connections fails that attempt; the next channel answers.
    let mut dead = channel(1, &m.scenario_url("tag=dead"), &["gpt-4o"], 10, 1);
    dead["setting"] =
        json!(json!({"proxy": format!("socks5://127.0.0.1:{}", free_port())}).to_string());
    let mut odd = channel(2, &m.scenario_url("tag=odd"), &["gpt-4o"], 5, 1);
    odd["setting"] = json!(json!({"proxy": "ftp://nowhere"}).to_string());
    let direct = channel(3, &m.scenario_url("tag=direct"), &["gpt-4o"], 0, 1);
    let gw = Gw::start(snap(vec![dead, odd, direct])).await;
    let reply = gw.chat("alice", chat_body("gpt-4o", false)).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(
        (m.calls("dead"), m.calls("odd"), m.calls("direct")),
        (0, 0, 1)
    );
}

/// The body and headers the mock received for the last request of `tag` (`record=1`).
fn received(
    m: &mock_provider::MockHandle,
    tag: &str,
) -> (Value, std::collections::BTreeMap<String, String>) {
    let r = seen(m, tag).pop().expect("a request of the tag");
    (
        r.body.expect("recorded body"),
        r.headers.expect("recorded headers"),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn param_and_header_overrides_and_the_system_prompt_reach_the_upstream() {
    let m = mock().await;
    let mut c = channel(1, &m.scenario_url("tag=o,record=1"), &["gpt-4o"], 0, 1);
    c["param_override"] = json!(
        json!({
            "operations": [
                {"path": "temperature", "mode": "set", "value": 0.2},
                {"path": "metadata.team", "mode": "set", "value": "blue"},
                {"path": "user", "mode": "delete"}
            ]
        })
        .to_string()
    );
    c["header_override"] = json!(
        json!({
            "X-Channel-Key": "k={api_key}",
            "X-Trace": "{client_header:X-Request-Trace}"
        })
        .to_string()
    );
    c["setting"] = json!(json!({"system_prompt": "Answer in French."}).to_string());
    let gw = Gw::start(snap(vec![c])).await;
    let body = json!({"model": "gpt-4o", "user": "u-1", "temperature": 1.5,
                      "messages": [{"role": "user", "content": "hello"}]});
    let reply = send(
        "POST",
        &gw.url("/v1/chat/completions"),
        &[
            ("authorization", "Bearer sk-alice"),
            ("content-type", "application/json"),
            ("x-request-trace", "trace-42"),
        ],
        bytes::Bytes::from(body.to_string()),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let (body, headers) = received(&m, "o");
    assert_eq!(body["temperature"], 0.2);
    assert_eq!(body["metadata"]["team"], "blue");
    assert!(body.get("user").is_none(), "{body}");
    assert_eq!(
        body["messages"][0],
        json!({"role": "system", "content": "Answer in French."})
    );
    assert_eq!(body["messages"][1]["content"], "hello");
    assert_eq!(headers["x-channel-key"], "k=sk-upstream-1");
    assert_eq!(headers["x-trace"], "trace-42");

    // Converted requests are shaped in the channel's dialect: Anthropic's `system`.
    let mut claude = channel(2, &m.scenario_url("tag=c,record=1"), &["claude-x"], 0, 1);
    claude["type"] = json!(14);
    claude["setting"] = json!(json!({"system_prompt": "Be brief."}).to_string());
    claude["param_override"] = json!(json!({"top_k": 5}).to_string());
    let mut s = snap(vec![claude]);
    s["pricing"]["model_ratio"]["claude-x"] = json!(1.0);
    let gw = Gw::start(s).await;
    let reply = gw.chat("alice", chat_body("claude-x", false)).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let (body, _) = received(&m, "c");
    assert_eq!(body["top_k"], 5);
    let system = body["system"].to_string();
    assert!(system.contains("Be brief."), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reasoning_models_get_their_fixes_and_effort_suffixes() {
    let m = mock().await;
    let c = channel(
        1,
        &m.scenario_url("tag=r,record=1"),
        &["o3-mini", "o3-mini-high"],
        0,
        1,
    );
    let mut s = snap(vec![c]);
    s["pricing"]["model_ratio"]["o3-mini-high"] = json!(1.0);
    let gw = Gw::start(s).await;
    let body = json!({"model": "o3-mini-high", "max_tokens": 100, "temperature": 0.5,
                      "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"}]});
    let reply = gw.chat("alice", body).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let (body, _) = received(&m, "r");
    assert_eq!(body["model"], "o3-mini");
    assert_eq!(body["reasoning_effort"], "high");
    assert_eq!(body["max_completion_tokens"], 100);
    assert!(
        body.get("max_tokens").is_none() && body.get("temperature").is_none(),
        "{body}"
    );
    assert_eq!(body["messages"][0]["role"], "developer");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rules_that_cannot_apply_fail_over_and_return_error_refuses() {
    let m = mock().await;
    // A rule that fails for this request (a move from a missing path) and a rule text that
    // cannot be read: both channels fail their attempt; the plain one answers.
    let mut failing = channel(1, &m.scenario_url("tag=failing"), &["gpt-4o"], 20, 1);
    failing["param_override"] = json!(
        json!({"operations": [
            {"mode": "move", "from": "nope.missing", "to": "x"}
        ]})
        .to_string()
    );
    let mut unreadable = channel(2, &m.scenario_url("tag=unreadable"), &["gpt-4o"], 10, 1);
    unreadable["param_override"] = json!("{not json");
    let plain = channel(3, &m.scenario_url("tag=plain"), &["gpt-4o"], 0, 1);
    let gw = Gw::start(snap(vec![failing, unreadable, plain])).await;
    for _ in 0..3 {
        let reply = gw.chat("alice", chat_body("gpt-4o", false)).await;
        assert_eq!(reply.status, 200, "{}", reply.text());
    }
    assert_eq!(
        (m.calls("failing"), m.calls("unreadable"), m.calls("plain")),
        (0, 0, 3)
    );

    // return_error answers the client with the rule's status and message; nothing upstream.
    let mut refusing = channel(1, &m.scenario_url("tag=refusing"), &["gpt-4o"], 0, 1);
    refusing["param_override"] = json!(json!({"operations": [
        {"mode": "return_error", "value": {"message": "this model is closed today", "status_code": 403},
         "conditions": [{"path": "model", "mode": "full", "value": "gpt-4o"}]}
    ]}).to_string());
    let gw = Gw::start(snap(vec![refusing])).await;
    let reply = gw.chat("alice", chat_body("gpt-4o", false)).await;
    assert_eq!(reply.status, 403, "{}", reply.text());
    assert!(
        reply.text().contains("this model is closed today"),
        "{}",
        reply.text()
    );
    assert_eq!(m.calls("refusing"), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_and_gemini_provider_options_reach_the_upstream() {
    let m = mock().await;
    let mut claude = channel(1, &m.scenario_url("tag=c,record=1"), &["claude-x"], 0, 1);
    claude["type"] = json!(14);
    let mut gemini = channel(
        2,
        &m.scenario_url("tag=g,record=1"),
        &[
            "gemini-img",
            "gemini-plain-thinking-512",
            "gemini-budget-thinking-512",
        ],
        0,
        1,
    );
    gemini["type"] = json!(24);
    let mut s = snap(vec![claude, gemini]);
    for model in [
        "claude-x",
        "gemini-img",
        "gemini-plain",
        "gemini-budget",
        "gemini-plain-thinking-512",
        "gemini-budget-thinking-512",
    ] {
        s["pricing"]["model_ratio"][model] = json!(1.0);
    }
    s["options"]["claude_model_headers"] =
        json!({"claude-x": {"headers": {"anthropic-beta": "output-128k-2025-02-19"}}});
    s["options"]["gemini_versions"] = json!({"default": "v1alpha", "gemini-img": "v1"});
    s["options"]["gemini_image_models"] = json!(["gemini-img"]);
    s["options"]["gemini_thinking_budget_models"] = json!(["gemini-budget"]);
    s["options"]["gemini_thinking_adapter"] = json!(true);
    let gw = Gw::start(s).await;

    // Claude: the model's headers, added to the client's own anthropic-beta.
    let reply = gw.chat("alice", chat_body("claude-x", false)).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(
        received(&m, "c").1["anthropic-beta"],
        "output-128k-2025-02-19"
    );
    let body = json!({"model": "claude-x", "max_tokens": 16,
                      "messages": [{"role": "user", "content": "hi"}]});
    let reply = send(
        "POST",
        &gw.url("/v1/messages"),
        &[
            ("x-api-key", "sk-alice"),
            ("content-type", "application/json"),
            ("anthropic-version", "2023-06-01"),
            ("anthropic-beta", "tools-2024-04-04"),
        ],
        bytes::Bytes::from(body.to_string()),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(
        received(&m, "c").1["anthropic-beta"],
        "tools-2024-04-04,output-128k-2025-02-19"
    );

    // Gemini: the API version per model, image output for the drawing model.
    let reply = gw.chat("alice", chat_body("gemini-img", false)).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let last = seen(&m, "g").pop().unwrap();
    assert_eq!(last.path, "/v1/models/gemini-img:generateContent");
    assert_eq!(
        last.body.unwrap()["generationConfig"]["responseModalities"],
        json!(["TEXT", "IMAGE"])
    );
    // A thinking budget only for the models that take one.
    let reply = gw
        .chat("alice", chat_body("gemini-plain-thinking-512", false))
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let last = seen(&m, "g").pop().unwrap();
    assert_eq!(last.path, "/v1alpha/models/gemini-plain:generateContent");
    let body = last.body.unwrap();
    assert_eq!(
        body["generationConfig"]["thinkingConfig"],
        json!({"includeThoughts": true}),
        "{body}"
    );
    assert!(body["generationConfig"].get("responseModalities").is_none());
    let reply = gw
        .chat("alice", chat_body("gemini-budget-thinking-512", false))
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let body = seen(&m, "g").pop().unwrap().body.unwrap();
    assert_eq!(
        body["generationConfig"]["thinkingConfig"]["thinkingBudget"],
        512
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn image_urls_reach_inline_only_providers_through_the_worker() {
    let m = mock().await;
    let set = send(
        "PUT",
        &format!("{}/__worker/key", m.url()),
        &[("content-type", "application/json")],
        bytes::Bytes::from(json!({"key": "worker-key"}).to_string()),
    )
    .await;
    assert_eq!(set.status, 200);
    let mut gemini = channel(1, &m.scenario_url("tag=g,record=1"), &["gemini-x"], 0, 1);
    gemini["type"] = json!(24);
    let mut s = snap(vec![gemini]);
    s["pricing"]["model_ratio"]["gemini-x"] = json!(1.0);
    let with_image = |url: &str| {
        json!({"model": "gemini-x", "messages": [{"role": "user", "content": [
            {"type": "text", "text": "what is this?"},
            {"type": "image_url", "image_url": {"url": url}}
        ]}]})
    };
    // No worker: the URL goes as it is (Gemini's fileData); the gateway fetches nothing.
    let gw = Gw::start(s.clone()).await;
    let reply = gw
        .chat("alice", with_image("https://images.example/cat.png"))
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let (body, _) = received(&m, "g");
    let parts = &body["contents"][0]["parts"];
    assert_eq!(
        parts[1]["fileData"]["fileUri"],
        "https://images.example/cat.png"
    );

    // With a worker: fetched through it (with its key) and sent inline.
    s["options"]["worker_url"] = json!(format!("{}/__worker", m.url()));
    s["options"]["worker_key"] = json!("worker-key");
    let gw = Gw::start(s.clone()).await;
    let reply = gw
        .chat("alice", with_image("https://images.example/cat.png"))
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let (body, _) = received(&m, "g");
    assert_eq!(
        body["contents"][0]["parts"][1]["inlineData"],
        json!({"mimeType": "image/png", "data": mock_provider::WORKER_PNG_BASE64})
    );
    assert_eq!(
        m.with_stats(|st| st.worker_fetches.clone()),
        ["https://images.example/cat.png"]
    );
    // What is not an image, or a worker that refuses the key, fails the request clearly.
    let reply = gw
        .chat("alice", with_image("https://images.example/notes.txt"))
        .await;
    reply.assert_error(400, "invalid_request");
    s["options"]["worker_key"] = json!("wrong-key");
    let gw = Gw::start(s).await;
    let reply = gw
        .chat("alice", with_image("https://images.example/cat.png"))
        .await;
    let error = reply.assert_error(400, "invalid_request");
    assert!(
        error["message"].as_str().unwrap().contains("answered 401"),
        "{error}"
    );
}
