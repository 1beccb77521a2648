//! User administration: create, get, edit with quota, manage actions, soft delete, paging and
//! search, and the rules about equal or higher roles.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use axum::http::StatusCode;
use common::TestApp;
use serde_json::json;

async fn create_get_and_edit(app: &TestApp) {
    let root = app.root().await;
    app.post("/api/user/", json!({"username": "", "password": ""}))
        .signed_in(&root)
        .zh()
        .send()
        .await
        .assert_rejected("用户名和密码不能为空！");
    app.post(
        "/api/user/",
        json!({"username": "gina", "password": "short"}),
    )
    .signed_in(&root)
    .send()
    .await
    .assert_rejected("password must be at least 8 characters");
    let gina = app.user(&root, "gina").await;
    app.post(
        "/api/user/",
        json!({"username": "gina", "password": "gina-pass-2"}),
    )
    .signed_in(&root)
    .send()
    .await
    .assert_rejected("username already exists");

    let got = app
        .get(&format!("/api/user/{}", gina.user_id))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(got.data()["username"], json!("gina"));
    assert_eq!(got.data()["deleted_at"], json!(null));
    assert!(got.data().get("password").is_none());

    let edit = app
        .put("/api/user/", json!({"id": gina.user_id, "display_name": "Gina G", "group": "vip", "quota": 123456, "quota_before": 0, "remark": "vip customer"}))
        .signed_in(&root)
        .send()
        .await;
    assert!(edit.success(), "{}", edit.body);
    let got = app
        .get(&format!("/api/user/{}", gina.user_id))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(got.data()["quota"], json!(123456));
    assert_eq!(got.data()["group"], json!("vip"));
    assert_eq!(got.data()["display_name"], json!("Gina G"));
    assert_eq!(got.data()["remark"], json!("vip customer"));

    let logged: (i64, i64, String) =
        sqlx::query_as("SELECT type, quota, content FROM logs WHERE user_id = $1")
            .bind(gina.user_id)
            .fetch_one(&app.db().pool)
            .await
            .unwrap();
    assert_eq!(logged.0, 3, "a management log");
    assert_eq!(logged.1, 123456);
    assert!(logged.2.contains("from 0 to 123456"), "{}", logged.2);

    app.put("/api/user/", json!({"id": gina.user_id, "quota": -1}))
        .signed_in(&root)
        .send()
        .await
        .assert_rejected("quota cannot be negative");
    app.put("/api/user/", json!({"id": gina.user_id, "group": "nope"}))
        .signed_in(&root)
        .send()
        .await
        .assert_rejected("group nope does not exist");
    app.put("/api/user/", json!({"id": gina.user_id, "password": "123"}))
        .signed_in(&root)
        .send()
        .await
        .assert_rejected("password must be at least 8 characters");

    // A password set by an admin ends the user's sessions and works at once.
    let reset = app
        .put(
            "/api/user/",
            json!({"id": gina.user_id, "password": "by-admin-1"}),
        )
        .signed_in(&root)
        .send()
        .await;
    assert!(reset.success());
    assert_eq!(
        app.get("/api/user/self")
            .signed_in(&gina)
            .send()
            .await
            .status,
        StatusCode::UNAUTHORIZED
    );
    app.login("gina", "by-admin-1").await;

    app.get("/api/user/99999")
        .signed_in(&root)
        .send()
        .await
        .assert_rejected("user does not exist");
}

