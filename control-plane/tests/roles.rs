//! The role matrix: every route of this scope called as anonymous, user, admin and root.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use axum::http::{Method, StatusCode};
use common::{Session, TestApp};
use serde_json::{Value, json};

/// Who calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Who {
    Anonymous,
    User,
    Admin,
    Root,
}

/// The lowest role a route needs.
#[derive(Debug, Clone, Copy)]
enum Needs {
    Nobody,
    User,
    Admin,
    Root,
}

fn allowed(needs: Needs, who: Who) -> bool {
    match needs {
        Needs::Nobody => true,
        Needs::User => who >= Who::User,
        Needs::Admin => who >= Who::Admin,
        Needs::Root => who == Who::Root,
    }
}

fn routes(target: i64) -> Vec<(Method, String, Option<Value>, Needs)> {
    vec![
        (Method::GET, "/api/status".into(), None, Needs::Nobody),
        (Method::GET, "/api/about".into(), None, Needs::Nobody),
        (
            Method::GET,
            "/api/home_page_content".into(),
            None,
            Needs::Nobody,
        ),
        (Method::GET, "/api/setup".into(), None, Needs::Nobody),
        (Method::GET, "/api/openapi.json".into(), None, Needs::Nobody),
        (Method::GET, "/api/user/self".into(), None, Needs::User),
        (
            Method::PUT,
            "/api/user/self".into(),
            Some(json!({})),
            Needs::User,
        ),
        (Method::GET, "/api/user/token".into(), None, Needs::User),
        (Method::GET, "/api/user/aff".into(), None, Needs::User),
        (Method::GET, "/api/user/models".into(), None, Needs::User),
        (
            Method::GET,
            "/api/user/self/groups".into(),
            None,
            Needs::User,
        ),
        (Method::GET, "/api/token/".into(), None, Needs::User),
        (
            Method::GET,
            "/api/token/search?keyword=x".into(),
            None,
            Needs::User,
        ),
        (Method::GET, "/api/token/999".into(), None, Needs::User),
        (
            Method::POST,
            "/api/token/".into(),
            Some(json!({"name": ""})),
            Needs::User,
        ),
        (
            Method::PUT,
            "/api/token/".into(),
            Some(json!({"id": 999})),
            Needs::User,
        ),
        (Method::DELETE, "/api/token/999/".into(), None, Needs::User),
        (
            Method::POST,
            "/api/user/topup".into(),
            Some(json!({"key": ""})),
            Needs::User,
        ),
        (
            Method::GET,
            "/api/user/check_in_status".into(),
            None,
            Needs::User,
        ),
        (Method::POST, "/api/user/check_in".into(), None, Needs::User),
        (
            Method::POST,
            "/api/user/aff_transfer".into(),
            Some(json!({"quota": 0})),
            Needs::User,
        ),
        (
            Method::PUT,
            "/api/user/setting".into(),
            Some(json!({"notify_type": "email"})),
            Needs::User,
        ),
        (Method::GET, "/api/channel/".into(), None, Needs::Admin),
        (
            Method::GET,
            "/api/channel/search?keyword=x".into(),
            None,
            Needs::Admin,
        ),
        (Method::GET, "/api/channel/999".into(), None, Needs::Admin),
        (
            Method::POST,
            "/api/channel/".into(),
            Some(json!({"name": ""})),
            Needs::Admin,
        ),
        (
            Method::PUT,
            "/api/channel/".into(),
            Some(json!({"id": 999})),
            Needs::Admin,
        ),
        (
            Method::DELETE,
            "/api/channel/999/".into(),
            None,
            Needs::Admin,
        ),
        (
            Method::POST,
            "/api/channel/batch".into(),
            Some(json!({"ids": []})),
            Needs::Admin,
        ),
        (
            Method::POST,
            "/api/channel/batch/tag".into(),
            Some(json!({"ids": []})),
            Needs::Admin,
        ),
        (
            Method::PUT,
            "/api/channel/tag".into(),
            Some(json!({"tag": ""})),
            Needs::Admin,
        ),
        (
            Method::POST,
            "/api/channel/tag/enabled".into(),
            Some(json!({"tag": ""})),
            Needs::Admin,
        ),
        (
            Method::POST,
            "/api/channel/tag/disabled".into(),
            Some(json!({"tag": ""})),
            Needs::Admin,
        ),
        (
            Method::GET,
            "/api/channel/models".into(),
            None,
            Needs::Admin,
        ),
        (
            Method::GET,
            "/api/channel/models_enabled".into(),
            None,
            Needs::Admin,
        ),
        (
            Method::GET,
            "/api/channel/test/999".into(),
            None,
            Needs::Admin,
        ),
        (Method::GET, "/api/channel/test".into(), None, Needs::Admin),
        (
            Method::GET,
            "/api/channel/update_balance/999/".into(),
            None,
            Needs::Admin,
        ),
        (
            Method::GET,
            "/api/channel/update_balance".into(),
            None,
            Needs::Admin,
        ),
        (
            Method::GET,
            "/api/channel/fetch_models/999".into(),
            None,
            Needs::Admin,
        ),
        (
            Method::POST,
            "/api/channel/fetch_models".into(),
            Some(json!({"key": ""})),
            Needs::Admin,
        ),
        (Method::POST, "/api/channel/fix".into(), None, Needs::Admin),
        (
            Method::POST,
            "/api/channel/copy/999999".into(),
            None,
            Needs::Admin,
        ),
        (Method::GET, "/api/log/self/".into(), None, Needs::User),
        (Method::GET, "/api/log/self/stat".into(), None, Needs::User),
        (Method::GET, "/api/data/self".into(), None, Needs::User),
        (Method::GET, "/api/log/".into(), None, Needs::Admin),
        (Method::GET, "/api/log/stat".into(), None, Needs::Admin),
        (Method::GET, "/api/data/".into(), None, Needs::Admin),
        (Method::GET, "/api/data/users".into(), None, Needs::Admin),
        (
            Method::DELETE,
            "/api/log/?target_timestamp=1".into(),
            None,
            Needs::Root,
        ),
        (Method::GET, "/api/pricing".into(), None, Needs::Nobody),
        (Method::GET, "/api/models".into(), None, Needs::User),
        (
            Method::POST,
            "/api/user/amount".into(),
            Some(json!({"amount": 0})),
            Needs::User,
        ),
        (
            Method::POST,
            "/api/user/pay".into(),
            Some(json!({"amount": 0})),
            Needs::User,
        ),
        (
            Method::GET,
            "/api/user/topup/self".into(),
            None,
            Needs::User,
        ),
        (Method::GET, "/api/user/topup".into(), None, Needs::Admin),
        (Method::GET, "/api/models/unset".into(), None, Needs::Admin),
        (
            Method::POST,
            "/api/option/rest_model_ratio".into(),
            None,
            Needs::Root,
        ),
        (Method::GET, "/api/redemption/".into(), None, Needs::Admin),
        (
            Method::GET,
            "/api/redemption/search?keyword=x".into(),
            None,
            Needs::Admin,
        ),
        (
            Method::GET,
            "/api/redemption/999".into(),
            None,
            Needs::Admin,
        ),
        (
            Method::POST,
            "/api/redemption/".into(),
            Some(json!({"quota": 0})),
            Needs::Admin,
        ),
        (
            Method::PUT,
            "/api/redemption/".into(),
            Some(json!({"id": 999})),
            Needs::Admin,
        ),
        (
            Method::DELETE,
            "/api/redemption/999/".into(),
            None,
            Needs::Admin,
        ),
        (
            Method::PUT,
            "/api/redemption/batch-disable".into(),
            Some(json!({"ids": []})),
            Needs::Admin,
        ),
        (
            Method::DELETE,
            "/api/redemption/delete-disabled".into(),
            None,
            Needs::Admin,
        ),
        (
            Method::GET,
            "/api/redemption/count-by-name?name=x".into(),
            None,
            Needs::Admin,
        ),
        (
            Method::DELETE,
            "/api/redemption/delete-by-name?name=x".into(),
            None,
            Needs::Admin,
        ),
        (Method::GET, "/api/user/".into(), None, Needs::Admin),
        (
            Method::GET,
            "/api/user/search?keyword=x".into(),
            None,
            Needs::Admin,
        ),
        (
            Method::GET,
            format!("/api/user/{target}"),
            None,
            Needs::Admin,
        ),
        (
            Method::POST,
            "/api/user/".into(),
            Some(json!({"username": "", "password": ""})),
            Needs::Admin,
        ),
        (
            Method::PUT,
            "/api/user/".into(),
            Some(json!({"id": target})),
            Needs::Admin,
        ),
        (
            Method::POST,
            "/api/user/manage".into(),
            Some(json!({"id": target, "action": "enable"})),
            Needs::Admin,
        ),
        (Method::GET, "/api/group/".into(), None, Needs::Admin),
        (Method::GET, "/api/option/".into(), None, Needs::Root),
        (
            Method::PUT,
            "/api/option/".into(),
            Some(json!({"key": "Notice", "value": "hello"})),
            Needs::Root,
        ),
    ]
}

