//! Registration, sign-in, sign-out, session expiry, access tokens with `New-Api-User`, imported
//! bcrypt hashes and the default-password warning.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use axum::http::StatusCode;
use common::TestApp;
use serde_json::json;

async fn register_login_logout(app: &TestApp) {
    app.setup().await;
    let reply = app
        .post(
            "/api/user/register",
            json!({"username": "alice", "password": "alice-pass", "password2": "alice-pass"}),
        )
        .send()
        .await;
    assert!(reply.success(), "{}", reply.body);

    let dup = app
        .post(
            "/api/user/register",
            json!({"username": "alice", "password": "other-pass"}),
        )
        .send()
        .await;
    dup.assert_rejected("username already exists");
    app.post(
        "/api/user/register",
        json!({"username": "bob", "password": "short"}),
    )
    .zh()
    .send()
    .await
    .assert_rejected("密码长度不得小于 8 位！");
    app.post(
        "/api/user/register",
        json!({"username": "bob", "password": "bob-pass-1", "password2": "bob-pass-2"}),
    )
    .zh()
    .send()
    .await
    .assert_rejected("两次输入的密码不一致");
    app.post(
        "/api/user/register",
        json!({"username": "", "password": ""}),
    )
    .zh()
    .send()
    .await
    .assert_rejected("用户名和密码不能为空！");

    app.post("/api/user/login", json!({"username": "", "password": ""}))
        .zh()
        .send()
        .await
        .assert_rejected("请输入用户名和密码！");
    app.post(
        "/api/user/login",
        json!({"username": "alice", "password": "wrong-pass"}),
    )
    .send()
    .await
    .assert_rejected("wrong username or password, or the user has been banned");

    let login = app
        .post(
            "/api/user/login",
            json!({"username": "alice", "password": "alice-pass"}),
        )
        .send()
        .await;
    assert!(login.success());
    assert_eq!(login.data()["username"], json!("alice"));
    assert_eq!(login.data()["role"], json!(1));
    assert_eq!(login.data()["using_default_password"], json!(false));
    assert!(login.data().get("password").is_none());
    let set_cookie = login.set_cookie_header("session").unwrap();
    assert!(set_cookie.contains("HttpOnly"), "{set_cookie}");
    assert!(set_cookie.contains("SameSite=Strict"), "{set_cookie}");
    assert!(set_cookie.contains("Max-Age=3600"), "{set_cookie}");

    let session = app.login("alice", "alice-pass").await;
    let me = app.get("/api/user/self").signed_in(&session).send().await;
    assert!(me.success());
    assert_eq!(me.data()["username"], json!("alice"));

    let out = app.get("/api/user/logout").signed_in(&session).send().await;
    assert!(out.success());
    assert!(
        out.set_cookie_header("session")
            .unwrap()
            .contains("Max-Age=0")
    );
    let after = app.get("/api/user/self").signed_in(&session).send().await;
    assert_eq!(after.status, StatusCode::UNAUTHORIZED);
}

async fn registration_switches_are_enforced(app: &TestApp) {
    app.setup().await;
    app.set_option("RegisterEnabled", "false").await;
    app.post(
        "/api/user/register",
        json!({"username": "x1", "password": "x1-pass-1"}),
    )
    .send()
    .await
    .assert_rejected("the administrator has disabled new user registration");
    app.set_option("RegisterEnabled", "true").await;
    app.set_option("PasswordRegisterEnabled", "false").await;
    let reply = app
        .post(
            "/api/user/register",
            json!({"username": "x1", "password": "x1-pass-1"}),
        )
        .send()
        .await;
    assert_eq!(reply.body["success"], json!(false));
    assert!(
        reply
            .message()
            .contains("disabled registration with a password")
    );

    app.set_option("PasswordRegisterEnabled", "true").await;
    app.set_option("EmailVerificationEnabled", "true").await;
    app.post(
        "/api/user/register",
        json!({"username": "x1", "password": "x1-pass-1"}),
    )
    .zh()
    .send()
    .await
    .assert_rejected("请输入邮箱！");
    app.set_option("EmailDomainRestrictionEnabled", "true")
        .await;
    app.post("/api/user/register", json!({"username": "x1", "password": "x1-pass-1", "email": "a@evil.example"}))
        .send()
        .await
        .assert_rejected("the administrator has enabled an email domain whitelist and this email domain is not in it");
    app.set_option("EmailAliasRestrictionEnabled", "true").await;
    app.post("/api/user/register", json!({"username": "x1", "password": "x1-pass-1", "email": "a+tag@gmail.com", "verification_code": "123456"}))
        .send()
        .await
        .assert_rejected("the administrator has disabled email aliases");
}

