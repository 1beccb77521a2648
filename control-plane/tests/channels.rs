//! Channels: create (single, batch, multi-key), keys encrypted and never returned, validation,
//! partial updates, abilities, listing with id sort and tag mode, search, tags, deletes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Session, TestApp};
use serde_json::{Value, json};

fn channel(name: &str) -> Value {
    json!({"type": 1, "name": name, "key": "sk-upstream-secret-1", "models": "gpt-4o,gpt-4o-mini", "group": "default,vip"})
}

async fn create(app: &TestApp, root: &Session, body: Value) -> Vec<i64> {
    let reply = app.post("/api/channel/", body).signed_in(root).send().await;
    assert!(reply.success(), "{}", reply.body);
    serde_json::from_value(reply.data().clone()).unwrap()
}

async fn abilities(app: &TestApp, channel_id: i64) -> Vec<(String, String, i64)> {
    sqlx::query_as("SELECT \"group\", model, enabled FROM abilities WHERE channel_id = $1 ORDER BY \"group\", model")
        .bind(channel_id)
        .fetch_all(&app.db().pool)
        .await
        .unwrap()
}

async fn create_validate_and_keep_keys_secret(app: &TestApp) {
    let root = app.root().await;
    let post = |body| app.post("/api/channel/", body).signed_in(&root);
    post(json!({"name": "x", "models": "m"}))
        .zh()
        .send()
        .await
        .assert_rejected("请填写渠道名称和渠道密钥！");
    post(json!({"key": "k", "models": "m"}))
        .send()
        .await
        .assert_rejected("please fill in the channel name and key");
    post(json!({"name": "x", "key": "k", "models": " , "}))
        .send()
        .await
        .assert_rejected("please choose at least one model");
    post(json!({"name": "x", "key": "k", "models": "m", "model_mapping": "{bad"}))
        .send()
        .await
        .assert_rejected("model_mapping must be valid JSON");
    post(json!({"name": "x", "key": "k", "models": "m", "setting": "[1]"}))
        .send()
        .await
        .assert_rejected("setting must be valid JSON");
    post(json!({"name": "x", "key": "k", "models": "m", "param_override": "nope"}))
        .send()
        .await
        .assert_rejected("param_override must be valid JSON");
    post(json!({"name": "x", "key": "k", "models": "m", "priority": -1000}))
        .send()
        .await
        .assert_rejected("the priority must be an integer of at least -999");
    post(json!({"name": "x", "key": "k", "models": "m", "weight": -1}))
        .send()
        .await
        .assert_rejected("the weight must be a non-negative integer");
    post(json!({"name": "x", "key": "k", "models": "m", "type": 29}))
        .send()
        .await
        .assert_rejected("unknown channel type 29");
    post(json!({"name": "x", "key": "{}", "models": "m", "type": 41, "other": "{bad"}))
        .send()
        .await
        .assert_rejected("the region must be plain text or a JSON object");

    let mut body = channel("main");
    body["base_url"] = json!("https://api.example.com///");
    let id = create(app, &root, body).await[0];
    let got = app
        .get(&format!("/api/channel/{id}"))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(got.data()["base_url"], json!("https://api.example.com"));
    assert_eq!(got.data()["key_count"], json!(1));
    assert_eq!(
        got.data()["served"],
        json!(true),
        "the gateway relays OpenAI"
    );
    assert!(got.data().get("key").is_none());
    assert!(!got.body.to_string().contains("sk-upstream-secret-1"));
    let list = app.get("/api/channel/").signed_in(&root).send().await;
    assert!(
        !list.body.to_string().contains("sk-upstream-secret-1"),
        "keys never in lists"
    );
    let mut xunfei = channel("xunfei");
    xunfei["type"] = json!(18);
    xunfei["key"] = json!("app|secret|key");
    let xunfei_id = create(app, &root, xunfei).await[0];
    let got = app
        .get(&format!("/api/channel/{xunfei_id}"))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(
        got.data()["served"],
        json!(false),
        "the gateway has no adapter for Xunfei's WebSocket API"
    );
    let list = app.get("/api/channel/").signed_in(&root).send().await;
    let served: Vec<(&str, bool)> = list.data()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap(), c["served"].as_bool().unwrap()))
        .collect();
    assert!(served.contains(&("main", true)) && served.contains(&("xunfei", false)));
    let stored: String = sqlx::query_scalar("SELECT key_enc FROM channels WHERE id = $1")
        .bind(id)
        .fetch_one(&app.db().pool)
        .await
        .unwrap();
    assert!(
        !stored.contains("sk-upstream-secret-1"),
        "encrypted at rest"
    );
    assert_eq!(
        abilities(app, id).await,
        vec![
            ("default".into(), "gpt-4o".into(), 1),
            ("default".into(), "gpt-4o-mini".into(), 1),
            ("vip".into(), "gpt-4o".into(), 1),
            ("vip".into(), "gpt-4o-mini".into(), 1)
        ]
    );

    // Wrapped creation modes: one channel per key, or one multi-key channel.
    let mut batch = channel("batch");
    batch["key"] = json!("k1\nk2\nk3");
    let ids = create(
        app,
        &root,
        json!({"mode": "batch", "channel": batch.clone()}),
    )
    .await;
    assert_eq!(ids.len(), 3);
    let ids = create(
        app,
        &root,
        json!({"mode": "multi_to_single", "multi_key_mode": "polling", "channel": batch}),
    )
    .await;
    let multi = app
        .get(&format!("/api/channel/{}", ids[0]))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(multi.data()["key_count"], json!(3));
    assert_eq!(multi.data()["multi_key_mode"], json!("polling"));
}

