//! API tokens: creation (single and batch), keys encrypted at rest and masked everywhere but
//! the creation answer and the owner's explicit key call, list/search/get scoped to the owner,
//! full and status-only updates with the enable rules, deletion.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use axum::http::StatusCode;
use common::TestApp;
use serde_json::{Value, json};

fn token_body(name: &str) -> Value {
    json!({"name": name, "remain_quota": 500000, "expired_time": -1, "unlimited_quota": false})
}

/// The masked form lists show: `sk-`, the first and last four characters, ten stars.
fn masked(key: &str) -> String {
    format!("sk-{}**********{}", &key[3..7], &key[key.len() - 4..])
}

/// Every `key` of a list reply is masked and none is a whole key.
fn assert_all_masked(reply: &common::Reply, whole_keys: &[String]) {
    let items = reply.data()["items"].as_array().unwrap();
    assert!(!items.is_empty(), "{}", reply.body);
    for item in items {
        let key = item["key"].as_str().unwrap();
        assert!(
            key.starts_with("sk-") && key.len() == 21 && key[7..17] == *"**********",
            "{key}"
        );
    }
    let body = reply.body.to_string();
    for whole in whole_keys {
        assert!(!body.contains(&whole[3..]), "a whole key in {body}");
    }
}

async fn create_and_read(app: &TestApp) {
    let root = app.root().await;
    let user = app.user(&root, "tokenuser").await;
    let created = app
        .post("/api/token/", token_body("first"))
        .signed_in(&user)
        .send()
        .await;
    assert!(created.success(), "{}", created.body);
    let token = &created.data()[0];
    let key = token["key"].as_str().unwrap();
    assert!(key.starts_with("sk-") && key.len() == 51, "{key}");
    assert!(key[3..].chars().all(|c| c.is_ascii_alphanumeric()));
    assert_eq!(token["status"], json!(1));
    assert_eq!(token["remain_quota"], json!(500000));
    assert_eq!(token["expired_time"], json!(-1));

    let (key_enc, key_hash): (String, String) =
        sqlx::query_as("SELECT key_enc, key_hash FROM tokens WHERE id = $1")
            .bind(token["id"].as_i64().unwrap())
            .fetch_one(&app.db().pool)
            .await
            .unwrap();
    assert!(!key_enc.contains(&key[3..]), "the key is encrypted at rest");
    assert_eq!(key_hash, control_plane::domain::tokens::key_hash(key));

    let id = token["id"].as_i64().unwrap();
    let got = app
        .get(&format!("/api/token/{id}"))
        .signed_in(&user)
        .send()
        .await;
    assert_eq!(got.data()["key"], json!(masked(key)));
    // Another user cannot see it.
    let other = app.user(&root, "other").await;
    app.get(&format!("/api/token/{id}"))
        .signed_in(&other)
        .send()
        .await
        .assert_rejected("the token does not exist");
    let others_list = app.get("/api/token/").signed_in(&other).send().await;
    assert_eq!(others_list.data()["total"], json!(0));

    let found = app
        .get(&format!("/api/token/search?token={key}"))
        .signed_in(&user)
        .send()
        .await;
    assert_eq!(found.data()["total"], json!(1));
    assert_eq!(found.data()["items"][0]["key"], json!(masked(key)));
    let not_found = app
        .get(&format!("/api/token/search?token={key}"))
        .signed_in(&other)
        .send()
        .await;
    assert_eq!(not_found.data()["total"], json!(0));
}

