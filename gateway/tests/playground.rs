//! The console playground (`POST /pg/chat/completions`): a signed-in console session, checked
//! by the control plane, spends the user's wallet with no API token; the call is logged with
//! the playground marked. Without a session, or with a forged one, nothing is relayed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::system::{INITIAL_QUOTA, System, send_json};
use serde_json::{Value, json};

fn chat(group: Option<&str>, stream: bool) -> Value {
    let mut body = json!({
        "model": "gpt-4o-mini",
        "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello"}],
        "temperature": 0.3,
        "max_tokens": 50,
        "stream": stream,
    });
    if let Some(g) = group {
        body["group"] = json!(g);
    }
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_playground_spends_the_session_users_wallet() {
    let sys = System::start(false).await.unwrap();
    let gw = sys.gateway("gw").await;
    let url = format!("http://{}/pg/chat/completions", gw.addr);
    let (cookie, id) = &sys.user_session;
    let id = id.to_string();
    let session = [("cookie", cookie.as_str()), ("new-api-user", id.as_str())];

    // No session, a forged cookie, or another user's id: 401 in OpenAI's shape, nothing spent.
    for headers in [
        vec![],
        vec![("cookie", "session=forged"), ("new-api-user", id.as_str())],
        vec![("cookie", cookie.as_str()), ("new-api-user", "1")],
        vec![("authorization", &*format!("Bearer {}", sys.key))],
    ] {
        let r = send_json("POST", &url, &headers, chat(None, false)).await;
        assert_eq!(r.status, 401, "{headers:?}: {}", r.text());
        let body: Value = serde_json::from_slice(&r.body).unwrap();
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains("signed-in console session"), "{body}");
    }
    // A group the user may not use.
    let r = send_json("POST", &url, &session, chat(Some("vip-only"), false)).await;
    assert_eq!(r.status, 403, "{}", r.text());

    let r = send_json("POST", &url, &session, chat(Some("default"), false)).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let body: Value = serde_json::from_slice(&r.body).unwrap();
    assert!(
        body["choices"][0]["message"]["content"].is_string(),
        "{body}"
    );
    assert!(body["usage"]["total_tokens"].as_i64().unwrap() > 0);
    let r = send_json("POST", &url, &session, chat(None, true)).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.text().contains("data: [DONE]"), "{}", r.text());

    let (logs, spent) = sys.wait_logs(2, Duration::from_secs(15)).await;
    assert_eq!(logs, 2);
    assert!(spent > 0);
    let list = sys
        .cp
        .ok("GET", "/api/log/?type=2&p=1&page_size=10", Value::Null)
        .await;
    for row in list["items"].as_array().unwrap() {
        assert_eq!(row["token_name"], "playground", "{row}");
        assert_eq!(row["user_id"].as_i64(), Some(sys.user_id));
        let other: Value = serde_json::from_str(row["other"].as_str().unwrap()).unwrap();
        assert_eq!(other["playground"], json!(true), "{other}");
    }
    let start = std::time::Instant::now();
    loop {
        let (quota, used, _) = sys.balances().await;
        if used == spent {
            assert_eq!(quota, INITIAL_QUOTA - spent, "the user's wallet paid");
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "never charged");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
