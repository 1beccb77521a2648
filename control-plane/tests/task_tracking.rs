//! Tasks relayed by gateways, against the mock's Midjourney-Proxy and Suno stand-ins: stored
//! once with the usage record that charged them, answered only to their owner, polled at
//! their channel until they end (the state survives a restart: it is all in the database),
//! refunded exactly once when they fail, failed and refunded when they never end.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Session, TestApp};
use control_plane::store::task_progress::{FAILURE, SUCCESS};
use control_plane::sync::usage::{UsageApi, to_row};
use control_plane::task_poller;
use proto::usage::v1 as pb;
use proto::usage::v1::usage_service_server::UsageService;
use serde_json::{Value, json};

const CHARGE: i64 = 50_000;

async fn channel(app: &TestApp, root: &Session, kind: i64, base_url: &str, models: &str) -> i64 {
    let body = json!({"type": kind, "name": format!("tasks-{kind}"), "key": "task-key",
                      "models": models, "base_url": base_url});
    let reply = app.post("/api/channel/", body).signed_in(root).send().await;
    assert!(reply.success(), "{}", reply.body);
    reply.data()[0].as_i64().unwrap()
}

/// Submits at the stand-in, as a gateway does, and answers the provider's task id.
async fn submit(mock: &mock_provider::MockHandle, path: &str, body: Value) -> String {
    let client = reqwest::Client::new();
    let mut req = client.post(format!("{}{path}", mock.url())).json(&body);
    req = if path.starts_with("/mj/") {
        req.header("mj-api-secret", "task-key")
    } else {
        req.bearer_auth("task-key")
    };
    let answer: Value = req.send().await.unwrap().json().await.unwrap();
    let id = if path.starts_with("/mj/") {
        &answer["result"]
    } else {
        &answer["data"]
    };
    id.as_str().unwrap().to_owned()
}

struct Payer {
    user_id: i64,
    token_id: i64,
    channel_id: i64,
}

fn record(
    request_id: &str,
    created_at: i64,
    payer: &Payer,
    platform: &str,
    task_id: &str,
) -> pb::UsageRecord {
    pb::UsageRecord {
        request_id: request_id.into(),
        created_at,
        r#type: 2,
        user_id: payer.user_id,
        username: "painter".into(),
        token_id: payer.token_id,
        token_name: "t".into(),
        model_name: if platform == "mj" {
            "mj_imagine"
        } else {
            "suno_music"
        }
        .into(),
        channel_id: payer.channel_id,
        quota: CHARGE,
        task: Some(pb::TaskSubmit {
            platform: platform.into(),
            task_id: task_id.into(),
            action: if platform == "mj" { "IMAGINE" } else { "MUSIC" }.into(),
            prompt: "a prompt".into(),
            code: 1,
            description: "Submit success".into(),
            properties: "{}".into(),
        }),
        ..Default::default()
    }
}

async fn quota(app: &TestApp, user_id: i64) -> i64 {
    sqlx::query_scalar("SELECT quota FROM users WHERE id = $1")
        .bind(user_id)
        .fetch_one(&app.db().pool)
        .await
        .unwrap()
}

