//! Redemption codes (admin calls and redeeming, also under concurrency), check-in, moving
//! invitation earnings, and notification settings.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Session, TestApp};
use futures::future::join_all;
use serde_json::json;

async fn create_codes(app: &TestApp, admin: &Session, body: serde_json::Value) -> Vec<String> {
    let reply = app
        .post("/api/redemption/", body)
        .signed_in(admin)
        .send()
        .await;
    assert!(reply.success(), "{}", reply.body);
    serde_json::from_value(reply.data().clone()).unwrap()
}

async fn quota_of(app: &TestApp, session: &Session) -> i64 {
    app.get("/api/user/self")
        .signed_in(session)
        .send()
        .await
        .data()["quota"]
        .as_i64()
        .unwrap()
}

async fn admin_calls(app: &TestApp) {
    let root = app.root().await;
    let post = |body| app.post("/api/redemption/", body).signed_in(&root);
    post(json!({"quota": 0}))
        .send()
        .await
        .assert_rejected("the quota must be a positive integer");
    post(json!({"quota": 1000, "count": 0}))
        .send()
        .await
        .assert_rejected("the number of codes must be a whole number from 1 to 100");
    post(json!({"quota": 1000, "valid_from": 200, "valid_until": 100}))
        .zh()
        .send()
        .await
        .assert_rejected("生效时间必须早于过期时间");
    post(json!({"quota": 1000, "key": "a b"}))
        .send()
        .await
        .assert_rejected(
            "a custom code must be at least 16 characters long, so that it cannot be guessed",
        );
    post(json!({"quota": 1000, "key": "PROMO-2026"}))
        .send()
        .await
        .assert_rejected(
            "a custom code must be at least 16 characters long, so that it cannot be guessed",
        );
    post(json!({"quota": 1000, "key": "promo code with spaces"})).send().await
        .assert_rejected("a custom code must be 16 to 32 letters, digits, '-' or '_', and only one code can be created with it");

    let keys = create_codes(app, &root, json!({"quota": 100000, "count": 3})).await;
    assert_eq!(keys.len(), 3);
    assert!(keys.iter().all(|k| k.len() == 32));
    create_codes(
        app,
        &root,
        json!({"name": "promo", "quota": 5000, "key": "PROMO-2026-SUMMER"}),
    )
    .await;
    post(json!({"name": "promo", "quota": 5000, "key": "PROMO-2026-SUMMER"}))
        .send()
        .await
        .assert_rejected("this redemption code already exists");

    let list = app
        .get("/api/redemption/?p=1&page_size=10")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(list.data()["total"], json!(4));
    let unnamed = &list.data()["items"][1];
    assert_eq!(unnamed["name"], json!("$0.20"), "default name is the value");
    assert_eq!(unnamed["max_uses"], json!(-1));
    let search = app
        .get("/api/redemption/search?keyword=PROMO-2026-SUMMER")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(search.data()["total"], json!(1));
    let promo_id = search.data()["items"][0]["id"].as_i64().unwrap();
    assert_eq!(
        app.get("/api/redemption/count-by-name?name=$0.20")
            .signed_in(&root)
            .send()
            .await
            .data(),
        &json!(3)
    );

    let edited = app
        .put("/api/redemption/", json!({"id": promo_id, "name": "promo2", "quota": 7000, "is_gift": true, "max_uses": 5}))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(edited.data()["quota"], json!(7000));
    assert_eq!(edited.data()["is_gift"], json!(true));
    assert_eq!(edited.data()["max_uses"], json!(5));
    let disabled = app
        .put(
            "/api/redemption/?status_only=true",
            json!({"id": promo_id, "status": 2}),
        )
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(disabled.data()["status"], json!(2));
    app.put(
        "/api/redemption/",
        json!({"id": promo_id, "name": "x", "quota": 1}),
    )
    .signed_in(&root)
    .send()
    .await
    .assert_rejected("only unused codes can be edited");

    let ids: Vec<i64> = list.data()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_i64().unwrap())
        .collect();
    app.put("/api/redemption/batch-disable", json!({"ids": []}))
        .signed_in(&root)
        .send()
        .await
        .assert_rejected("select codes first");
    let batch = app
        .put("/api/redemption/batch-disable", json!({"ids": ids}))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(batch.data(), &json!(3), "only the three unused ones change");
    let deleted = app
        .delete("/api/redemption/delete-disabled")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(deleted.data(), &json!(4));
    assert_eq!(
        app.get("/api/redemption/")
            .signed_in(&root)
            .send()
            .await
            .data()["total"],
        json!(0)
    );

    create_codes(app, &root, json!({"name": "bulk", "quota": 10, "count": 4})).await;
    let by_name = app
        .delete("/api/redemption/delete-by-name?name=bulk")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(by_name.data(), &json!(4));
    app.delete("/api/redemption/delete-by-name?name=")
        .signed_in(&root)
        .send()
        .await
        .assert_rejected("the name is required");
    app.get("/api/redemption/9999")
        .signed_in(&root)
        .send()
        .await
        .assert_rejected("the redemption code does not exist");
}

