//! Channel tests and model lists of the cloud channels (Azure OpenAI, AWS Bedrock, Google
//! Vertex AI) against the mock provider's stand-ins, which check what the real services check
//! (Azure's `api-key` and `api-version`, a SigV4 signature recomputed from the request, a
//! service account's JWT and the access token it buys); failing keys and the auto-disable
//! rules.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Session, TestApp};
use mock_provider::{MOCK_ACCESS_KEY, MOCK_SECRET, MockHandle, SeenRequest};
use serde_json::{Value, json};

async fn mock() -> MockHandle {
    mock_provider::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap()
}

/// Creates a channel from `fields` (type, key, base URL, …); its id.
async fn create(app: &TestApp, root: &Session, name: &str, fields: Value) -> i64 {
    let mut body = json!({"name": name});
    for (k, v) in fields.as_object().unwrap() {
        body[k] = v.clone();
    }
    let reply = app.post("/api/channel/", body).signed_in(root).send().await;
    assert!(reply.success(), "{}", reply.body);
    reply.data()[0].as_i64().unwrap()
}

async fn test(app: &TestApp, root: &Session, id: i64, model: Option<&str>) -> common::Reply {
    let path = match model {
        Some(m) => format!("/api/channel/test/{id}?model={m}"),
        None => format!("/api/channel/test/{id}"),
    };
    app.get(&path).signed_in(root).send().await
}

async fn models(app: &TestApp, root: &Session, id: i64) -> Vec<String> {
    let reply = app
        .get(&format!("/api/channel/fetch_models/{id}"))
        .signed_in(root)
        .send()
        .await;
    assert!(reply.success(), "{}", reply.body);
    serde_json::from_value(reply.data().clone()).unwrap()
}

async fn status(app: &TestApp, root: &Session, id: i64) -> i64 {
    app.get(&format!("/api/channel/{id}"))
        .signed_in(root)
        .send()
        .await
        .data()["status"]
        .as_i64()
        .unwrap()
}

/// The requests the mock saw for `tag`, oldest first.
fn seen(mock: &MockHandle, tag: &str) -> Vec<SeenRequest> {
    mock.with_stats(|s| {
        s.requests
            .iter()
            .filter(|r| r.tag == tag)
            .cloned()
            .collect()
    })
}

fn last(mock: &MockHandle, tag: &str) -> SeenRequest {
    seen(mock, tag).pop().expect("a request reached the mock")
}

fn carrier(r: &SeenRequest) -> (String, String) {
    let c = r.credential.clone().expect("a credential");
    (c.carrier, c.value)
}

async fn azure(app: &TestApp) {
    let root = app.root().await;
    let mock = mock().await;
    let id = create(
        app,
        &root,
        "azure",
        json!({"type": 3, "key": "azure-key", "base_url": mock.scenario_url("tag=azure"),
               "other": "2024-10-21", "models": "gpt-4o"}),
    )
    .await;
    let reply = test(app, &root, id, None).await;
    assert!(reply.success(), "{}", reply.body);
    let chat = last(&mock, "azure");
    assert_eq!(chat.path, "/openai/deployments/gpt-4o/chat/completions");
    assert_eq!(chat.query.as_deref(), Some("api-version=2024-10-21"));
    assert_eq!(carrier(&chat), ("api-key".into(), "azure-key".into()));

    assert_eq!(models(app, &root, id).await, ["mock-model", "gpt-4o-mini"]);
    let list = last(&mock, "azure");
    assert_eq!(list.path, "/openai/models");
    assert_eq!(list.query.as_deref(), Some("api-version=2024-10-21"));
    assert_eq!(carrier(&list), ("api-key".into(), "azure-key".into()));
    mock.stop();
}

