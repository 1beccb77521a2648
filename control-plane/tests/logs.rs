//! Usage logs (filters, admin vs. own view, stats, deletion, retention) and dashboard roll-ups.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Session, TestApp};
use serde_json::json;

struct Row<'a> {
    user: &'a Session,
    username: &'a str,
    age: i64,
    kind: i64,
    model: &'a str,
    token: &'a str,
    channel: i64,
    group: &'a str,
    quota: i64,
    tokens: (i64, i64),
}

async fn insert(app: &TestApp, r: Row<'_>) {
    let now = control_plane::store::now();
    sqlx::query(
        "INSERT INTO logs (user_id, created_at, type, username, token_name, model_name, quota, prompt_tokens, \
         completion_tokens, channel_id, \"group\", request_id, other) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
    )
    .bind(r.user.user_id)
    .bind(now - r.age)
    .bind(r.kind)
    .bind(r.username)
    .bind(r.token)
    .bind(r.model)
    .bind(r.quota)
    .bind(r.tokens.0)
    .bind(r.tokens.1)
    .bind(r.channel)
    .bind(r.group)
    .bind(format!("req-{}-{}", r.username, r.age))
    .bind(json!({"model_ratio": 1.25, "admin_info": {"use_channel": [r.channel]}}).to_string())
    .execute(&app.db().pool)
    .await
    .unwrap();
}

async fn logs_filters_views_and_stats(app: &TestApp) {
    let root = app.root().await;
    let alice = app.user(&root, "alice").await;
    let bob = app.user(&root, "bob").await;
    sqlx::query(
        "INSERT INTO channels (id, name, key_enc, models) VALUES (7, 'primary', '', 'gpt-4o')",
    )
    .execute(&app.db().pool)
    .await
    .unwrap();
    for (user, name, age, model, channel, quota) in [
        (&alice, "alice", 10, "gpt-4o", 7, 100),
        (&alice, "alice", 20, "gpt-4o-mini", 8, 50),
        (&alice, "alice", 7200, "gpt-4o", 7, 300),
        (&bob, "bob", 30, "claude-sonnet-4", 7, 1000),
    ] {
        insert(
            app,
            Row {
                user,
                username: name,
                age,
                kind: 2,
                model,
                token: "ci",
                channel,
                group: "default",
                quota,
                tokens: (10, 5),
            },
        )
        .await;
    }
    insert(
        app,
        Row {
            user: &alice,
            username: "alice",
            age: 5,
            kind: 1,
            model: "",
            token: "",
            channel: 0,
            group: "",
            quota: 9999,
            tokens: (0, 0),
        },
    )
    .await;

    let all = app
        .get("/api/log/?p=1&page_size=10")
        .signed_in(&root)
        .send()
        .await;
    assert!(all.data()["total"].as_i64().unwrap() >= 5);
    let first = &all.data()["items"][0];
    assert!(first.get("type").is_some() && first.get("channel_name").is_some());
    let by_channel = app
        .get("/api/log/?channel=7&type=2")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(by_channel.data()["total"], json!(3));
    assert_eq!(
        by_channel.data()["items"][0]["channel_name"],
        json!("primary")
    );
    let by_user = app
        .get("/api/log/?username=bob")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(by_user.data()["total"], json!(1));
    // The filter names a user, not the text on the row: after a rename, the rows written under
    // the old name are found by the new one, and the old name finds nothing.
    sqlx::query("UPDATE users SET username = 'robert' WHERE username = 'bob'")
        .execute(&app.db().pool)
        .await
        .unwrap();
    for (name, total) in [("robert", 1), ("bob", 0), ("nobody", 0)] {
        let found = app
            .get(&format!("/api/log/?username={name}"))
            .signed_in(&root)
            .send()
            .await;
        assert_eq!(found.data()["total"], json!(total), "username={name}");
    }
    sqlx::query("UPDATE users SET username = 'bob' WHERE username = 'robert'")
        .execute(&app.db().pool)
        .await
        .unwrap();
    let by_model = app
        .get("/api/log/?model_name=gpt-4o&type=2")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(
        by_model.data()["total"],
        json!(3),
        "model filter matches by part of the name"
    );
    let now = control_plane::store::now();
    let by_time = app
        .get(&format!(
            "/api/log/?type=2&start_timestamp={}&end_timestamp={}",
            now - 60,
            now + 60
        ))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(by_time.data()["total"], json!(3));
    let by_request = app
        .get("/api/log/?request_id=req-bob-30")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(by_request.data()["total"], json!(1));

    let own = app
        .get("/api/log/self/?type=2&username=bob&channel=8")
        .signed_in(&alice)
        .send()
        .await;
    assert_eq!(
        own.data()["total"],
        json!(3),
        "own logs only; username and channel ignored"
    );
    let item = &own.data()["items"][0];
    assert_eq!(item["channel"], json!(0));
    assert!(
        !item["other"].as_str().unwrap().contains("admin_info"),
        "channel details stay with admins"
    );
    assert!(item["other"].as_str().unwrap().contains("model_ratio"));

    let stats = app
        .get("/api/log/stat?type=2")
        .signed_in(&root)
        .send()
        .await;
    // No start time: the last minute's rates, totals of everything.
    assert_eq!(
        stats.data(),
        &json!({"quota": 1450, "rpm": 3, "tpm": 45, "requests": 4, "prompt_tokens": 40,
                "completion_tokens": 20, "tokens": 60})
    );
    let own_stats = app.get("/api/log/self/stat").signed_in(&alice).send().await;
    assert_eq!(
        own_stats.data(),
        &json!({"quota": 450, "rpm": 2, "tpm": 30, "requests": 3, "prompt_tokens": 30,
                "completion_tokens": 15, "tokens": 45})
    );
    // A range: averages over it (alice's 3 requests over the last 3 hours: 180 minutes).
    let now = control_plane::store::now();
    let ranged = app
        .get(&format!(
            "/api/log/self/stat?start_timestamp={}",
            now - 3 * 3600
        ))
        .signed_in(&alice)
        .send()
        .await;
    assert_eq!(ranged.data()["requests"], json!(3));
    assert_eq!(ranged.data()["rpm"], json!(0), "3 requests in 180 minutes");
    let last_minutes = app
        .get(&format!("/api/log/self/stat?start_timestamp={}", now - 60))
        .signed_in(&alice)
        .send()
        .await;
    assert_eq!(last_minutes.data()["rpm"], json!(2));
    assert_eq!(last_minutes.data()["tpm"], json!(30));

    app.delete("/api/log/")
        .signed_in(&root)
        .send()
        .await
        .assert_rejected("choose the time before which logs are deleted");
    let removed = app
        .delete(&format!("/api/log/?target_timestamp={}", now - 3600))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(removed.data(), &json!(1), "only the two-hour-old record");
    let admin = app.admin(&root, "admin").await;
    let refused = app
        .delete(&format!("/api/log/?target_timestamp={now}"))
        .signed_in(&admin)
        .send()
        .await;
    assert_eq!(
        refused.status,
        axum::http::StatusCode::FORBIDDEN,
        "deleting logs is for the super admin"
    );
}