async fn updates_and_abilities(app: &TestApp) {
    let root = app.root().await;
    let id = create(app, &root, channel("editable")).await[0];
    let off = app
        .put("/api/channel/", json!({"id": id, "status": 2}))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(off.data()["status"], json!(2));
    assert!(
        abilities(app, id).await.iter().all(|a| a.2 == 0),
        "disabled channels serve nothing"
    );
    let partial = app
        .put(
            "/api/channel/",
            json!({"id": id, "priority": 5, "weight": 3}),
        )
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(partial.data()["priority"], json!(5));
    assert_eq!(
        partial.data()["name"],
        json!("editable"),
        "other fields stay"
    );
    let full = app
        .put("/api/channel/", json!({"id": id, "status": 1, "models": "claude-sonnet-4", "group": "svip", "key": "new-key-1\nnew-key-2"}))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(full.data()["key_count"], json!(2));
    assert_eq!(
        abilities(app, id).await,
        vec![("svip".into(), "claude-sonnet-4".into(), 1)]
    );
    let kept = app
        .put("/api/channel/", json!({"id": id, "key": ""}))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(
        kept.data()["key_count"],
        json!(2),
        "an empty key keeps the keys"
    );
    app.put("/api/channel/", json!({"id": id, "status": 7}))
        .signed_in(&root)
        .send()
        .await
        .assert_rejected("invalid status");
    app.put("/api/channel/", json!({"id": 9999, "status": 1}))
        .signed_in(&root)
        .send()
        .await
        .assert_rejected("the channel does not exist, refresh and try again");

    // Abilities wiped by hand are rebuilt by fix.
    sqlx::query("DELETE FROM abilities")
        .execute(&app.db().pool)
        .await
        .unwrap();
    let fixed = app
        .post("/api/channel/fix", json!({}))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(fixed.data(), &json!(1));
    assert_eq!(abilities(app, id).await.len(), 1);
    let enabled = app
        .get("/api/channel/models_enabled")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(enabled.data(), &json!(["claude-sonnet-4"]));
    let models = app.get("/api/channel/models").signed_in(&root).send().await;
    assert!(
        models
            .data()
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["id"] == json!("claude-sonnet-4"))
    );
}