async fn batch_and_validation(app: &TestApp) {
    let root = app.root().await;
    let user = app.user(&root, "batcher").await;
    let mut body = token_body("ci");
    body["count"] = json!(3);
    let created = app.post("/api/token/", body).signed_in(&user).send().await;
    let names: Vec<&str> = created
        .data()
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 3);
    assert_eq!(names[0], "ci");
    assert!(
        names[1..]
            .iter()
            .all(|n| n.starts_with("ci-") && n.len() == 9),
        "{names:?}"
    );

    let mut zero = token_body("ci");
    zero["count"] = json!(0);
    app.post("/api/token/", zero)
        .signed_in(&user)
        .send()
        .await
        .assert_rejected("the number of tokens must be a whole number from 1 to 100");
    app.post("/api/token/", token_body(" "))
        .signed_in(&user)
        .zh()
        .send()
        .await
        .assert_rejected("请输入令牌名称");
    let mut bad_expiry = token_body("x");
    bad_expiry["expired_time"] = json!(0);
    app.post("/api/token/", bad_expiry)
        .signed_in(&user)
        .zh()
        .send()
        .await
        .assert_rejected("过期时间格式错误");
    let mut bad_ips = token_body("x");
    bad_ips["allow_ips"] = json!("10.0.0.1\nnope");
    app.post("/api/token/", bad_ips)
        .signed_in(&user)
        .send()
        .await
        .assert_rejected("not an IP address or CIDR range: nope");
    let mut svip = token_body("x");
    svip["group"] = json!("svip");
    app.post("/api/token/", svip)
        .signed_in(&user)
        .send()
        .await
        .assert_rejected("you have no access to group svip");
    let mut vip = token_body("vip-token");
    vip["group"] = json!("vip");
    vip["allow_ips"] = json!("10.0.0.0/8\n\n::1");
    vip["model_limits_enabled"] = json!(true);
    vip["model_limits"] = json!("gpt-4o, gpt-4o ,claude-sonnet-4");
    let ok = app.post("/api/token/", vip).signed_in(&user).send().await;
    assert!(ok.success(), "{}", ok.body);
    assert_eq!(ok.data()[0]["allow_ips"], json!("10.0.0.0/8\n::1"));
    assert_eq!(
        ok.data()[0]["model_limits"],
        json!("gpt-4o,claude-sonnet-4")
    );

    let page = app
        .get("/api/token/?p=1&size=2")
        .signed_in(&user)
        .send()
        .await;
    assert_eq!(page.data()["total"], json!(4));
    assert_eq!(page.data()["items"].as_array().unwrap().len(), 2);
    let search = app
        .get("/api/token/search?keyword=CI")
        .signed_in(&user)
        .send()
        .await;
    assert_eq!(search.data()["total"], json!(3));
}

async fn status_rules_update_and_delete(app: &TestApp) {
    let root = app.root().await;
    let user = app.user(&root, "updater").await;
    let created = app
        .post("/api/token/", token_body("t"))
        .signed_in(&user)
        .send()
        .await;
    let id = created.data()[0]["id"].as_i64().unwrap();

    let disabled = app
        .put(
            "/api/token/?status_only=true",
            json!({"id": id, "status": 2}),
        )
        .signed_in(&user)
        .send()
        .await;
    assert_eq!(disabled.data()["status"], json!(2));
    app.put(
        "/api/token/?status_only=true",
        json!({"id": id, "status": 7}),
    )
    .signed_in(&user)
    .send()
    .await
    .assert_rejected("invalid status");
    let enabled = app
        .put(
            "/api/token/?status_only=true",
            json!({"id": id, "status": 1}),
        )
        .signed_in(&user)
        .send()
        .await;
    assert_eq!(enabled.data()["status"], json!(1));

    // Full update: an expiry in the past reads as expired and cannot be enabled.
    let past = control_plane::store::now() - 10;
    let mut body = token_body("renamed");
    body["id"] = json!(id);
    body["expired_time"] = json!(past);
    body["status"] = json!(1);
    app.put("/api/token/", body.clone()).signed_in(&user).send().await
        .assert_rejected("the token has expired and cannot be enabled; change its expiry time first or make it never expire");
    body["status"] = json!(2);
    let saved = app.put("/api/token/", body).signed_in(&user).send().await;
    assert!(saved.success(), "{}", saved.body);
    assert_eq!(saved.data()["name"], json!("renamed"));
    app.put(
        "/api/token/?status_only=true",
        json!({"id": id, "status": 1}),
    )
    .signed_in(&user)
    .zh()
    .send()
    .await
    .assert_rejected("令牌已过期，无法启用，请先修改令牌过期时间，或者设置为永不过期");

    let mut exhausted = token_body("empty");
    exhausted["id"] = json!(id);
    exhausted["remain_quota"] = json!(0);
    exhausted["status"] = json!(1);
    app.put("/api/token/", exhausted.clone()).signed_in(&user).send().await
        .assert_rejected("the token's quota is used up and it cannot be enabled; raise its remaining quota or make it unlimited first");
    exhausted["unlimited_quota"] = json!(true);
    let unlimited = app
        .put("/api/token/", exhausted)
        .signed_in(&user)
        .send()
        .await;
    assert_eq!(unlimited.data()["status"], json!(1));
    assert_eq!(unlimited.data()["unlimited_quota"], json!(true));

    let other = app.user(&root, "intruder").await;
    app.delete(&format!("/api/token/{id}/"))
        .signed_in(&other)
        .send()
        .await
        .assert_rejected("the token does not exist");
    assert!(
        app.delete(&format!("/api/token/{id}/"))
            .signed_in(&user)
            .send()
            .await
            .success()
    );
    app.delete(&format!("/api/token/{id}/"))
        .signed_in(&user)
        .send()
        .await
        .assert_rejected("the token does not exist");
    assert_eq!(
        app.get("/api/token/").signed_in(&user).send().await.data()["total"],
        json!(0)
    );
}