async fn retention_deletes_old_logs(app: &TestApp) {
    let root = app.root().await;
    let user = app.user(&root, "old").await;
    for age in [10, 3 * 86_400] {
        insert(
            app,
            Row {
                user: &user,
                username: "old",
                age,
                kind: 2,
                model: "m",
                token: "t",
                channel: 0,
                group: "default",
                quota: 1,
                tokens: (1, 1),
            },
        )
        .await;
    }
    assert_eq!(
        control_plane::jobs::apply_log_retention(&app.state)
            .await
            .unwrap(),
        0,
        "0 keeps everything"
    );
    app.set_option("LogRetentionDays", "2").await;
    assert_eq!(
        control_plane::jobs::apply_log_retention(&app.state)
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        app.get("/api/log/self/")
            .signed_in(&user)
            .send()
            .await
            .data()["total"],
        json!(1)
    );
}

/// The partitions (PostgreSQL) that hold logs, by name.
async fn partitions(app: &TestApp) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT CAST(c.relname AS TEXT) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid \
         WHERE i.inhparent = CAST('logs' AS regclass) ORDER BY 1",
    )
    .fetch_all(&app.db().pool)
    .await
    .unwrap()
}

/// Where a record is stored (PostgreSQL): the partition's name.
async fn partition_of(app: &TestApp, request_id: &str) -> String {
    sqlx::query_scalar(
        "SELECT CAST(CAST(tableoid AS regclass) AS TEXT) FROM logs WHERE request_id = $1",
    )
    .bind(request_id)
    .fetch_one(&app.db().pool)
    .await
    .unwrap()
}