async fn listing_search_tags_and_deletes(app: &TestApp) {
    let root = app.root().await;
    let mut ids = Vec::new();
    for (name, priority, tag) in [
        ("a", 0, ""),
        ("b", 10, "team"),
        ("c", 5, "team"),
        ("d", 1, ""),
        ("e", 2, "solo"),
    ] {
        let mut body = channel(name);
        body["priority"] = json!(priority);
        body["tag"] = json!(tag);
        if name == "d" {
            body["models"] = json!("deepseek-chat");
            body["group"] = json!("vip");
        }
        ids.push(create(app, &root, body).await[0]);
    }
    let names = |reply: &common::Reply| -> Vec<String> {
        reply.data()["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_string())
            .collect()
    };
    let by_priority = app
        .get("/api/channel/?p=1&page_size=10")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(names(&by_priority), ["b", "c", "e", "d", "a"]);
    let by_id = app
        .get("/api/channel/?id_sort=true")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(names(&by_id), ["e", "d", "c", "b", "a"]);
    let page2 = app
        .get("/api/channel/?p=2&page_size=2")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(names(&page2), ["e", "d"]);
    assert_eq!(page2.data()["total"], json!(5));
    let tagged = app
        .get("/api/channel/?tag_mode=true&p=1&page_size=2")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(
        names(&tagged),
        ["b", "c", "e"],
        "the first two groups: tag team (two channels), tag solo"
    );
    assert_eq!(tagged.data()["total"], json!(4));

    let search = |q: &str| {
        app.get(&format!("/api/channel/search?{q}"))
            .signed_in(&root)
    };
    assert_eq!(names(&search("keyword=B").send().await), ["b"]);
    assert_eq!(
        names(&search(&format!("keyword={}", ids[3])).send().await),
        ["d"]
    );
    assert_eq!(names(&search("model=deepseek").send().await), ["d"]);
    assert_eq!(names(&search("group=vip&model=gpt").send().await).len(), 4);
    assert_eq!(
        names(&search("keyword=team&tag_mode=true").send().await),
        ["b", "c"]
    );

    app.post("/api/channel/batch/tag", json!({"ids": [], "tag": "x"}))
        .signed_in(&root)
        .send()
        .await
        .assert_rejected("select channels first");
    app.post(
        "/api/channel/batch/tag",
        json!({"ids": [ids[0]], "tag": " "}),
    )
    .signed_in(&root)
    .send()
    .await
    .assert_rejected("the tag cannot be empty");
    let tagged = app
        .post(
            "/api/channel/batch/tag",
            json!({"ids": [ids[0], ids[3]], "tag": "team"}),
        )
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(tagged.data(), &json!(2));
    app.put("/api/channel/tag", json!({"tag": "team"}))
        .signed_in(&root)
        .send()
        .await
        .assert_rejected("no changes");
    app.put(
        "/api/channel/tag",
        json!({"tag": "team", "model_mapping": "{oops"}),
    )
    .signed_in(&root)
    .send()
    .await
    .assert_rejected("model_mapping must be valid JSON");
    let edited = app
        .put(
            "/api/channel/tag",
            json!({"tag": "team", "new_tag": "crew", "priority": 7, "models": "gpt-4.1"}),
        )
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(edited.data(), &json!(4));
    let crew = search("keyword=crew").send().await;
    assert!(
        crew.data()["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["priority"] == json!(7) && c["models"] == json!("gpt-4.1"))
    );
    let disabled = app
        .post("/api/channel/tag/disabled", json!({"tag": "crew"}))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(disabled.data(), &json!(4));
    assert_eq!(
        app.post("/api/channel/tag/enabled", json!({"tag": "crew"}))
            .signed_in(&root)
            .send()
            .await
            .data(),
        &json!(4)
    );
    app.post("/api/channel/tag/disabled", json!({"tag": "crew"}))
        .signed_in(&root)
        .send()
        .await;

    let removed = app
        .delete("/api/channel/disabled")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(removed.data(), &json!(4));
    app.post("/api/channel/batch", json!({"ids": []}))
        .signed_in(&root)
        .send()
        .await
        .assert_rejected("select channels first");
    assert!(
        app.delete(&format!("/api/channel/{}/", ids[4]))
            .signed_in(&root)
            .send()
            .await
            .success()
    );
    app.delete(&format!("/api/channel/{}/", ids[4]))
        .signed_in(&root)
        .send()
        .await
        .assert_rejected("the channel does not exist, refresh and try again");
    assert_eq!(
        app.get("/api/channel/")
            .signed_in(&root)
            .send()
            .await
            .data()["total"],
        json!(0)
    );
    let leftover: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM abilities")
        .fetch_one(&app.db().pool)
        .await
        .unwrap();
    assert_eq!(leftover, 0, "deleting channels removes their abilities");
}

async fn copy_keeps_settings_and_keys_and_starts_usage_afresh(app: &TestApp) {
    let root = app.root().await;
    let mut body = channel("source");
    body["key"] = json!("sk-a\nsk-b");
    body["priority"] = json!(7);
    let id = create(app, &root, body).await[0];
    sqlx::query("UPDATE channels SET used_quota = 500, balance = 12.5 WHERE id = $1")
        .bind(id)
        .execute(&app.db().pool)
        .await
        .unwrap();
    let reply = app
        .post(&format!("/api/channel/copy/{id}"), json!({}))
        .signed_in(&root)
        .send()
        .await;
    assert!(reply.success(), "{}", reply.body);
    let copy_id = reply.data()["id"].as_i64().unwrap();
    assert_ne!(copy_id, id);
    let copy = app
        .get(&format!("/api/channel/{copy_id}"))
        .signed_in(&root)
        .send()
        .await;
    let c = copy.data();
    assert_eq!(c["name"], "source_copy");
    assert_eq!(
        (c["priority"].clone(), c["key_count"].clone()),
        (json!(7), json!(2))
    );
    assert_eq!(
        (c["used_quota"].clone(), c["balance"].clone()),
        (json!(0), json!(0.0))
    );
    assert!(
        !copy.body.to_string().contains("sk-a"),
        "keys are never returned"
    );
    assert_eq!(abilities(app, copy_id).await, abilities(app, id).await);

    let kept = app
        .post(
            &format!("/api/channel/copy/{id}?suffix=-2&reset_balance=false"),
            json!({}),
        )
        .signed_in(&root)
        .send()
        .await;
    let kept_id = kept.data()["id"].as_i64().unwrap();
    let k = app
        .get(&format!("/api/channel/{kept_id}"))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(k.data()["name"], "source-2");
    assert_eq!(
        (k.data()["used_quota"].clone(), k.data()["balance"].clone()),
        (json!(500), json!(12.5))
    );

    app.post("/api/channel/copy/999999", json!({}))
        .signed_in(&root)
        .send()
        .await
        .assert_rejected("the channel does not exist, refresh and try again");
}

/// The stored (decrypted) keys of a channel.
async fn stored_keys(app: &TestApp, id: i64) -> String {
    let enc: String = sqlx::query_scalar("SELECT key_enc FROM channels WHERE id = $1")
        .bind(id)
        .fetch_one(&app.db().pool)
        .await
        .unwrap();
    control_plane::domain::crypto::Cipher::from_secret("test-encryption-key")
        .decrypt(&enc)
        .unwrap()
}

/// Sending a stored key somewhere new needs the key: an update that changes the base URL, the
/// header override or the proxy setting without a key is refused; other changes are not.
async fn redirecting_a_key_needs_the_key(app: &TestApp) {
    let root = app.root().await;
    let mut body = channel("guarded");
    body["base_url"] = json!("https://api.example.com");
    body["header_override"] = json!("{\"X-Team\": \"a\"}");
    body["setting"] = json!("{\"proxy\": \"socks5://proxy.example:1080\", \"force_format\": true}");
    let id = create(app, &root, body).await[0];
    let refused =
        "the base URL, header override or proxy changed: enter the channel's key again to save";
    let put = |body: Value| app.put("/api/channel/", body).signed_in(&root);

    for change in [
        json!({"id": id, "base_url": "https://collector.example"}),
        json!({"id": id, "base_url": "https://collector.example", "key": ""}),
        json!({"id": id, "base_url": "https://collector.example", "key": " \n "}),
        json!({"id": id, "base_url": ""}),
        json!({"id": id, "header_override": "{\"X-Team\": \"b\"}"}),
        json!({"id": id, "header_override": ""}),
        json!({"id": id, "setting": "{\"proxy\": \"http://collector.example:8080\", \"force_format\": true}"}),
        json!({"id": id, "setting": "{\"force_format\": true}"}),
    ] {
        put(change.clone()).send().await.assert_rejected(refused);
    }
    put(json!({"id": id, "base_url": "https://collector.example"}))
        .zh()
        .send()
        .await
        .assert_rejected("修改了 Base URL、请求头覆盖或代理设置，请重新填写渠道密钥后保存");
    let kept = app
        .get(&format!("/api/channel/{id}"))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(kept.data()["base_url"], json!("https://api.example.com"));
    assert_eq!(kept.data()["header_override"], json!("{\"X-Team\": \"a\"}"));
    assert_eq!(stored_keys(app, id).await, "sk-upstream-secret-1");

    // Other fields need no key, nor does resending the same destination (as the console's
    // edit form does), reformatted or with a trailing slash, or another setting changing.
    let priority = put(json!({"id": id, "priority": 9})).send().await;
    assert!(priority.success(), "{}", priority.body);
    assert_eq!(priority.data()["priority"], json!(9));
    let same = put(json!({
        "id": id,
        "name": "guarded-renamed",
        "key": "",
        "base_url": "https://api.example.com/",
        "header_override": "{ \"X-Team\":\"a\" }",
        "setting": "{\"force_format\": false, \"proxy\": \"socks5://proxy.example:1080\"}",
        "models": "gpt-4o",
    }))
    .send()
    .await;
    assert!(same.success(), "{}", same.body);
    assert_eq!(same.data()["name"], json!("guarded-renamed"));
    assert_eq!(stored_keys(app, id).await, "sk-upstream-secret-1");

    // With the key, the destination changes (and the new key is stored).
    let moved = put(json!({
        "id": id,
        "base_url": "https://other.example",
        "header_override": "{\"X-Team\": \"b\"}",
        "setting": "{\"proxy\": \"http://proxy2.example:8080\"}",
        "key": "sk-reentered",
    }))
    .send()
    .await;
    assert!(moved.success(), "{}", moved.body);
    assert_eq!(moved.data()["base_url"], json!("https://other.example"));
    assert_eq!(stored_keys(app, id).await, "sk-reentered");
    assert!(!moved.body.to_string().contains("sk-reentered"));
}

async fn keys_of_a_multi_key_channel_are_managed_one_by_one(app: &TestApp) {
    let root = app.root().await;
    let mut body = channel("multi");
    body["key"] = json!("sk-first-key-0001\nsk-second-key-002\nsk-third-key-0003");
    let id = create(
        app,
        &root,
        json!({"mode": "multi_to_single", "multi_key_mode": "polling", "channel": body}),
    )
    .await[0];
    let manage = |action: &str, index: Option<u32>| {
        app.post(
            "/api/channel/multi_key/manage",
            json!({"channel_id": id, "action": action, "key_index": index}),
        )
        .signed_in(&root)
    };
    let got = manage("get_key_status", None).send().await;
    assert!(got.success(), "{}", got.body);
    assert_eq!(got.data()["total"], json!(3));
    assert_eq!(got.data()["enabled"], json!(3));
    assert_eq!(got.data()["keys"][1]["preview"], json!("sk-s…-002"));
    assert!(
        !got.body.to_string().contains("second-key"),
        "keys are shown as previews only"
    );

    // One key by hand: the channel stays enabled, the key is counted as disabled.
    let off = manage("disable_key", Some(1)).send().await;
    assert!(off.success(), "{}", off.body);
    assert_eq!(off.data()["keys"][1]["status"], json!(2));
    assert_eq!(off.data()["manually_disabled"], json!(1));
    assert_eq!(off.data()["channel_status"], json!(1));
    let view = app
        .get(&format!("/api/channel/{id}"))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(view.data()["disabled_key_count"], json!(1));

    // Every key off: the channel is disabled with them; one back brings it back.
    manage("disable_key", Some(0)).send().await;
    let all_off = manage("disable_key", Some(2)).send().await;
    assert_eq!(
        all_off.data()["channel_status"],
        json!(3),
        "{}",
        all_off.body
    );
    let back = manage("enable_key", Some(2)).send().await;
    assert_eq!(back.data()["channel_status"], json!(1), "{}", back.body);
    assert_eq!(back.data()["enabled"], json!(1));

    manage("disable_key", Some(7))
        .send()
        .await
        .assert_rejected("the channel has no key with this index, refresh and try again");
    manage("shuffle", None)
        .send()
        .await
        .assert_rejected("unknown key action");

    // The disabled keys are deleted from the list; the rest are renumbered and enabled.
    let pruned = manage("delete_disabled_keys", None).send().await;
    assert!(pruned.success(), "{}", pruned.body);
    assert_eq!(pruned.data()["total"], json!(1));
    assert_eq!(stored_keys(app, id).await, "sk-third-key-0003");

    // Replacing the keys starts them all enabled.
    manage("disable_key", Some(0)).send().await;
    let replaced = app
        .put(
            "/api/channel/",
            json!({"id": id, "key": "sk-new-key-000001\nsk-new-key-000002"}),
        )
        .signed_in(&root)
        .send()
        .await;
    assert!(replaced.success(), "{}", replaced.body);
    let fresh = manage("get_key_status", None).send().await;
    assert_eq!(fresh.data()["enabled"], json!(2), "{}", fresh.body);
    let all = manage("enable_all_keys", None).send().await;
    assert_eq!(all.data()["enabled"], json!(2));
}

on_both_backends!(
    keys_of_a_multi_key_channel_are_managed_one_by_one,
    create_validate_and_keep_keys_secret,
    redirecting_a_key_needs_the_key,
    updates_and_abilities,
    listing_search_tags_and_deletes,
    copy_keeps_settings_and_keys_and_starts_usage_afresh
);