async fn password_login_switch_spares_root(app: &TestApp) {
    let root = app.root().await;
    app.user(&root, "carol").await;
    app.set_option("PasswordLoginEnabled", "false").await;
    app.post(
        "/api/user/login",
        json!({"username": "carol", "password": "user-pass-1"}),
    )
    .send()
    .await
    .assert_rejected("the administrator has disabled password login");
    app.login("root", common::ROOT_PASSWORD).await;
}

async fn invitation_rewards_inviter_and_invitee(app: &TestApp) {
    let root = app.root().await;
    app.set_option("QuotaForNewUser", "1000").await;
    app.set_option("QuotaForInviter", "300").await;
    app.set_option("QuotaForInvitee", "200").await;
    let inviter = app.user(&root, "inviter").await;
    let code = app.get("/api/user/aff").signed_in(&inviter).send().await;
    let code = code.data().as_str().unwrap().to_string();
    assert_eq!(code.len(), 8);
    let again = app.get("/api/user/aff").signed_in(&inviter).send().await;
    assert_eq!(again.data().as_str().unwrap(), code, "the code is stable");

    let reply = app
        .post(
            "/api/user/register",
            json!({"username": "invitee", "password": "invitee-pass", "aff_code": code}),
        )
        .send()
        .await;
    assert!(reply.success(), "{}", reply.body);
    let invitee = app.login("invitee", "invitee-pass").await;
    let me = app.get("/api/user/self").signed_in(&invitee).send().await;
    assert_eq!(me.data()["quota"], json!(1200));
    assert_eq!(me.data()["inviter_id"], json!(inviter.user_id));
    let inviter_view = app.get("/api/user/self").signed_in(&inviter).send().await;
    assert_eq!(inviter_view.data()["aff_count"], json!(1));
    assert_eq!(inviter_view.data()["aff_quota"], json!(300));
    assert_eq!(inviter_view.data()["aff_history_quota"], json!(300));

    // An unknown code registers without a reward.
    let reply = app
        .post(
            "/api/user/register",
            json!({"username": "loner", "password": "loner-pass", "aff_code": "nope"}),
        )
        .send()
        .await;
    assert!(reply.success());
    let loner = app.login("loner", "loner-pass").await;
    let me = app.get("/api/user/self").signed_in(&loner).send().await;
    assert_eq!(me.data()["quota"], json!(1000));
}

async fn sessions_expire(app: &TestApp) {
    let root = app.root().await;
    assert!(
        app.get("/api/user/self")
            .signed_in(&root)
            .send()
            .await
            .success()
    );
    sqlx::query("UPDATE sessions SET expires_at = $1")
        .bind(control_plane::store::now() - 1)
        .execute(&app.db().pool)
        .await
        .unwrap();
    let expired = app.get("/api/user/self").signed_in(&root).send().await;
    assert_eq!(expired.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        expired.message(),
        "not logged in or login expired, please log in again"
    );
    let zh = app.get("/api/user/self").signed_in(&root).zh().send().await;
    assert_eq!(zh.message(), "未登录或登录已过期，请重新登录！");
    let left: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM sessions")
        .fetch_one(&app.db().pool)
        .await
        .unwrap();
    assert_eq!(left, 0, "an expired session is removed when seen");
}