async fn old_months_are_dropped_whole(app: &TestApp) {
    use control_plane::store::logs::{delete_before, prepare_months};
    const DAY: i64 = 86_400;
    let db = app.db();
    let pg = db.kind == control_plane::store::DbKind::Postgres;
    let now = control_plane::store::now();
    // September 2001: no month of its own yet, so (on PostgreSQL) the default partition.
    let ancient = 1_000_000_000;
    prepare_months(db, now - 100 * DAY).await.unwrap();
    for (request_id, at) in [
        ("ancient", ancient),
        ("100-days", now - 100 * DAY),
        ("40-days", now - 40 * DAY),
        ("today", now - 10),
    ] {
        sqlx::query(
            "INSERT INTO logs (user_id, created_at, type, request_id) VALUES (1, $1, 2, $2)",
        )
        .bind(at)
        .bind(request_id)
        .execute(&db.pool)
        .await
        .unwrap();
    }
    if pg {
        assert_eq!(partition_of(app, "ancient").await, "logs_default");
        prepare_months(db, ancient).await.unwrap();
        assert_eq!(
            partition_of(app, "ancient").await,
            "logs_2001_09",
            "a new month takes its records out of the default partition"
        );
        prepare_months(db, ancient).await.unwrap();
        assert_eq!(
            partition_of(app, "ancient").await,
            "logs_2001_09",
            "preparing twice changes nothing"
        );
    }
    let before = if pg { partitions(app).await.len() } else { 0 };
    let cut = now - 60 * DAY;
    // The months prepared from 100 days ago on that end by the cut, 40 days later: one, or two
    // when the cut falls early in a month (100 days before 30 November is 22 August, and the
    // cut is 1 October, after both August and September).
    let gone_recently: i64 = if pg {
        sqlx::query_scalar(
            "SELECT CAST(COUNT(*) AS BIGINT) FROM generate_series(0, 2) AS m \
             WHERE extract(epoch FROM (date_trunc('month', to_timestamp($1) AT TIME ZONE 'UTC') \
             + make_interval(months => m + 1)) AT TIME ZONE 'UTC') <= $2",
        )
        .bind(now - 100 * DAY)
        .bind(cut)
        .fetch_one(&db.pool)
        .await
        .unwrap()
    } else {
        0
    };
    assert_eq!(delete_before(db, cut).await.unwrap(), 2);
    let left: Vec<String> = sqlx::query_scalar("SELECT request_id FROM logs ORDER BY created_at")
        .fetch_all(&db.pool)
        .await
        .unwrap();
    assert_eq!(left, ["40-days", "today"]);
    if pg {
        let after = partitions(app).await;
        assert!(!after.contains(&"logs_2001_09".to_owned()), "{after:?}");
        assert!((1..=2).contains(&gone_recently), "{gone_recently}");
        assert_eq!(
            after.len(),
            before - 3 - usize::try_from(gone_recently).unwrap_or(0),
            "the months wholly before the cut went (September to November 2001, and those of 100 days ago): {after:?}"
        );
        assert!(after.contains(&"logs_default".to_owned()));
        assert_eq!(partition_of(app, "today").await.len(), "logs_yyyy_mm".len());
    }
    assert_eq!(delete_before(db, now - 60 * DAY).await.unwrap(), 0);
}