async fn fetch(app: &TestApp, user_id: i64, platform: &str, ids: &[&str]) -> Vec<pb::TaskState> {
    UsageApi::new(app.state.clone())
        .fetch_tasks(tonic::Request::new(pb::FetchTasksRequest {
            user_id,
            platform: platform.into(),
            task_ids: ids.iter().map(|s| (*s).to_owned()).collect(),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner()
        .tasks
}

async fn drawings_and_songs_are_followed_to_their_end(app: &TestApp) {
    let mock = mock_provider::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let root = app.root().await;
    let painter = app.user(&root, "painter").await;
    let other = app.user(&root, "other").await;
    let token_id = app.token_of(&painter, "t").await;
    let mj_channel = channel(app, &root, 2, &mock.url(), "mj_imagine").await;
    let suno_channel = channel(app, &root, 36, &mock.url(), "suno_music").await;
    let now = control_plane::store::now();
    let before = quota(app, painter.user_id).await;

    // Reported with their usage records (twice: a resent batch changes nothing).
    let drawing = submit(&mock, "/mj/submit/imagine", json!({"prompt": "a red fox"})).await;
    let failing = submit(
        &mock,
        "/mj/submit/imagine",
        json!({"prompt": "this will fail"}),
    )
    .await;
    let song = submit(
        &mock,
        "/suno/submit/music",
        json!({"prompt": "a sea shanty"}),
    )
    .await;
    let mj = Payer {
        user_id: painter.user_id,
        token_id,
        channel_id: mj_channel,
    };
    let suno = Payer {
        user_id: painter.user_id,
        token_id,
        channel_id: suno_channel,
    };
    let rows: Vec<_> = [
        record("req-draw", now, &mj, "mj", &drawing),
        record("req-fail", now, &mj, "mj", &failing),
        record("req-song", now, &suno, "suno", &song),
    ]
    .into_iter()
    .map(to_row)
    .collect();
    for _ in 0..2 {
        control_plane::store::usage::ingest(app.db(), "gw-test", &rows)
            .await
            .unwrap();
    }
    assert_eq!(quota(app, painter.user_id).await, before - 3 * CHARGE);
    let stored: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM midjourneys")
        .fetch_one(&app.db().pool)
        .await
        .unwrap();
    assert_eq!(stored, 2);

    // Only the owner sees them.
    let mine = fetch(app, painter.user_id, "mj", &[&drawing, &failing]).await;
    assert_eq!(mine.len(), 2);
    assert_eq!(mine[0].status, "SUBMITTED");
    assert!(
        fetch(app, other.user_id, "mj", &[&drawing])
            .await
            .is_empty()
    );
    assert!(fetch(app, other.user_id, "suno", &[&song]).await.is_empty());

    // Polled: each look moves them one step; the failure is refunded once.
    let first = task_poller::tick(&app.state, now).await.unwrap();
    assert_eq!(first.looked, 3);
    // Not due again before their backoff.
    assert_eq!(task_poller::tick(&app.state, now).await.unwrap().looked, 0);
    // A restart in the middle: a new control plane on the same database goes on where the
    // last one stopped (what the poller knows is in the database).
    let restarted =
        control_plane::state::AppState::new(app.state.db().clone(), app.state.settings().clone())
            .await
            .unwrap();
    let second = task_poller::tick(&restarted, now + 10).await.unwrap();
    assert_eq!(second.looked, 3);
    assert_eq!(
        fetch(app, painter.user_id, "mj", &[&drawing]).await[0].progress,
        "50%"
    );
    let third = task_poller::tick(&app.state, now + 30).await.unwrap();
    assert_eq!((third.finished, third.refunded), (3, 1));
    let done = &fetch(app, painter.user_id, "mj", &[&drawing]).await[0];
    assert_eq!(done.status, SUCCESS);
    assert!(done.image_url.ends_with(".png"), "{done:?}");
    assert!(done.buttons.contains("MJ::JOB::upsample::1"), "{done:?}");
    let failed = &fetch(app, painter.user_id, "mj", &[&failing]).await[0];
    assert_eq!(failed.status, FAILURE);
    assert!(failed.fail_reason.contains("refused"), "{failed:?}");
    let sung = &fetch(app, painter.user_id, "suno", &[&song]).await[0];
    assert_eq!(sung.status, SUCCESS);
    assert!(sung.data.contains("audio_url"), "{sung:?}");
    assert_eq!(quota(app, painter.user_id).await, before - 2 * CHARGE);
    let remain: i64 = sqlx::query_scalar("SELECT used_quota FROM tokens WHERE id = $1")
        .bind(token_id)
        .fetch_one(&app.db().pool)
        .await
        .unwrap();
    assert_eq!(remain, 2 * CHARGE, "the token's spending is given back too");
    // Nothing is left to do, and nothing is refunded twice.
    let after = task_poller::tick(&app.state, now + 600).await.unwrap();
    assert_eq!(after, task_poller::TickOutcome::default());
    assert_eq!(quota(app, painter.user_id).await, before - 2 * CHARGE);
    let refunds: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM logs WHERE user_id = $1 AND type = 4 AND content LIKE '%refunded%'",
    )
    .bind(painter.user_id)
    .fetch_one(&app.db().pool)
    .await
    .unwrap();
    assert_eq!(refunds, 1);

    // A task its provider never finishes (here: one it does not know) is failed and refunded
    // after the timeout, once.
    let lost = [record("req-lost", now, &mj, "mj", "no-such-task")]
        .into_iter()
        .map(to_row)
        .collect::<Vec<_>>();
    control_plane::store::usage::ingest(app.db(), "gw-test", &lost)
        .await
        .unwrap();
    let waiting = task_poller::tick(&app.state, now + 700).await.unwrap();
    assert_eq!((waiting.looked, waiting.refunded), (1, 0));
    let late = now + task_poller::TIMEOUT_SECS + 1_000;
    let expired = task_poller::tick(&app.state, late).await.unwrap();
    assert_eq!((expired.finished, expired.refunded), (1, 1));
    assert_eq!(
        task_poller::tick(&app.state, late + 10)
            .await
            .unwrap()
            .refunded,
        0
    );
    assert_eq!(quota(app, painter.user_id).await, before - 2 * CHARGE);
}

async fn bad_task_records_are_set_aside(app: &TestApp) {
    let root = app.root().await;
    let user = app.user(&root, "someone").await;
    let token_id = app.token_of(&user, "t").await;
    let payer = Payer {
        user_id: user.user_id,
        token_id,
        channel_id: 0,
    };
    let now = control_plane::store::now();
    let mut unknown = record("bad-1", now, &payer, "mj", "t-1");
    unknown.channel_id = 1;
    unknown.task.as_mut().unwrap().platform = "dalle".into();
    let no_channel = record("bad-2", now, &payer, "mj", "t-2");
    let mut good = record("good-1", now, &payer, "mj", "t-3");
    good.channel_id = 1;
    let rows: Vec<_> = [unknown, no_channel, good]
        .into_iter()
        .map(to_row)
        .collect();
    let outcome = control_plane::store::usage::ingest(app.db(), "gw-test", &rows)
        .await
        .unwrap();
    assert_eq!(outcome.inserted, 1);
    assert_eq!(outcome.rejected.len(), 2);
    assert!(outcome.rejected.iter().all(|r| r.code == "bad_task"));
}

on_both_backends!(
    drawings_and_songs_are_followed_to_their_end,
    bad_task_records_are_set_aside
);