async fn access_token_with_user_header(app: &TestApp) {
    let root = app.root().await;
    let dave = app.user(&root, "dave").await;
    let token = app.get("/api/user/token").signed_in(&dave).send().await;
    let token = token.data().as_str().unwrap().to_string();
    assert_eq!(token.len(), 32);
    let stored: Option<String> =
        sqlx::query_scalar("SELECT access_token_hash FROM users WHERE id = $1")
            .bind(dave.user_id)
            .fetch_one(&app.db().pool)
            .await
            .unwrap();
    assert_ne!(
        stored.as_deref(),
        Some(token.as_str()),
        "only a hash is stored"
    );

    let id = dave.user_id.to_string();
    for auth in [token.clone(), format!("Bearer {token}")] {
        let reply = app
            .get("/api/user/self")
            .header("authorization", &auth)
            .header("new-api-user", &id)
            .send()
            .await;
        assert!(reply.success(), "{}", reply.body);
        assert_eq!(reply.data()["username"], json!("dave"));
    }
    let missing = app
        .get("/api/user/self")
        .header("authorization", &token)
        .send()
        .await;
    assert_eq!(missing.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        missing.message(),
        "Unauthorized, New-Api-User header not provided"
    );
    let mismatch = app
        .get("/api/user/self")
        .header("authorization", &token)
        .header("new-api-user", &root.user_id.to_string())
        .send()
        .await;
    assert_eq!(mismatch.status, StatusCode::UNAUTHORIZED);
    // The session path needs the header too.
    let cookie_only = app
        .get("/api/user/self")
        .header("cookie", &format!("session={}", dave.cookie))
        .send()
        .await;
    assert_eq!(cookie_only.status, StatusCode::UNAUTHORIZED);

    // A new token replaces the old one.
    let fresh = app.get("/api/user/token").signed_in(&dave).send().await;
    assert_ne!(fresh.data().as_str().unwrap(), token);
    let old = app
        .get("/api/user/self")
        .header("authorization", &token)
        .header("new-api-user", &id)
        .send()
        .await;
    assert_eq!(old.status, StatusCode::UNAUTHORIZED);
    // A user's token gives no admin rights.
    let fresh = fresh.data().as_str().unwrap().to_string();
    let admin_call = app
        .get("/api/user/")
        .header("authorization", &fresh)
        .header("new-api-user", &id)
        .send()
        .await;
    assert_eq!(admin_call.status, StatusCode::FORBIDDEN);
}

async fn imported_bcrypt_users_sign_in_and_root_default_password_warns(app: &TestApp) {
    app.setup().await;
    let imported = bcrypt::hash("imported-1", 4).unwrap();
    let root_default = bcrypt::hash("123456", 4).unwrap();
    for (name, hash, role) in [("legacy", &imported, 1i64), ("oldroot", &root_default, 100)] {
        sqlx::query("INSERT INTO users (username, password, display_name, role, status, created_at) VALUES ($1, $2, $1, $3, 1, 0)")
            .bind(name)
            .bind(hash)
            .bind(role)
            .execute(&app.db().pool)
            .await
            .unwrap();
    }
    let legacy = app.login("legacy", "imported-1").await;
    let upgraded: String = sqlx::query_scalar("SELECT password FROM users WHERE id = $1")
        .bind(legacy.user_id)
        .fetch_one(&app.db().pool)
        .await
        .unwrap();
    assert!(
        upgraded.starts_with("$argon2id$"),
        "bcrypt hash upgraded after sign-in"
    );
    app.login("legacy", "imported-1").await;

    let warn = app
        .post(
            "/api/user/login",
            json!({"username": "oldroot", "password": "123456"}),
        )
        .send()
        .await;
    assert!(warn.success());
    assert_eq!(warn.data()["using_default_password"], json!(true));
    assert_eq!(
        warn.message(),
        "you are using the default password, change it immediately"
    );
    let warn_zh = app
        .post(
            "/api/user/login",
            json!({"username": "oldroot", "password": "123456"}),
        )
        .zh()
        .send()
        .await;
    assert_eq!(
        warn_zh.message(),
        "您正在使用默认密码！请立刻修改默认密码！"
    );
}