async fn role_matrix(app: &TestApp) {
    let root = app.root().await;
    let admin = app.admin(&root, "admin1").await;
    let user = app.user(&root, "user1").await;
    let target = app.user(&root, "target").await;
    let callers: [(Who, Option<&Session>); 4] = [
        (Who::Anonymous, None),
        (Who::User, Some(&user)),
        (Who::Admin, Some(&admin)),
        (Who::Root, Some(&root)),
    ];
    for (method, path, body, needs) in routes(target.user_id) {
        for (who, session) in callers {
            let mut req = app.req(method.clone(), &path);
            if let Some(body) = &body {
                req = req.json(body.clone());
            }
            if let Some(session) = session {
                req = req.signed_in(session);
            }
            let reply = req.send().await;
            let expected = if allowed(needs, who) {
                StatusCode::OK
            } else if who == Who::Anonymous {
                StatusCode::UNAUTHORIZED
            } else {
                StatusCode::FORBIDDEN
            };
            assert_eq!(
                reply.status, expected,
                "{method} {path} as {who:?}: {}",
                reply.body
            );
            if expected != StatusCode::OK {
                assert_eq!(
                    reply.body["success"],
                    json!(false),
                    "{method} {path} as {who:?}"
                );
                assert!(!reply.message().is_empty());
            }
        }
    }
    // Logout would end the sessions used above (it is tested in accounts.rs); DELETE self last.
    let del = app.delete("/api/user/self").send().await;
    assert_eq!(del.status, StatusCode::UNAUTHORIZED);
    assert!(
        app.delete("/api/user/self")
            .signed_in(&user)
            .send()
            .await
            .success()
    );
}

async fn unknown_api_paths_are_404_envelopes(app: &TestApp) {
    let root = app.root().await;
    let reply = app.get("/api/no/such/route").signed_in(&root).send().await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    assert_eq!(reply.body["success"], json!(false));
    let zh = app.get("/api/no/such/route").zh().send().await;
    assert_eq!(zh.message(), "未找到");
    let wrong_type = app
        .req(Method::PUT, "/api/option/")
        .signed_in(&root)
        .raw_body("text/plain", "key=Notice")
        .send()
        .await;
    assert_eq!(wrong_type.status, StatusCode::BAD_REQUEST);
    assert_eq!(wrong_type.body["success"], json!(false));
}

on_both_backends!(role_matrix, unknown_api_paths_are_404_envelopes);