async fn dashboard_rollups(app: &TestApp) {
    let root = app.root().await;
    let carol = app.user(&root, "carol").await;
    let dave = app.user(&root, "dave").await;
    let hour = control_plane::store::now() / 3600 * 3600;
    for (user, name, model, at, quota, tokens) in [
        (&carol, "carol", "gpt-4o", hour, 100, 10),
        (&carol, "carol", "gpt-4o", hour, 50, 5),
        (&carol, "carol", "gpt-4o-mini", hour - 3600, 7, 1),
        (&dave, "dave", "gpt-4o", hour, 1000, 100),
    ] {
        control_plane::store::quota_data::add(
            &app.db().pool,
            user.user_id,
            name,
            model,
            at,
            quota,
            tokens,
        )
        .await
        .unwrap();
    }
    let start = hour - 7200;
    let end = hour + 60;
    let by_model = app
        .get(&format!(
            "/api/data/?start_timestamp={start}&end_timestamp={end}"
        ))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(
        by_model.data(),
        &json!([
            {"model_name": "gpt-4o-mini", "created_at": hour - 3600, "count": 1, "quota": 7, "token_used": 1},
            {"model_name": "gpt-4o", "created_at": hour, "count": 3, "quota": 1150, "token_used": 115}
        ])
    );
    let one_user = app
        .get(&format!(
            "/api/data/?start_timestamp={start}&end_timestamp={end}&username=dave"
        ))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(one_user.data()[0]["quota"], json!(1000));
    let by_user = app
        .get(&format!(
            "/api/data/users?start_timestamp={start}&end_timestamp={end}"
        ))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(by_user.data().as_array().unwrap().len(), 3);
    let dave_only = app
        .get(&format!(
            "/api/data/users?start_timestamp={start}&end_timestamp={end}&username=dave"
        ))
        .signed_in(&root)
        .send()
        .await;
    let rows = dave_only.data().as_array().unwrap();
    assert!(
        !rows.is_empty() && rows.iter().all(|r| r["username"] == "dave"),
        "{rows:?}"
    );
    let own = app
        .get(&format!(
            "/api/data/self?start_timestamp={start}&end_timestamp={end}"
        ))
        .signed_in(&carol)
        .send()
        .await;
    assert_eq!(
        own.data()[1],
        json!({"model_name": "gpt-4o", "created_at": hour, "count": 2, "quota": 150, "token_used": 15})
    );
    app.get(&format!(
        "/api/data/self?start_timestamp={}&end_timestamp={end}",
        end - 31 * 86_400
    ))
    .signed_in(&carol)
    .send()
    .await
    .assert_rejected("the time range cannot be longer than 30 days");
}