/// Lists, searches, reads and updates show masked keys; the owner reads the whole key through
/// `POST /api/token/{id}/key`; nobody else does, administrators included.
async fn keys_are_masked_and_read_by_their_owner_only(app: &TestApp) {
    let root = app.root().await;
    let user = app.user(&root, "keyowner").await;
    let mut body = token_body("owned");
    body["count"] = json!(3);
    let created = app.post("/api/token/", body).signed_in(&user).send().await;
    assert!(created.success(), "{}", created.body);
    // The creation answer shows the new keys once, whole.
    let tokens: Vec<(i64, String)> = created
        .data()
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let key = t["key"].as_str().unwrap().to_string();
            assert!(key.starts_with("sk-") && key.len() == 51, "{key}");
            (t["id"].as_i64().unwrap(), key)
        })
        .collect();
    let keys: Vec<String> = tokens.iter().map(|(_, k)| k.clone()).collect();
    let (id, key) = tokens[0].clone();

    for path in [
        "/api/token/".to_string(),
        "/api/token/?p=1&size=2".to_string(),
        "/api/token/search?keyword=owned".to_string(),
        format!("/api/token/search?token={key}"),
        format!("/api/token/search?token={}", &key[3..]),
    ] {
        let reply = app.get(&path).signed_in(&user).send().await;
        assert!(reply.success(), "{path}: {}", reply.body);
        assert_all_masked(&reply, &keys);
    }
    let got = app
        .get(&format!("/api/token/{id}"))
        .signed_in(&user)
        .send()
        .await;
    assert_eq!(got.data()["key"], json!(masked(&key)));
    let mut edit = token_body("owned-renamed");
    edit["id"] = json!(id);
    let updated = app.put("/api/token/", edit).signed_in(&user).send().await;
    assert_eq!(updated.data()["key"], json!(masked(&key)));
    let status = app
        .put(
            "/api/token/?status_only=true",
            json!({"id": id, "status": 2}),
        )
        .signed_in(&user)
        .send()
        .await;
    assert_eq!(status.data()["key"], json!(masked(&key)));

    // The owner's explicit call: the whole key, not cacheable.
    for (id, key) in &tokens {
        let reply = app
            .post(&format!("/api/token/{id}/key"), json!({}))
            .signed_in(&user)
            .send()
            .await;
        assert!(reply.success(), "{}", reply.body);
        assert_eq!(reply.data(), &json!({"key": key}));
        assert_eq!(
            reply.headers.get("cache-control").unwrap(),
            "no-store",
            "the key is not kept by caches"
        );
    }

    // Another user, an administrator and the root user get 404 and no key.
    let other = app.user(&root, "keythief").await;
    let admin = app.admin(&root, "keyadmin").await;
    for session in [&other, &admin, &root] {
        let reply = app
            .post(&format!("/api/token/{id}/key"), json!({}))
            .signed_in(session)
            .send()
            .await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{}", reply.body);
        assert!(!reply.success());
        assert!(!reply.body.to_string().contains(&key[3..]));
    }
    // Unknown and deleted tokens are 404 too; anonymous callers 401.
    let missing = app
        .post("/api/token/999999/key", json!({}))
        .signed_in(&user)
        .send()
        .await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert!(
        app.delete(&format!("/api/token/{id}/"))
            .signed_in(&user)
            .send()
            .await
            .success()
    );
    let deleted = app
        .post(&format!("/api/token/{id}/key"), json!({}))
        .signed_in(&user)
        .send()
        .await;
    assert_eq!(deleted.status, StatusCode::NOT_FOUND);
    let anonymous = app
        .post(&format!("/api/token/{}/key", tokens[1].0), json!({}))
        .send()
        .await;
    assert_eq!(anonymous.status, StatusCode::UNAUTHORIZED);
}

on_both_backends!(
    create_and_read,
    keys_are_masked_and_read_by_their_owner_only,
    batch_and_validation,
    status_rules_update_and_delete
);
