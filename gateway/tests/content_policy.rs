//! Sensitive words, set in the control plane's options, act on every gateway: a prompt that
//! contains one is refused in the client's own dialect before any upstream call and costs
//! nothing; with the check off, or without a match, requests pass. The other request policy
//! options too: hidden upstream errors, browser extensions refused, requests passed through.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::system::{System, send_json};
use serde_json::{Value, json};

async fn set(sys: &System, key: &str, value: &str) {
    sys.cp
        .ok("PUT", "/api/option/", json!({"key": key, "value": value}))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_with_sensitive_words_are_refused_in_every_dialect() {
    let sys = System::start(false).await.unwrap();
    set(
        &sys,
        "SensitiveWords",
        "forbidden phrase\n违禁词\nregex:secret-\\d{4}",
    )
    .await;
    set(&sys, "CheckSensitiveOnPromptEnabled", "true").await;
    let gw = sys.gateway("gw-a").await;
    let url = |path: &str| format!("http://{}{path}", gw.addr);
    let bearer = format!("Bearer {}", sys.key);
    let chat = |text: &str| json!({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": text}]});
    let post = |path: String, headers: Vec<(&'static str, String)>, body: Value| async move {
        let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        send_json("POST", &path, &headers, body).await
    };

    // The master switch is off: nothing is checked yet.
    let r = post(
        url("/v1/chat/completions"),
        vec![("authorization", bearer.clone())],
        chat("a Forbidden Phrase"),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());

    set(&sys, "CheckSensitiveEnabled", "true").await;
    let start = Instant::now();
    let refused = loop {
        let r = post(
            url("/v1/chat/completions"),
            vec![("authorization", bearer.clone())],
            chat("a Forbidden Phrase and secret-1234"),
        )
        .await;
        if r.status == 400 {
            break r;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "never checked");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let err = &refused.json()["error"];
    assert_eq!(err["code"], json!("sensitive_words_detected"), "{err}");
    let message = err["message"].as_str().unwrap();
    assert!(
        message.contains("Forbidden Phrase") && message.contains("secret-1234"),
        "{message}"
    );
    let calls_at_refusal = sys.mock.calls("default");

    // Anthropic's shape, with the word in a content block.
    let r = post(
        url("/v1/messages"),
        vec![("x-api-key", sys.key.clone()), ("anthropic-version", "2023-06-01".into())],
        json!({"model": "gpt-4o-mini", "max_tokens": 16,
               "messages": [{"role": "user", "content": [{"type": "text", "text": "含有违禁词"}]}]}),
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["type"], json!("error"), "{}", r.text());
    assert!(r.text().contains("违禁词"));

    // Gemini's shape.
    let r = post(
        url("/v1beta/models/gpt-4o-mini:generateContent"),
        vec![("x-goog-api-key", sys.key.clone())],
        json!({"contents": [{"role": "user", "parts": [{"text": "FORBIDDEN PHRASE"}]}]}),
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(
        r.json()["error"]["status"],
        json!("INVALID_ARGUMENT"),
        "{}",
        r.text()
    );

    assert_eq!(
        sys.mock.calls("default"),
        calls_at_refusal,
        "no refused prompt reached the upstream"
    );

    // A clean prompt passes; the refused ones cost nothing.
    let r = post(
        url("/v1/chat/completions"),
        vec![("authorization", bearer.clone())],
        chat("all fine, secret-12"),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let logs = sys
        .cp
        .ok("GET", "/api/log/?p=1&page_size=50", Value::Null)
        .await;
    for row in logs["items"].as_array().unwrap() {
        if row["content"]
            .as_str()
            .is_some_and(|c| c.contains("sensitive words"))
        {
            assert_eq!(row["quota"], json!(0), "{row}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstream_errors_can_be_hidden_and_browser_extensions_blocked() {
    let sys = System::start(false).await.unwrap();
    let gw = sys.gateway("gw-a").await;
    let url = format!("http://{}/v1/chat/completions", gw.addr);
    let bearer = format!("Bearer {}", sys.key);
    let body = json!({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]});
    sys.mock.force_status("default", Some(500));
    let r = send_json("POST", &url, &[("authorization", &bearer)], body.clone()).await;
    assert_eq!(r.status, 500);
    assert!(
        r.text().contains("mock error"),
        "the upstream's text by default: {}",
        r.text()
    );

    // In this order: once the second change shows, the first is in force too.
    set(&sys, "global.block_browser_extension_enabled", "true").await;
    set(&sys, "global.hide_upstream_error_enabled", "true").await;
    let start = Instant::now();
    loop {
        let r = send_json("POST", &url, &[("authorization", &bearer)], body.clone()).await;
        if !r.text().contains("mock error") {
            assert_eq!(r.status, 500, "{}", r.text());
            assert!(
                r.text()
                    .contains("the upstream service failed (status 500)"),
                "{}",
                r.text()
            );
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "never hidden");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    sys.mock.force_status("default", None);
    let calls = sys.mock.calls("default");
    let r = send_json(
        "POST",
        &url,
        &[
            ("authorization", &bearer),
            ("origin", "chrome-extension://abcdefgh"),
        ],
        body.clone(),
    )
    .await;
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(r.json()["error"]["code"], json!("access_denied"));
    assert_eq!(
        sys.mock.calls("default"),
        calls,
        "refused before any upstream call"
    );
    let r = send_json(
        "POST",
        &url,
        &[
            ("authorization", &bearer),
            ("origin", "https://app.example"),
        ],
        body,
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_pass_through_unchanged_when_asked() {
    let sys = System::start(false).await.unwrap();
    let gw = sys.gateway("gw-a").await;
    let url = format!("http://{}/v1/chat/completions", gw.addr);
    let bearer = format!("Bearer {}", sys.key);
    let body = json!({"model": "gpt-4o-mini", "stream": true,
                      "messages": [{"role": "user", "content": "hi"}]});
    let sent = body.to_string().len();
    let seen = || {
        sys.mock
            .with_stats(|s| s.requests.last().map(|r| r.body_len))
            .unwrap()
    };
    // By default a stream is asked for its usage: `stream_options` is added to the body.
    let r = send_json("POST", &url, &[("authorization", &bearer)], body.clone()).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(seen() > sent, "{} > {sent}", seen());

    set(&sys, "global.pass_through_request_enabled", "true").await;
    let start = Instant::now();
    loop {
        let r = send_json("POST", &url, &[("authorization", &bearer)], body.clone()).await;
        assert_eq!(r.status, 200, "{}", r.text());
        if seen() == sent {
            // The client's bytes went upstream, and the answer still streamed back.
            assert!(r.text().contains("data: [DONE]"), "{}", r.text());
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "never passed through"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A gateway whose answers are checked for "word1 word2" (split between two stream events)
/// and `wor?d4`, on an OpenAI channel answering "word0 word1 … word4 ".
async fn checked_gateway(m: &mock_provider::MockHandle, stop: bool, queue: u32) -> common::Gw {
    let mut snap = common::priced(vec![common::channel(
        1,
        &m.scenario_url("chunks=5"),
        &["gpt-test"],
        0,
        1,
    )]);
    snap["options"]["sensitive_words"] = json!(["Word1 word2", "regex:wor?d4"]);
    snap["options"]["sensitive_check_completion"] = json!(true);
    snap["options"]["sensitive_stop"] = json!(stop);
    snap["options"]["stream_cache_queue"] = json!(queue);
    common::Gw::start(snap).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_with_sensitive_words_are_masked_or_stopped() {
    let m = mock_provider::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let gw = checked_gateway(&m, false, 2).await;
    let masked = "word0 **###** word3 **###** ";
    let whole = gw.chat("alice", common::chat_body("gpt-test", false)).await;
    assert_eq!(whole.status, 200, "{}", whole.text());
    assert_eq!(whole.json()["choices"][0]["message"]["content"], masked);
    // Streamed: the word split between two events is masked before either leaves.
    let streamed = gw.chat("alice", common::chat_body("gpt-test", true)).await;
    assert_eq!(streamed.status, 200, "{}", streamed.text());
    assert_eq!(common::sse_content(&streamed.text()), masked);
    assert!(streamed.text().contains("data: [DONE]"));
    // Claude's dialect, converted from the OpenAI channel: the same text checked.
    let claude = send_json(
        "POST",
        &gw.url("/v1/messages"),
        &[
            ("x-api-key", "sk-alice"),
            ("anthropic-version", "2023-06-01"),
        ],
        json!({"model": "gpt-test", "max_tokens": 50, "stream": true,
               "messages": [{"role": "user", "content": "hi"}]}),
    )
    .await;
    assert_eq!(claude.status, 200, "{}", claude.text());
    let text: String = common::sse_data(&claude.text())
        .iter()
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .filter_map(|v| v["delta"]["text"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(text, masked);
    // Billing is for what the upstream produced, masked or not.
    let record = gw.record(&whole.request_id()).await;
    assert!(record.quota > 0, "{record:?}");

    // Stopping: a whole answer is refused; a stream ends with an error event before the word.
    let gw = checked_gateway(&m, true, 0).await;
    let whole = gw.chat("alice", common::chat_body("gpt-test", false)).await;
    whole.assert_error(400, "sensitive_words_detected");
    let streamed = gw.chat("alice", common::chat_body("gpt-test", true)).await;
    let body = streamed.text();
    assert_eq!(common::sse_content(&body), "word0 ", "{body}");
    assert!(body.contains("sensitive_words_detected"), "{body}");
    assert!(!body.contains("word2"), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_content_is_kept_in_the_log_row_when_asked() {
    let m = mock_provider::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let mut snap = common::priced(vec![common::channel(
        1,
        &m.scenario_url("chunks=3"),
        &["gpt-test"],
        0,
        1,
    )]);
    let gw = common::Gw::start(snap.clone()).await;
    let off = gw.chat("alice", common::chat_body("gpt-test", false)).await;
    let other: Value = serde_json::from_str(&gw.record(&off.request_id()).await.other).unwrap();
    assert!(other.get("input_content").is_none(), "{other}");

    snap["options"]["log_chat_content"] = json!(true);
    let gw = common::Gw::start(snap).await;
    for stream in [false, true] {
        let reply = gw
            .chat("alice", common::chat_body("gpt-test", stream))
            .await;
        assert_eq!(reply.status, 200, "{}", reply.text());
        let record = gw.record(&reply.request_id()).await;
        let other: Value = serde_json::from_str(&record.other).unwrap();
        assert_eq!(other["input_content"], "hello there", "stream: {stream}");
        assert_eq!(
            other["output_content"], "word0 word1 word2 ",
            "stream: {stream}"
        );
    }
    // Long texts are cut.
    let long = "x".repeat(10_000);
    let reply = gw
        .chat(
            "alice",
            json!({"model": "gpt-test", "messages": [{"role": "user", "content": long}]}),
        )
        .await;
    let other: Value = serde_json::from_str(&gw.record(&reply.request_id()).await.other).unwrap();
    assert_eq!(other["input_content"].as_str().unwrap().len(), 4096);
}