async fn manage_actions(app: &TestApp) {
    let root = app.root().await;
    let hank = app.user(&root, "hank").await;
    let manage = |id: i64, action: &str| json!({"id": id, "action": action});

    let promoted = app
        .post("/api/user/manage", manage(hank.user_id, "promote"))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(promoted.data(), &json!({"role": 10, "status": 1}));
    app.post("/api/user/manage", manage(hank.user_id, "promote"))
        .signed_in(&root)
        .send()
        .await
        .assert_rejected("this user is already an administrator");
    let demoted = app
        .post("/api/user/manage", manage(hank.user_id, "demote"))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(demoted.data(), &json!({"role": 1, "status": 1}));
    app.post("/api/user/manage", manage(hank.user_id, "demote"))
        .signed_in(&root)
        .send()
        .await
        .assert_rejected("this user is already a normal user");

    let disabled = app
        .post("/api/user/manage", manage(hank.user_id, "disable"))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(disabled.data(), &json!({"role": 1, "status": 2}));
    assert_eq!(
        app.get("/api/user/self")
            .signed_in(&hank)
            .send()
            .await
            .status,
        StatusCode::UNAUTHORIZED
    );
    app.post(
        "/api/user/login",
        json!({"username": "hank", "password": "user-pass-1"}),
    )
    .send()
    .await
    .assert_rejected("user has been banned");
    let enabled = app
        .post("/api/user/manage", manage(hank.user_id, "enable"))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(enabled.data(), &json!({"role": 1, "status": 1}));
    let hank = app.login("hank", "user-pass-1").await;

    sqlx::query("UPDATE users SET status = 3 WHERE id = $1")
        .bind(hank.user_id)
        .execute(&app.db().pool)
        .await
        .unwrap();
    app.post("/api/user/manage", manage(hank.user_id, "enable"))
        .signed_in(&root)
        .send()
        .await
        .assert_rejected("this user cannot be enabled");
    app.post("/api/user/manage", manage(hank.user_id, "explode"))
        .signed_in(&root)
        .send()
        .await
        .assert_rejected("unknown action: explode");

    for action in ["demote", "delete", "disable"] {
        let reply = app
            .post("/api/user/manage", manage(root.user_id, action))
            .signed_in(&root)
            .send()
            .await;
        assert_eq!(reply.body["success"], json!(false), "root {action}");
    }
    app.post("/api/user/manage", manage(root.user_id, "delete"))
        .signed_in(&root)
        .zh()
        .send()
        .await
        .assert_rejected("不能删除超级管理员账户");
}