async fn bedrock(app: &TestApp) {
    let root = app.root().await;
    let mock = mock().await;
    let claude = "anthropic.claude-3-haiku-20240307-v1:0";
    let id = create(
        app,
        &root,
        "bedrock",
        json!({"type": 33, "key": format!("{MOCK_ACCESS_KEY}|{MOCK_SECRET}|us-east-1"),
               "base_url": mock.scenario_url("tag=aws"), "models": format!("{claude},amazon.nova-pro-v1:0")}),
    )
    .await;
    // Claude through InvokeModel, signed.
    let reply = test(app, &root, id, None).await;
    assert!(reply.success(), "{}", reply.body);
    assert_eq!(reply.data()["model"], json!(claude));
    let invoke = last(&mock, "aws");
    assert!(invoke.path.ends_with("/invoke"), "{}", invoke.path);
    assert!(invoke.model.as_deref().unwrap().ends_with(claude));
    assert_eq!(carrier(&invoke), ("sigv4".into(), MOCK_ACCESS_KEY.into()));
    // Other models through Converse.
    let reply = test(app, &root, id, Some("amazon.nova-pro-v1:0")).await;
    assert!(reply.success(), "{}", reply.body);
    let converse = last(&mock, "aws");
    assert_eq!(converse.path, "/model/amazon.nova-pro-v1%3A0/converse");
    assert_eq!(carrier(&converse), ("sigv4".into(), MOCK_ACCESS_KEY.into()));

    // ListFoundationModels, text models only, signed the same way.
    assert_eq!(
        models(app, &root, id).await,
        [
            claude,
            "amazon.nova-pro-v1:0",
            "meta.llama3-8b-instruct-v1:0"
        ]
    );
    let list = last(&mock, "aws");
    assert_eq!(list.path, "/foundation-models");
    assert_eq!(list.query.as_deref(), Some("byOutputModality=TEXT"));
    assert_eq!(carrier(&list), ("sigv4".into(), MOCK_ACCESS_KEY.into()));

    // A Bedrock API key is sent as a bearer token.
    let keyed = create(
        app,
        &root,
        "bedrock-api-key",
        json!({"type": 33, "key": "ABSKmocktestkey|us-west-2",
               "base_url": mock.scenario_url("tag=awskey"), "models": "amazon.nova-pro-v1:0"}),
    )
    .await;
    let reply = test(app, &root, keyed, None).await;
    assert!(reply.success(), "{}", reply.body);
    assert_eq!(
        carrier(&last(&mock, "awskey")),
        ("authorization".into(), "Bearer ABSKmocktestkey".into())
    );
    assert_eq!(models(app, &root, keyed).await.len(), 3);

    // A wrong secret: the signature does not match, AWS answers 403. Not an auto-disable
    // status by default, so the channel stays on.
    app.set_option("AutomaticDisableChannelEnabled", "true")
        .await;
    let wrong_secret = create(
        app,
        &root,
        "bedrock-wrong-secret",
        json!({"type": 33, "key": format!("{MOCK_ACCESS_KEY}|not-the-secret|us-east-1"),
               "base_url": mock.scenario_url("tag=awsbad"), "models": "amazon.nova-pro-v1:0"}),
    )
    .await;
    let failed = test(app, &root, wrong_secret, None).await;
    assert_eq!(failed.body["success"], json!(false), "{}", failed.body);
    assert!(failed.message().contains("403"), "{}", failed.body);
    assert!(
        failed
            .message()
            .contains("The request signature we calculated does not match"),
        "{}",
        failed.body
    );
    assert_eq!(status(app, &root, wrong_secret).await, 1);
    let fetch = app
        .get(&format!("/api/channel/fetch_models/{wrong_secret}"))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(fetch.body["success"], json!(false));
    assert!(fetch.message().contains("403"), "{}", fetch.body);

    // An unknown access key: AWS's message is one of the auto-disable keywords.
    let unknown = create(
        app,
        &root,
        "bedrock-unknown-key",
        json!({"type": 33, "key": format!("AKIDSOMEONEELSE|{MOCK_SECRET}|us-east-1"),
               "base_url": mock.scenario_url("tag=awsunknown"), "models": "amazon.nova-pro-v1:0"}),
    )
    .await;
    let failed = test(app, &root, unknown, None).await;
    assert!(
        failed
            .message()
            .contains("The security token included in the request is invalid"),
        "{}",
        failed.body
    );
    assert_eq!(status(app, &root, unknown).await, 3, "auto-disabled");
    mock.stop();
}