/// Counts and totals over long ranges (read from the hourly roll-up on PostgreSQL) equal those
/// of the rows themselves, after inserts (one statement of many rows, redeliveries that insert
/// nothing, single events), retention and months dropped whole.
async fn long_ranges_count_every_row(app: &TestApp) {
    use control_plane::store::log_rollup;
    use control_plane::store::logs::{LogFilter, delete_before, list, prepare_months, stats};
    const DAY: i64 = 86_400;
    let db = app.db();
    let pg = db.kind == control_plane::store::DbKind::Postgres;
    let now = control_plane::store::now();
    prepare_months(db, now - 80 * DAY).await.unwrap();
    prepare_months(db, now - 40 * DAY).await.unwrap();
    // Rows on and around hour boundaries, over 70 days, of three types.
    let hour = now / 3600 * 3600;
    let mut ages: Vec<i64> = (0..70).map(|d| d * DAY + 17).collect();
    for h in [1, 2, 3, 5, 30] {
        let edge = now - (hour - h * 3600);
        ages.extend([edge - 1, edge, edge + 1]);
    }
    ages.extend([0, 1, 59, 3599, 3600, 3601]);
    let mut insert = String::from(
        "INSERT INTO logs (user_id, created_at, type, quota, prompt_tokens, completion_tokens, request_id) VALUES ",
    );
    for (i, age) in ages.iter().enumerate() {
        let kind = [2, 2, 6, 1][i % 4];
        if i > 0 {
            insert.push_str(", ");
        }
        insert.push_str(&format!(
            "(1, {}, {kind}, {}, {}, {}, 'long-{i}')",
            now - age,
            10 + i,
            100 + i,
            1000 + i
        ));
    }
    sqlx::query(sqlx::AssertSqlSafe(insert.clone()))
        .execute(&db.pool)
        .await
        .unwrap();
    // Redelivered: nothing is inserted, nothing is counted twice.
    let redelivered = format!("{insert} ON CONFLICT DO NOTHING");
    sqlx::query(sqlx::AssertSqlSafe(redelivered))
        .execute(&db.pool)
        .await
        .unwrap();
    control_plane::store::logs::insert_event(
        &db.pool,
        control_plane::store::logs::EventLog {
            user_id: 1,
            username: "root",
            kind: control_plane::store::logs::LogType::Topup,
            content: "top-up".into(),
            quota: 500,
        },
    )
    .await
    .unwrap();

    let check = |label: &'static str| async move {
        let ranges = [
            (Some(now - 7 * DAY), None),
            (Some(now - 7 * DAY), Some(now + 3600)),
            (Some(now - 30 * DAY - 1), Some(now - 2 * DAY + 5)),
            (Some(now - 65 * DAY), Some(now)),
            (Some(now - 2 * 3600), None),
            (Some(hour - 5 * 3600), Some(hour - 1)),
        ];
        for (start, end) in ranges {
            for kind in [None, Some(2), Some(6), Some(1)] {
                let f = LogFilter {
                    start,
                    end,
                    kind,
                    ..LogFilter::default()
                };
                let mut sql = String::from(
                    "SELECT COUNT(*), CAST(COALESCE(SUM(quota), 0) AS BIGINT), \
                     CAST(COALESCE(SUM(prompt_tokens), 0) AS BIGINT), \
                     CAST(COALESCE(SUM(completion_tokens), 0) AS BIGINT) FROM logs WHERE created_at >= $1",
                );
                if let Some(e) = end {
                    sql.push_str(&format!(" AND created_at <= {e}"));
                }
                let raw = |k: i64| {
                    let sql = format!("{sql} AND type = {k}");
                    async move {
                        sqlx::query_as::<_, (i64, i64, i64, i64)>(sqlx::AssertSqlSafe(sql))
                            .bind(start.unwrap())
                            .fetch_one(&db.pool)
                            .await
                            .unwrap()
                    }
                };
                let all: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(sql.replacen(
                    "SELECT COUNT(*), CAST(COALESCE(SUM(quota), 0) AS BIGINT), \
                     CAST(COALESCE(SUM(prompt_tokens), 0) AS BIGINT), \
                     CAST(COALESCE(SUM(completion_tokens), 0) AS BIGINT)",
                    "SELECT COUNT(*)",
                    1,
                )))
                .bind(start.unwrap())
                .fetch_one(&db.pool)
                .await
                .unwrap();
                let expected = match kind {
                    Some(k) => raw(k).await.0,
                    None => all,
                };
                let (_, total) = list(db, &f, 0, 5).await.unwrap();
                assert_eq!(
                    total, expected,
                    "{label}: count of {start:?}..{end:?} type {kind:?}"
                );
                let t = stats(db, &f, now).await.unwrap();
                let consumed = raw(2).await;
                assert_eq!(
                    (t.requests, t.quota, t.prompt_tokens, t.completion_tokens),
                    consumed,
                    "{label}: totals of {start:?}..{end:?}"
                );
            }
        }
        if pg {
            let week = LogFilter {
                start: Some(now - 7 * DAY),
                ..LogFilter::default()
            };
            assert!(
                log_rollup::sums(db, &week, None, now)
                    .await
                    .unwrap()
                    .is_some(),
                "a week of all users is read from the roll-up"
            );
        }
    };
    check("after inserts").await;
    assert!(delete_before(db, now - 50 * DAY).await.unwrap() > 0);
    check("after retention").await;
    // Deleting inside the current month removes rows one by one.
    assert!(delete_before(db, now - 10 * DAY - 3).await.unwrap() > 0);
    check("after deleting within a month").await;
    if pg {
        let drift: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM (SELECT created_at - created_at % 3600 AS hour, type, COUNT(*) AS n \
             FROM logs GROUP BY 1, 2) AS raw FULL JOIN (SELECT hour, type, SUM(requests) AS n \
             FROM logs_hourly GROUP BY 1, 2 HAVING SUM(requests) <> 0) AS rolled \
             USING (hour, type) WHERE raw.n IS DISTINCT FROM rolled.n",
        )
        .fetch_one(&db.pool)
        .await
        .unwrap();
        assert_eq!(drift, 0, "the roll-up holds every hour of the rows exactly");
        let changed = sqlx::query("UPDATE logs SET quota = quota + 1 WHERE request_id = 'long-0'")
            .execute(&db.pool)
            .await;
        assert!(
            changed.is_err(),
            "a rolled-up figure of a row cannot change behind the roll-up"
        );
    }
}

on_both_backends!(
    logs_filters_views_and_stats,
    retention_deletes_old_logs,
    old_months_are_dropped_whole,
    dashboard_rollups,
    long_ranges_count_every_row
);
