//! The mock provider over a real socket: scenarios, SSE, errors, call counting, `--help`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::{Value, json};

async fn post(url: &str, body: Value, scenario: Option<&str>) -> (u16, String) {
    let client = Client::builder(TokioExecutor::new()).build_http::<Full<bytes::Bytes>>();
    let mut req = http::Request::post(url).header("content-type", "application/json");
    if let Some(s) = scenario {
        req = req.header("x-mock-scenario", s);
    }
    let resp = client
        .request(req.body(Full::new(body.to_string().into())).unwrap())
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let body = resp
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    (status, String::from_utf8_lossy(&body).into_owned())
}

#[tokio::test]
async fn serves_scenarios_and_counts_calls() {
    let m = mock_provider::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let chat = json!({"model": "x", "messages": []});
    let (status, body) = post(
        &format!("{}/v1/chat/completions", m.url()),
        chat.clone(),
        None,
    )
    .await;
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (status, v["usage"]["completion_tokens"].as_i64()),
        (200, Some(5))
    );
    let (status, body) = post(
        &format!("{}/v1/chat/completions", m.url()),
        chat.clone(),
        Some("tag=h,status=503"),
    )
    .await;
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (503, Some("mock_503"))
    );
    let (_, body) = post(
        &format!("{}/v1/chat/completions", m.scenario_url("malformed=1")),
        chat.clone(),
        None,
    )
    .await;
    assert!(serde_json::from_str::<Value>(&body).is_err());
    let stream = json!({"model": "x", "stream": true, "stream_options": {"include_usage": true}});
    let (_, body) = post(
        &format!(
            "{}/v1/chat/completions",
            m.scenario_url("tag=s,chunks=2,usage=off")
        ),
        stream,
        None,
    )
    .await;
    assert_eq!(
        body.matches("data: ").count(),
        2 + 1 + 1,
        "2 content, finish, [DONE]; no usage chunk"
    );
    assert_eq!((m.calls("default"), m.calls("h"), m.calls("s")), (2, 1, 1));
    assert_eq!(m.with_stats(|s| s.completed_streams), 1);
}

#[test]
fn binary_answers_help() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mock-provider"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("--listen"));
}