async fn redeeming(app: &TestApp) {
    let root = app.root().await;
    let user = app.user(&root, "redeemer").await;
    let redeem = |key: &str| {
        app.post("/api/user/topup", json!({"key": key}))
            .signed_in(&user)
    };
    redeem("")
        .zh()
        .send()
        .await
        .assert_rejected("请输入兑换码！");
    redeem("no-such-code")
        .send()
        .await
        .assert_rejected("invalid redemption code");

    let key = create_codes(app, &root, json!({"name": "gift", "quota": 250000}))
        .await
        .remove(0);
    let done = redeem(&key).send().await;
    assert_eq!(done.data(), &json!({"quota": 250000, "is_gift": false}));
    assert_eq!(quota_of(app, &user).await, 250000);
    redeem(&key)
        .send()
        .await
        .assert_rejected("this redemption code has already been used");
    let log: (i64, i64) =
        sqlx::query_as("SELECT type, quota FROM logs WHERE user_id = $1 AND type = 1")
            .bind(user.user_id)
            .fetch_one(&app.db().pool)
            .await
            .unwrap();
    assert_eq!(log, (1, 250000));
    let used = app
        .get("/api/redemption/search?keyword=gift")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(used.data()["items"][0]["status"], json!(3));
    assert_eq!(used.data()["items"][0]["used_user_id"], json!(user.user_id));
    let used_id = used.data()["items"][0]["id"].as_i64().unwrap();
    app.put(
        "/api/redemption/?status_only=true",
        json!({"id": used_id, "status": 1}),
    )
    .signed_in(&root)
    .send()
    .await
    .assert_rejected("a used code cannot be enabled");

    let now = control_plane::store::now();
    let later = create_codes(app, &root, json!({"quota": 10, "valid_from": now + 3600}))
        .await
        .remove(0);
    redeem(&later)
        .send()
        .await
        .assert_rejected("this redemption code is not valid yet");
    let past = create_codes(
        app,
        &root,
        json!({"quota": 10, "valid_from": now - 7200, "valid_until": now - 3600}),
    )
    .await
    .remove(0);
    redeem(&past)
        .send()
        .await
        .assert_rejected("this redemption code has expired");
    let off = create_codes(app, &root, json!({"name": "off", "quota": 10}))
        .await
        .remove(0);
    let off_id = app
        .get("/api/redemption/search?keyword=off")
        .signed_in(&root)
        .send()
        .await
        .data()["items"][0]["id"]
        .as_i64()
        .unwrap();
    app.put(
        "/api/redemption/?status_only=true",
        json!({"id": off_id, "status": 2}),
    )
    .signed_in(&root)
    .send()
    .await;
    redeem(&off)
        .send()
        .await
        .assert_rejected("this redemption code is disabled");
    assert_eq!(
        quota_of(app, &user).await,
        250000,
        "failed redemptions change nothing"
    );
}

async fn concurrent_redemption_has_one_winner(app: &TestApp) {
    let root = app.root().await;
    let mut users = Vec::new();
    for i in 0..8 {
        users.push(app.user(&root, &format!("racer{i}")).await);
    }
    let key = create_codes(app, &root, json!({"quota": 1000}))
        .await
        .remove(0);
    let replies = join_all(users.iter().map(|u| {
        app.post("/api/user/topup", json!({"key": key}))
            .signed_in(u)
            .send()
    }))
    .await;
    let winners = replies.iter().filter(|r| r.success()).count();
    assert_eq!(
        winners,
        1,
        "{:?}",
        replies
            .iter()
            .map(|r| r.body.to_string())
            .collect::<Vec<_>>()
    );
    let mut total = 0;
    for u in &users {
        total += quota_of(app, u).await;
    }
    assert_eq!(total, 1000, "credited exactly once");

    // A gift code with three uses: three users win, each once.
    let gift = create_codes(
        app,
        &root,
        json!({"quota": 100, "is_gift": true, "max_uses": 3}),
    )
    .await
    .remove(0);
    let replies = join_all(users.iter().map(|u| {
        app.post("/api/user/topup", json!({"key": gift}))
            .signed_in(u)
            .send()
    }))
    .await;
    assert_eq!(replies.iter().filter(|r| r.success()).count(), 3);
    assert!(
        replies
            .iter()
            .filter(|r| !r.success())
            .all(|r| r.message() == "this gift code has reached its maximum number of uses")
    );
    let winner = users
        .iter()
        .zip(&replies)
        .find(|(_, r)| r.success())
        .map(|(u, _)| u)
        .unwrap();
    let unlimited = create_codes(app, &root, json!({"quota": 5, "is_gift": true}))
        .await
        .remove(0);
    assert!(
        app.post("/api/user/topup", json!({"key": unlimited}))
            .signed_in(winner)
            .send()
            .await
            .success()
    );
    app.post("/api/user/topup", json!({"key": unlimited}))
        .signed_in(winner)
        .send()
        .await
        .assert_rejected("you have already redeemed this gift code");
    let search = app
        .get(&format!("/api/redemption/search?keyword={gift}"))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(search.data()["items"][0]["used_count"], json!(3));
}

