//! Online top-up: quotes, payment orders with a signed form, the provider's notification
//! (credited once, forged signatures and changed amounts refused), and records.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;

use common::TestApp;
use control_plane::domain::payment;
use serde_json::json;

async fn quotes_orders_and_notifications(app: &TestApp) {
    let root = app.root().await;
    let user = app.user(&root, "buyer").await;
    let quote = |amount: i64| {
        app.post("/api/user/amount", json!({"amount": amount}))
            .signed_in(&user)
    };
    quote(0)
        .zh()
        .send()
        .await
        .assert_rejected("充值数量不能小于 1");
    assert_eq!(quote(10).send().await.data(), &json!("73.00"));
    app.set_option("TopupGroupRatio", r#"{"vip": 0.9}"#).await;
    app.put("/api/user/", json!({"id": user.user_id, "group": "vip"}))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(quote(1).send().await.data(), &json!("6.57"));
    app.set_option("MinTopUp", "5").await;
    quote(4)
        .send()
        .await
        .assert_rejected("the top-up amount cannot be less than 5");

    let pay = |method: &str| {
        app.post(
            "/api/user/pay",
            json!({"amount": 10, "payment_method": method}),
        )
        .signed_in(&user)
    };
    pay("zfb")
        .send()
        .await
        .assert_rejected("the administrator has not enabled online top-up");
    app.set_option("ServerAddress", "https://gw.example.com")
        .await;
    app.set_option("PayAddress", "https://pay.example.com")
        .await;
    app.set_option("EpayId", "1001").await;
    app.set_option("EpayKey", "merchant-key").await;
    pay("card")
        .send()
        .await
        .assert_rejected("the payment method must be zfb (Alipay) or wx (WeChat Pay)");
    let order = pay("zfb").send().await;
    assert_eq!(order.body["success"], json!(true));
    assert_eq!(
        order.body["url"],
        json!("https://pay.example.com/submit.php")
    );
    let form: BTreeMap<String, String> =
        serde_json::from_value(order.body["data"].clone()).unwrap();
    assert_eq!(form["pid"], "1001");
    assert_eq!(form["type"], "alipay");
    assert_eq!(form["money"], "65.70");
    assert_eq!(
        form["notify_url"],
        "https://gw.example.com/api/user/epay/notify"
    );
    assert_eq!(form["sign"], payment::sign(&form, "merchant-key"));
    assert_eq!(
        app.get("/api/status").send().await.data()["enable_online_topup"],
        json!(true)
    );

    // The provider's notification, signed as providers sign it.
    let mut notice: BTreeMap<String, String> = [
        ("pid", "1001"),
        ("trade_no", "provider-42"),
        ("out_trade_no", form["out_trade_no"].as_str()),
        ("type", "alipay"),
        ("name", "TUC10"),
        ("money", "65.70"),
        ("trade_status", "TRADE_SUCCESS"),
        ("sign_type", "MD5"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let sign = payment::sign(&notice, "merchant-key");
    notice.insert("sign".into(), sign);
    let query = |params: &BTreeMap<String, String>| {
        params
            .iter()
            .map(|(k, v)| format!("{k}={}", v.replace(' ', "%20")))
            .collect::<Vec<_>>()
            .join("&")
    };

    let mut forged = notice.clone();
    forged.insert("sign".into(), "0".repeat(32));
    assert_eq!(
        app.get(&format!("/api/user/epay/notify?{}", query(&forged)))
            .send()
            .await
            .body,
        json!("fail")
    );
    let mut cheaper = notice.clone();
    cheaper.insert("money".into(), "0.01".into());
    let resigned = payment::sign(&cheaper, "merchant-key");
    cheaper.insert("sign".into(), resigned);
    assert_eq!(
        app.get(&format!("/api/user/epay/notify?{}", query(&cheaper)))
            .send()
            .await
            .body,
        json!("fail"),
        "amount must match the order"
    );
    assert_eq!(balance(app, &user).await, 0);

    // The buyer was invited: with rebates on, the inviter earns 12.5 % of the top-up.
    let inviter = app.user(&root, "inviter").await;
    sqlx::query("UPDATE users SET inviter_id = $1 WHERE id = $2")
        .bind(inviter.user_id)
        .bind(user.user_id)
        .execute(&app.db().pool)
        .await
        .unwrap();
    app.set_option("RebateEnabled", "true").await;
    app.set_option("RebatePercentage", "12.5").await;
    let earnings = || async {
        let (aff, history): (i64, i64) =
            sqlx::query_as("SELECT aff_quota, aff_history_quota FROM users WHERE id = $1")
                .bind(inviter.user_id)
                .fetch_one(&app.db().pool)
                .await
                .unwrap();
        (aff, history)
    };

    assert_eq!(
        app.get(&format!("/api/user/epay/notify?{}", query(&notice)))
            .send()
            .await
            .body,
        json!("success")
    );
    assert_eq!(balance(app, &user).await, 10 * 500_000);
    assert_eq!(
        app.get(&format!("/api/user/epay/notify?{}", query(&notice)))
            .send()
            .await
            .body,
        json!("success"),
        "a replay is acknowledged"
    );
    assert_eq!(
        balance(app, &user).await,
        10 * 500_000,
        "and credits nothing"
    );
    assert_eq!(
        earnings().await,
        (625_000, 625_000),
        "the rebate, once, as invitation earnings"
    );
    assert_eq!(
        balance(app, &inviter).await,
        0,
        "not in the balance until moved"
    );

    let records = app
        .get("/api/user/topup/self")
        .signed_in(&user)
        .send()
        .await;
    assert_eq!(records.data()["total"], json!(1));
    assert_eq!(records.data()["items"][0]["status"], json!("success"));
    let all = app.get("/api/user/topup").signed_in(&root).send().await;
    assert_eq!(all.data()["total"], json!(1));
    let logged: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM logs WHERE type = 1 AND user_id = $1")
            .bind(user.user_id)
            .fetch_one(&app.db().pool)
            .await
            .unwrap();
    assert_eq!(logged, 1);
}

async fn balance(app: &TestApp, user: &common::Session) -> i64 {
    app.get("/api/user/self")
        .signed_in(user)
        .send()
        .await
        .data()["quota"]
        .as_i64()
        .unwrap()
}

on_both_backends!(quotes_orders_and_notifications);