async fn self_service(app: &TestApp) {
    let root = app.root().await;
    let erin = app.user(&root, "erin").await;
    let upd = app
        .put("/api/user/self", json!({"display_name": "Erin E."}))
        .signed_in(&erin)
        .send()
        .await;
    assert!(upd.success(), "{}", upd.body);
    app.put("/api/user/self", json!({"password": "new-pass-1"}))
        .signed_in(&erin)
        .send()
        .await
        .assert_rejected("the original password is required to set a new one");
    app.put(
        "/api/user/self",
        json!({"password": "new-pass-1", "original_password": "bad-pass-1"}),
    )
    .signed_in(&erin)
    .send()
    .await
    .assert_rejected("the original password is wrong");
    let ok = app
        .put(
            "/api/user/self",
            json!({"password": "new-pass-1", "original_password": "user-pass-1"}),
        )
        .signed_in(&erin)
        .send()
        .await;
    assert!(ok.success());
    app.login("erin", "new-pass-1").await;
    app.put("/api/user/self", json!({"username": "root"}))
        .signed_in(&erin)
        .send()
        .await
        .assert_rejected("username already exists");
    let me = app.get("/api/user/self").signed_in(&erin).send().await;
    assert_eq!(me.data()["display_name"], json!("Erin E."));

    app.delete("/api/user/self")
        .signed_in(&root)
        .send()
        .await
        .assert_rejected("the super administrator cannot be deleted");
    let del = app.delete("/api/user/self").signed_in(&erin).send().await;
    assert!(del.success());
    assert_eq!(
        app.get("/api/user/self")
            .signed_in(&erin)
            .send()
            .await
            .status,
        StatusCode::UNAUTHORIZED
    );
    app.post(
        "/api/user/login",
        json!({"username": "erin", "password": "new-pass-1"}),
    )
    .send()
    .await
    .assert_rejected("wrong username or password, or the user has been banned");
}

async fn models_and_groups_of_the_user(app: &TestApp) {
    let root = app.root().await;
    let frank = app.user(&root, "frank").await;
    for (group, model, channel, enabled) in [
        ("default", "gpt-4o", 1i64, 1i64),
        ("default", "gpt-4o-mini", 1, 1),
        ("vip", "claude-sonnet-4", 2, 1),
        ("svip", "secret-model", 3, 1),
        ("default", "disabled-model", 4, 0),
    ] {
        sqlx::query(
            "INSERT INTO abilities (\"group\", model, channel_id, enabled) VALUES ($1, $2, $3, $4)",
        )
        .bind(group)
        .bind(model)
        .bind(channel)
        .bind(enabled)
        .execute(&app.db().pool)
        .await
        .unwrap();
    }
    let models = app.get("/api/user/models").signed_in(&frank).send().await;
    assert_eq!(
        models.data(),
        &json!(["claude-sonnet-4", "gpt-4o", "gpt-4o-mini"])
    );
    let groups = app
        .get("/api/user/self/groups")
        .signed_in(&frank)
        .send()
        .await;
    assert_eq!(groups.data()["default"]["ratio"], json!(1.0));
    assert!(groups.data().get("vip").is_some());
    assert!(groups.data().get("svip").is_none(), "not a usable group");
    let names = app.get("/api/group/").signed_in(&root).send().await;
    let mut names: Vec<String> = serde_json::from_value(names.data().clone()).unwrap();
    names.sort();
    assert_eq!(names, ["default", "svip", "vip"]);
}

on_both_backends!(
    register_login_logout,
    registration_switches_are_enforced,
    password_login_switch_spares_root,
    invitation_rewards_inviter_and_invitee,
    sessions_expire,
    access_token_with_user_header,
    imported_bcrypt_users_sign_in_and_root_default_password_warns,
    self_service,
    models_and_groups_of_the_user,
);