async fn check_in_once_a_day(app: &TestApp) {
    let root = app.root().await;
    let user = app.user(&root, "daily").await;
    let status = app
        .get("/api/user/check_in_status")
        .signed_in(&user)
        .send()
        .await;
    assert_eq!(
        status.data(),
        &json!({"enabled": false, "can_check_in": false})
    );
    app.post("/api/user/check_in", json!({}))
        .signed_in(&user)
        .send()
        .await
        .assert_rejected("check-in is not enabled");
    app.set_option("CheckInEnabled", "true").await;
    app.set_option("CheckInQuota", "1000").await;
    app.set_option("CheckInMaxQuota", "2000").await;
    assert_eq!(
        app.get("/api/user/check_in_status")
            .signed_in(&user)
            .send()
            .await
            .data()["can_check_in"],
        json!(true)
    );

    let replies = join_all((0..5).map(|_| {
        app.post("/api/user/check_in", json!({}))
            .signed_in(&user)
            .send()
    }))
    .await;
    let wins: Vec<_> = replies.iter().filter(|r| r.success()).collect();
    assert_eq!(wins.len(), 1, "one check-in per day");
    let gained = wins[0].data()["quota"].as_i64().unwrap();
    assert!((1000..=2000).contains(&gained), "{gained}");
    assert!(
        replies
            .iter()
            .filter(|r| !r.success())
            .all(|r| r.message() == "already checked in today")
    );
    assert_eq!(quota_of(app, &user).await, gained);
    assert_eq!(
        app.get("/api/user/check_in_status")
            .signed_in(&user)
            .send()
            .await
            .data()["can_check_in"],
        json!(false)
    );
}

async fn invitation_earnings_and_settings(app: &TestApp) {
    let root = app.root().await;
    let user = app.user(&root, "earner").await;
    sqlx::query("UPDATE users SET aff_quota = 1200000 WHERE id = $1")
        .bind(user.user_id)
        .execute(&app.db().pool)
        .await
        .unwrap();
    let transfer = |q: i64| {
        app.post("/api/user/aff_transfer", json!({"quota": q}))
            .signed_in(&user)
    };
    transfer(100)
        .zh()
        .send()
        .await
        .assert_rejected("划转金额最低为 $1.00");
    transfer(2_000_000)
        .send()
        .await
        .assert_rejected("the transfer amount exceeds your invitation earnings");
    assert!(transfer(600_000).send().await.success());
    let me = app.get("/api/user/self").signed_in(&user).send().await;
    assert_eq!(me.data()["quota"], json!(600_000));
    assert_eq!(me.data()["aff_quota"], json!(600_000));

    let put = |body| app.put("/api/user/setting", body).signed_in(&user);
    put(json!({"notify_type": "sms"}))
        .send()
        .await
        .assert_rejected("the notification type must be email or webhook");
    put(json!({"notify_type": "webhook"}))
        .send()
        .await
        .assert_rejected("please enter the webhook address");
    put(json!({"notify_type": "webhook", "webhook_url": "http://hook.example.com"}))
        .send()
        .await
        .assert_rejected("the webhook address must start with https://");
    assert!(put(json!({"notify_type": "webhook", "webhook_url": "https://hook.example.com", "webhook_secret": "s", "quota_warning_threshold": 100000})).send().await.success());
    let me = app.get("/api/user/self").signed_in(&user).send().await;
    let setting: serde_json::Value =
        serde_json::from_str(me.data()["setting"].as_str().unwrap()).unwrap();
    assert_eq!(setting["notify_type"], json!("webhook"));
    assert_eq!(setting["quota_warning_threshold"], json!(100000));
    assert_eq!(setting["accept_unset_model_ratio_model"], json!(false));
    assert_eq!(
        setting["webhook_secret"],
        json!("s"),
        "the owner sees their secret"
    );
    let admin_view = app
        .get(&format!("/api/user/{}", user.user_id))
        .signed_in(&root)
        .send()
        .await;
    assert!(
        !admin_view.data()["setting"]
            .as_str()
            .unwrap()
            .contains("webhook_secret"),
        "administrators do not"
    );
}

on_both_backends!(
    admin_calls,
    redeeming,
    concurrent_redemption_has_one_winner,
    check_in_once_a_day,
    invitation_earnings_and_settings,
);