async fn soft_delete_keeps_the_row(app: &TestApp) {
    let root = app.root().await;
    let ivy = app.user(&root, "ivy").await;
    let token = app
        .get("/api/user/token")
        .signed_in(&ivy)
        .send()
        .await
        .data()
        .as_str()
        .unwrap()
        .to_string();
    let del = app
        .post(
            "/api/user/manage",
            json!({"id": ivy.user_id, "action": "delete"}),
        )
        .signed_in(&root)
        .send()
        .await;
    assert!(del.success());

    let list = app.get("/api/user/").signed_in(&root).send().await;
    let row = list.data()["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["id"] == json!(ivy.user_id))
        .cloned()
        .unwrap();
    assert!(
        row["deleted_at"].as_i64().unwrap() > 0,
        "shown as deactivated"
    );
    assert_eq!(
        app.get("/api/user/self")
            .signed_in(&ivy)
            .send()
            .await
            .status,
        StatusCode::UNAUTHORIZED
    );
    let by_token = app
        .get("/api/user/self")
        .header("authorization", &token)
        .header("new-api-user", &ivy.user_id.to_string())
        .send()
        .await;
    assert_eq!(by_token.status, StatusCode::UNAUTHORIZED);
    app.post(
        "/api/user/login",
        json!({"username": "ivy", "password": "user-pass-1"}),
    )
    .send()
    .await
    .assert_rejected("wrong username or password, or the user has been banned");
    app.post(
        "/api/user/manage",
        json!({"id": ivy.user_id, "action": "enable"}),
    )
    .signed_in(&root)
    .send()
    .await
    .assert_rejected("user does not exist");
    app.post(
        "/api/user/",
        json!({"username": "ivy", "password": "ivy-pass-22"}),
    )
    .signed_in(&root)
    .send()
    .await
    .assert_rejected("username already exists");
}

async fn admins_cannot_act_on_equal_or_higher_roles(app: &TestApp) {
    let root = app.root().await;
    let admin = app.admin(&root, "jack").await;
    let other_admin = app.admin(&root, "kate").await;
    let user = app.user(&root, "liam").await;

    app.get(&format!("/api/user/{}", other_admin.user_id))
        .signed_in(&admin)
        .send()
        .await
        .assert_rejected("cannot act on a user whose role is equal to or higher than yours");
    app.get(&format!("/api/user/{}", root.user_id))
        .signed_in(&admin)
        .send()
        .await
        .assert_rejected("cannot act on a user whose role is equal to or higher than yours");
    app.put("/api/user/", json!({"id": other_admin.user_id, "quota": 5}))
        .signed_in(&admin)
        .send()
        .await
        .assert_rejected("cannot act on a user whose role is equal to or higher than yours");
    for action in ["demote", "disable", "delete"] {
        app.post(
            "/api/user/manage",
            json!({"id": other_admin.user_id, "action": action}),
        )
        .signed_in(&admin)
        .send()
        .await
        .assert_rejected("cannot act on a user whose role is equal to or higher than yours");
    }
    app.post(
        "/api/user/manage",
        json!({"id": user.user_id, "action": "promote"}),
    )
    .signed_in(&admin)
    .send()
    .await
    .assert_rejected("only the super administrator can promote users");
    app.post(
        "/api/user/",
        json!({"username": "newadmin", "password": "newadmin-1", "role": 10}),
    )
    .signed_in(&admin)
    .send()
    .await
    .assert_rejected("cannot create a user whose role is equal to or higher than yours");

    // What an admin may do to a normal user.
    let edit = app
        .put(
            "/api/user/",
            json!({"id": user.user_id, "quota": 777, "quota_before": 0}),
        )
        .signed_in(&admin)
        .send()
        .await;
    assert!(edit.success());
    let disabled = app
        .post(
            "/api/user/manage",
            json!({"id": user.user_id, "action": "disable"}),
        )
        .signed_in(&admin)
        .send()
        .await;
    assert_eq!(disabled.data()["status"], json!(2));
    // Root may edit itself.
    let own = app
        .put(
            "/api/user/",
            json!({"id": root.user_id, "display_name": "The Root"}),
        )
        .signed_in(&root)
        .send()
        .await;
    assert!(own.success());
}

async fn paging_and_search(app: &TestApp) {
    let root = app.root().await;
    for i in 0..23 {
        let name = format!("member{i:02}");
        let reply = app
            .post("/api/user/", json!({"username": name, "password": "member-pass", "display_name": format!("Member {i}")}))
            .signed_in(&root)
            .send()
            .await;
        assert!(reply.success());
    }
    let vip = app.user(&root, "vipper").await;
    app.put(
        "/api/user/",
        json!({"id": vip.user_id, "group": "vip", "email": "vip@example.com"}),
    )
    .signed_in(&root)
    .send()
    .await;

    let first = app
        .get("/api/user/?p=1&page_size=10")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(first.data()["total"], json!(25));
    assert_eq!(first.data()["page"], json!(1));
    assert_eq!(first.data()["page_size"], json!(10));
    assert_eq!(first.data()["items"].as_array().unwrap().len(), 10);
    assert_eq!(
        first.data()["items"][0]["username"],
        json!("vipper"),
        "newest first"
    );
    let zero = app
        .get("/api/user/?p=0&page_size=10")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(
        zero.data()["items"],
        first.data()["items"],
        "p=0 reads as the first page"
    );
    let third = app
        .get("/api/user/?p=3&page_size=10")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(third.data()["items"].as_array().unwrap().len(), 5);
    let default_size = app.get("/api/user/").signed_in(&root).send().await;
    assert_eq!(default_size.data()["page_size"], json!(10));
    let capped = app
        .get("/api/user/?page_size=1000")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(capped.data()["page_size"], json!(100));
    let bad = app.get("/api/user/?p=abc").signed_in(&root).send().await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);

    let kw = app
        .get("/api/user/search?keyword=MEMBER1&page_size=50")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(
        kw.data()["total"],
        json!(10),
        "member10..member19, case-insensitive"
    );
    let by_display = app
        .get("/api/user/search?keyword=Member%207")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(by_display.data()["total"], json!(1));
    let by_email = app
        .get("/api/user/search?keyword=vip@example")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(by_email.data()["items"][0]["username"], json!("vipper"));
    let by_id = app
        .get(&format!("/api/user/search?keyword={}", vip.user_id))
        .signed_in(&root)
        .send()
        .await;
    assert!(
        by_id.data()["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|u| u["id"] == json!(vip.user_id))
    );
    let by_group = app
        .get("/api/user/search?group=vip")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(by_group.data()["total"], json!(1));
    let both = app
        .get("/api/user/search?group=default&keyword=member0&p=1&page_size=5")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(both.data()["total"], json!(10));
    assert_eq!(both.data()["items"].as_array().unwrap().len(), 5);
    let wildcard = app
        .get("/api/user/search?keyword=%25")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(
        wildcard.data()["total"],
        json!(0),
        "LIKE wildcards in the keyword are literal"
    );
}

on_both_backends!(
    create_get_and_edit,
    manage_actions,
    soft_delete_keeps_the_row,
    admins_cannot_act_on_equal_or_higher_roles,
    paging_and_search,
);