async fn vertex(app: &TestApp) {
    let root = app.root().await;
    let mock = mock().await;
    let key = mock_provider::test_service_account_json(&format!("{}/token", mock.url()));
    let project = mock_provider::TEST_PROJECT_ID;
    let id = create(
        app,
        &root,
        "vertex",
        json!({"type": 41, "key": key, "base_url": mock.scenario_url("tag=gcp"),
               "other": "us-central1", "models": "gemini-2.5-flash,claude-sonnet-4-5@20250929"}),
    )
    .await;
    let reply = test(app, &root, id, None).await;
    assert!(reply.success(), "{}", reply.body);
    let gemini = last(&mock, "gcp");
    assert_eq!(
        gemini.path,
        format!(
            "/v1/projects/{project}/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent"
        )
    );
    let (name, bearer) = carrier(&gemini);
    assert_eq!(name, "authorization");
    assert!(bearer.starts_with("Bearer "), "{bearer}");
    assert_eq!(mock.token_calls(), 1, "the signed assertion was exchanged");

    // Claude models through rawPredict with Vertex's anthropic_version.
    let reply = test(app, &root, id, Some("claude-sonnet-4-5@20250929")).await;
    assert!(reply.success(), "{}", reply.body);
    let claude = last(&mock, "gcp");
    assert_eq!(
        claude.path,
        format!(
            "/v1/projects/{project}/locations/us-central1/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict"
        )
    );
    assert_eq!(
        claude.anthropic_version.as_deref(),
        Some(mock_provider::VERTEX_ANTHROPIC_VERSION)
    );

    // Google's publisher models, every page, Gemini and embedding models kept.
    let before = seen(&mock, "gcp").len();
    assert_eq!(
        models(app, &root, id).await,
        [
            "gemini-2.5-flash",
            "gemini-2.5-pro",
            "text-embedding-005",
            "gemini-embedding-001"
        ]
    );
    let pages = &seen(&mock, "gcp")[before..];
    assert_eq!(pages.len(), 3, "five models, two a page");
    for page in pages {
        assert_eq!(page.path, "/v1beta1/publishers/google/models");
        assert_eq!(carrier(page).0, "authorization");
    }
    assert_eq!(pages[1].query.as_deref(), Some("pageSize=100&pageToken=2"));

    // Express mode: an API key, Google's models only.
    let express = create(
        app,
        &root,
        "vertex-express",
        json!({"type": 41, "key": "AIza-mock-key", "setting": r#"{"vertex_key_type":"api_key"}"#,
               "base_url": mock.scenario_url("tag=gcpkey"), "models": "gemini-2.5-flash"}),
    )
    .await;
    let reply = test(app, &root, express, None).await;
    assert!(reply.success(), "{}", reply.body);
    let call = last(&mock, "gcpkey");
    assert_eq!(
        call.path,
        "/v1/publishers/google/models/gemini-2.5-flash:generateContent"
    );
    assert_eq!(
        carrier(&call),
        ("x-goog-api-key".into(), "AIza-mock-key".into())
    );
    assert_eq!(models(app, &root, express).await.len(), 4);

    // The token endpoint refuses the assertion: the test fails with its answer.
    let refusing = mock_provider::test_service_account_json(&format!(
        "{}/token",
        mock.scenario_url("tag=tok,status=400")
    ));
    let refused = create(
        app,
        &root,
        "vertex-refused",
        json!({"type": 41, "key": refusing, "base_url": mock.scenario_url("tag=gcpno"),
               "models": "gemini-2.5-flash"}),
    )
    .await;
    let failed = test(app, &root, refused, None).await;
    assert_eq!(failed.body["success"], json!(false), "{}", failed.body);
    assert!(failed.message().contains("400"), "{}", failed.body);
    assert!(
        failed.message().contains("invalid_grant"),
        "{}",
        failed.body
    );
    assert!(seen(&mock, "gcpno").is_empty(), "no call without a token");
    mock.stop();
}

on_both_backends!(azure, bedrock, vertex);
