//! The drawing log and the task log: admins see every job with channel filters, users only
//! their own (without the channel); filters by job id, submit time, status and platform; the status's
//! `enable_task` follows the `TaskEnabled` option.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::TestApp;
use control_plane::store::tasks::{DrawingRecord, TaskRecord, insert_drawing, insert_task};
use serde_json::json;

fn drawing(user_id: i64, mj_id: &str, submit_ms: i64, channel_id: i64) -> DrawingRecord {
    DrawingRecord {
        id: 0,
        code: 1,
        user_id,
        action: "IMAGINE".into(),
        mj_id: mj_id.into(),
        prompt: "a cat".into(),
        prompt_en: "a cat".into(),
        description: String::new(),
        state: String::new(),
        submit_time: submit_ms,
        start_time: submit_ms + 1000,
        finish_time: submit_ms + 61_000,
        image_url: "https://img.example/cat.png".into(),
        status: "SUCCESS".into(),
        progress: "100%".into(),
        fail_reason: String::new(),
        channel_id,
        quota: 5000,
    }
}

fn task(user_id: i64, task_id: &str, submit: i64, channel_id: i64) -> TaskRecord {
    TaskRecord {
        id: 0,
        created_at: submit,
        updated_at: submit + 30,
        task_id: task_id.into(),
        platform: "suno".into(),
        user_id,
        channel_id,
        quota: 100,
        action: "MUSIC".into(),
        status: "IN_PROGRESS".into(),
        fail_reason: String::new(),
        submit_time: submit,
        start_time: submit + 1,
        finish_time: 0,
        progress: "40%".into(),
        data: "{}".into(),
    }
}

async fn drawing_and_task_logs(app: &TestApp) {
    let root = app.root().await;
    let alice = app.user(&root, "alice").await;
    let bob = app.user(&root, "bob").await;
    let now = control_plane::store::now();
    let db = app.db();
    insert_drawing(db, &drawing(alice.user_id, "mj-a1", now * 1000 - 5_000, 7))
        .await
        .unwrap();
    insert_drawing(
        db,
        &drawing(alice.user_id, "mj-a2", now * 1000 - 90_000_000, 8),
    )
    .await
    .unwrap();
    insert_drawing(db, &drawing(bob.user_id, "mj-b1", now * 1000 - 1_000, 7))
        .await
        .unwrap();
    insert_task(db, &task(alice.user_id, "t-a1", now - 10, 7))
        .await
        .unwrap();
    insert_task(db, &task(bob.user_id, "t-b1", now - 20, 9))
        .await
        .unwrap();

    // Admin: everyone's jobs, newest first, with channels; filters narrow them.
    let all = app
        .get("/api/mj/?p=1&page_size=10")
        .signed_in(&root)
        .send()
        .await;
    assert!(all.success(), "{:?}", all.body);
    assert_eq!(all.data()["total"], json!(3));
    let ids: Vec<&str> = all.data()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["mj_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["mj-b1", "mj-a2", "mj-a1"]);
    assert_eq!(all.data()["items"][0]["channel_id"], json!(7));
    let by_channel = app
        .get("/api/mj/?channel_id=8")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(by_channel.data()["total"], json!(1));
    let recent = app
        .get(&format!(
            "/api/mj/?start_timestamp={}",
            now * 1000 - 3_600_000
        ))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(recent.data()["total"], json!(2));
    let one = app
        .get("/api/mj/?mj_id=mj-a1")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(one.data()["items"][0]["prompt"], json!("a cat"));

    // A user: own jobs only, no channel, the channel filter ignored.
    let own = app
        .get("/api/mj/self/?channel_id=8")
        .signed_in(&alice)
        .send()
        .await;
    assert!(own.success());
    assert_eq!(own.data()["total"], json!(2));
    for row in own.data()["items"].as_array().unwrap() {
        assert_eq!(row["user_id"], json!(alice.user_id));
        assert_eq!(row["channel_id"], json!(0));
    }
    let denied = app.get("/api/mj/").signed_in(&alice).send().await;
    assert!(!denied.success());
    assert!(
        !app.get("/api/mj/self/").send().await.success(),
        "signed out"
    );

    // Tasks likewise (times in seconds).
    let all = app.get("/api/task/").signed_in(&root).send().await;
    assert_eq!(all.data()["total"], json!(2));
    assert_eq!(
        all.data()["items"][0]["task_id"],
        json!("t-b1"),
        "newest first"
    );
    let window = app
        .get(&format!(
            "/api/task/?start_timestamp={}&end_timestamp={}",
            now - 15,
            now
        ))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(window.data()["total"], json!(1));
    let own = app
        .get("/api/task/self?task_id=t-b1")
        .signed_in(&bob)
        .send()
        .await;
    assert_eq!(own.data()["total"], json!(1));
    assert_eq!(own.data()["items"][0]["channel_id"], json!(0));
    assert_eq!(own.data()["items"][0]["platform"], json!("suno"));
    let other = app
        .get("/api/task/self?task_id=t-a1")
        .signed_in(&bob)
        .send()
        .await;
    assert_eq!(
        other.data()["total"],
        json!(0),
        "another user's task stays hidden"
    );
    assert!(!app.get("/api/task/").signed_in(&bob).send().await.success());

    // Status and platform filters: a failed drawing, a finished task on another platform.
    let mut failed = drawing(alice.user_id, "mj-a3", now * 1000 - 2_000, 7);
    failed.status = "FAILURE".into();
    insert_drawing(db, &failed).await.unwrap();
    let mut other_platform = task(alice.user_id, "t-a2", now - 5, 7);
    other_platform.platform = "udio".into();
    other_platform.status = "SUCCESS".into();
    insert_task(db, &other_platform).await.unwrap();
    let failures = app
        .get("/api/mj/?status=FAILURE")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(failures.data()["total"], json!(1));
    assert_eq!(failures.data()["items"][0]["mj_id"], json!("mj-a3"));
    let own_done = app
        .get("/api/mj/self/?status=SUCCESS")
        .signed_in(&alice)
        .send()
        .await;
    assert_eq!(own_done.data()["total"], json!(2), "{:?}", own_done.body);
    let any = app.get("/api/mj/?status=").signed_in(&root).send().await;
    assert_eq!(any.data()["total"], json!(4), "an empty status is any");
    let suno = app
        .get("/api/task/?platform=suno")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(suno.data()["total"], json!(2));
    let running = app
        .get("/api/task/self?platform=suno&status=IN_PROGRESS")
        .signed_in(&alice)
        .send()
        .await;
    assert_eq!(running.data()["total"], json!(1));
    assert_eq!(running.data()["items"][0]["task_id"], json!("t-a1"));
    let none = app
        .get("/api/task/self?platform=udio&status=IN_PROGRESS")
        .signed_in(&alice)
        .send()
        .await;
    assert_eq!(none.data()["total"], json!(0));

    // The sidebar's task entry follows TaskEnabled.
    let status = app.get("/api/status").send().await;
    assert_eq!(status.data()["enable_task"], json!(true));
    app.set_option("TaskEnabled", "false").await;
    let status = app.get("/api/status").send().await;
    assert_eq!(status.data()["enable_task"], json!(false));
}

on_both_backends!(drawing_and_task_logs);
