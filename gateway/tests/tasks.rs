//! Midjourney tasks end to end (control plane, gateway, the mock's Midjourney-Proxy): a
//! submission through the gateway is priced by its action and charged once when the proxy
//! accepts it; the control plane follows the task to its end; fetches through the gateway see
//! the caller's own tasks only; a failed task is refunded once, also across a restart of the
//! control plane in the middle of polling; actions need a finished parent unless
//! `MjActionCheckSuccessEnabled` is off.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::Reply;
use common::system::{Gateway, System, send_json};
use serde_json::{Value, json};

async fn user_quota(sys: &System) -> i64 {
    sys.cp
        .ok("GET", &format!("/api/user/{}", sys.user_id), Value::Null)
        .await["quota"]
        .as_i64()
        .unwrap()
}

/// Polls `f` until it returns `Some`, for at most `limit`.
async fn eventually<T, F, Fut>(limit: Duration, what: &str, mut f: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let start = Instant::now();
    loop {
        if let Some(v) = f().await {
            return v;
        }
        assert!(start.elapsed() < limit, "never: {what}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// A Midjourney channel at the mock with `prices` (USD per call), and a gateway.
async fn midjourney_gateway(sys: &System, prices: Value) -> Gateway {
    let models: Vec<&str> = prices
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default();
    sys.cp
        .ok(
            "POST",
            "/api/channel/",
            json!({"type": 2, "name": "mj", "key": "mj-secret", "models": models.join(","),
                   "group": "default", "base_url": sys.mock.url()}),
        )
        .await;
    sys.cp
        .ok(
            "PUT",
            "/api/option/",
            json!({"key": "ModelPrice", "value": prices.to_string()}),
        )
        .await;
    sys.gateway("gw-mj").await
}

/// A Midjourney-Proxy call through the gateway with `key` in `mj-api-secret`.
async fn mj(gw: &Gateway, method: &str, path: &str, key: &str, body: Value) -> Reply {
    let url = format!("http://{}{path}", gw.addr);
    send_json(method, &url, &[("mj-api-secret", key)], body).await
}

/// The drawing `id` as the caller fetches it through the gateway, once its status is `status`.
async fn drawing_in(gw: &Gateway, key: &str, id: &str, status: &str) -> Value {
    let path = format!("/mj/task/{id}/fetch");
    eventually(Duration::from_secs(60), status, || async {
        let r = mj(gw, "GET", &path, key, Value::Null).await;
        (r.status == 200 && r.json()["status"] == status).then(|| r.json())
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drawings_are_charged_once_followed_to_the_end_and_private() {
    let sys = System::start(false).await.unwrap();
    let gw = midjourney_gateway(&sys, json!({"mj_imagine": 0.1, "swap_face": 0.05})).await;
    let url = |path: &str| format!("http://{}{path}", gw.addr);
    let key = sys.key.clone();
    let submit = |prompt: &'static str| {
        let (url, key) = (url("/mj/submit/imagine"), key.clone());
        async move {
            send_json(
                "POST",
                &url,
                &[
                    ("mj-api-secret", key.as_str()),
                    ("authorization", "midjourney-proxy"),
                ],
                json!({"prompt": prompt, "notifyHook": "https://hooks.example/x"}),
            )
            .await
        }
    };
    let before = user_quota(&sys).await;
    // The gateway learns the channel and the price from the config feed.
    let accepted = eventually(
        Duration::from_secs(10),
        "the drawing is accepted",
        || async {
            let r = submit("a red fox --fast").await;
            (r.status == 200).then(|| r.json())
        },
    )
    .await;
    assert_eq!(accepted["code"], 1, "{accepted}");
    let id = accepted["result"].as_str().unwrap().to_owned();
    // 0.1 USD at 500 000 quota a dollar, charged once.
    let charged = eventually(
        Duration::from_secs(10),
        "the charge is recorded",
        || async {
            let now = user_quota(&sys).await;
            (now < before).then_some(before - now)
        },
    )
    .await;
    assert_eq!(charged, 50_000);
    // The options shaped what the proxy got: no callback (MjNotifyEnabled is off), the speed
    // flag kept (MjModeClearEnabled is off).
    let seen = sys.mock.with_stats(|s| s.mj_last_submit.clone()).unwrap();
    assert_eq!(seen, json!({"prompt": "a red fox --fast"}));

    // Followed to the end by the control plane; fetched through the gateway.
    let fetch = |id: String, key: String| {
        let url = url(&format!("/mj/task/{id}/fetch"));
        async move { send_json("GET", &url, &[("mj-api-secret", key.as_str())], Value::Null).await }
    };
    let done = eventually(Duration::from_secs(60), "the drawing succeeds", || async {
        let r = fetch(id.clone(), key.clone()).await;
        (r.status == 200 && r.json()["status"] == "SUCCESS").then(|| r.json())
    })
    .await;
    assert!(
        done["imageUrl"].as_str().unwrap().ends_with(".png"),
        "{done}"
    );
    assert_eq!(done["buttons"].as_array().map(Vec::len), Some(8), "{done}");
    assert_eq!(user_quota(&sys).await, before - 50_000, "charged once");

    // The seed comes from the channel the task ran at.
    let seed = send_json(
        "GET",
        &url(&format!("/mj/task/{id}/image-seed")),
        &[("mj-api-secret", key.as_str())],
        Value::Null,
    )
    .await;
    assert_eq!(seed.status, 200, "{}", seed.text());
    assert_eq!(seed.json()["code"], 1, "{}", seed.text());
    // A face swap is a task of its own, priced as swap_face.
    let swap = send_json(
        "POST",
        &url("/mj/insight-face/swap"),
        &[("mj-api-secret", key.as_str())],
        json!({"sourceBase64": "data:image/png;base64,AAAA", "targetBase64": "data:image/png;base64,BBBB"}),
    )
    .await;
    assert_eq!(swap.json()["code"], 1, "{}", swap.text());
    eventually(Duration::from_secs(10), "the swap is charged", || async {
        (user_quota(&sys).await == before - 75_000).then_some(())
    })
    .await;
    // Errors of the gateway's own are in Midjourney-Proxy's shape.
    let refused = send_json(
        "POST",
        &url("/mj/submit/imagine"),
        &[("mj-api-secret", "sk-not-a-key")],
        json!({"prompt": "x"}),
    )
    .await;
    assert_eq!(refused.status, 401);
    assert_eq!(refused.json()["code"], 401, "{}", refused.text());
    assert!(
        refused.json()["description"].is_string(),
        "{}",
        refused.text()
    );

    // With MjForwardUrlEnabled the image is shown, and served, through the gateway.
    let server = format!("http://{}", gw.addr);
    for (key, value) in [
        ("ServerAddress", server.as_str()),
        ("MjForwardUrlEnabled", "true"),
    ] {
        sys.cp
            .ok("PUT", "/api/option/", json!({"key": key, "value": value}))
            .await;
    }
    let proxied = format!("{server}/mj/image/{id}");
    eventually(
        Duration::from_secs(10),
        "the image URL is the proxy's",
        || async {
            let r = fetch(id.clone(), key.clone()).await;
            (r.json()["imageUrl"] == proxied.as_str()).then_some(())
        },
    )
    .await;
    let image = send_json("GET", &proxied, &[], Value::Null).await;
    assert_eq!(image.status, 200, "{}", image.text());
    assert_eq!(
        image
            .headers
            .get("content-type")
            .and_then(|v| v.to_str().ok()),
        Some("image/png")
    );
    assert!(image.body.starts_with(b"\x89PNG"), "a PNG");
    let missing = send_json(
        "GET",
        &format!("{server}/mj/image/unknown"),
        &[],
        Value::Null,
    )
    .await;
    assert_eq!(missing.status, 404);

    // Another user's key finds nothing under that id.
    sys.cp
        .ok(
            "POST",
            "/api/user/",
            json!({"username": "other", "password": "other-pass-1", "display_name": "other"}),
        )
        .await;
    let other = sys.cp.login("other", "other-pass-1").await;
    let reply = sys
        .cp
        .call_as(
            &other,
            "POST",
            "/api/token/",
            json!({"name": "o", "remain_quota": 0, "unlimited_quota": true, "expired_time": -1}),
        )
        .await;
    let other_key = reply["data"][0]["key"].as_str().unwrap().to_owned();
    // (Once the gateway knows the new token.)
    let foreign = eventually(
        Duration::from_secs(10),
        "the other key is known",
        || async {
            let r = fetch(id.clone(), other_key.clone()).await;
            (r.status != 401).then_some(r)
        },
    )
    .await;
    assert_eq!(foreign.status, 404, "{}", foreign.text());
    assert_eq!(foreign.json()["description"], "task_no_found");

    // A task that fails is refunded, once.
    let failing = submit("this one will fail").await;
    assert_eq!(failing.status, 200, "{}", failing.text());
    let failing_id = failing.json()["result"].as_str().unwrap().to_owned();
    let failed = eventually(Duration::from_secs(60), "the failure is seen", || async {
        let r = fetch(failing_id.clone(), key.clone()).await;
        (r.status == 200 && r.json()["status"] == "FAILURE").then(|| r.json())
    })
    .await;
    assert!(!failed["failReason"].as_str().unwrap().is_empty());
    eventually(Duration::from_secs(10), "the refund", || async {
        (user_quota(&sys).await == before - 75_000).then_some(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn songs_are_charged_when_accepted_and_fetched_until_done() {
    let sys = System::start(false).await.unwrap();
    sys.cp
        .ok(
            "POST",
            "/api/channel/",
            json!({"type": 36, "name": "suno", "key": "suno-key", "models": "suno_music",
                   "group": "default", "base_url": sys.mock.url()}),
        )
        .await;
    sys.cp
        .ok(
            "PUT",
            "/api/option/",
            json!({"key": "ModelPrice", "value": json!({"suno_music": 0.2}).to_string()}),
        )
        .await;
    let gw = sys.gateway("gw-suno").await;
    let url = |path: &str| format!("http://{}{path}", gw.addr);
    let bearer = format!("Bearer {}", sys.key);
    let before = user_quota(&sys).await;
    // A submission the provider refuses (no prompt) costs nothing.
    let refused = eventually(Duration::from_secs(10), "the channel is known", || async {
        let r = send_json(
            "POST",
            &url("/suno/submit/music"),
            &[("authorization", bearer.as_str())],
            json!({"title": "no prompt"}),
        )
        .await;
        (r.status != 503).then_some(r)
    })
    .await;
    assert_eq!(refused.status, 400, "{}", refused.text());
    let accepted = send_json(
        "POST",
        &url("/suno/submit/music"),
        &[("authorization", bearer.as_str())],
        json!({"prompt": "a sea shanty", "mv": "chirp-v3-5"}),
    )
    .await;
    assert_eq!(accepted.status, 200, "{}", accepted.text());
    assert_eq!(accepted.json()["code"], "success");
    let id = accepted.json()["data"].as_str().unwrap().to_owned();
    let done = eventually(Duration::from_secs(60), "the song is done", || async {
        let r = send_json(
            "GET",
            &url(&format!("/suno/fetch/{id}")),
            &[("authorization", bearer.as_str())],
            Value::Null,
        )
        .await;
        (r.status == 200 && r.json()["data"]["status"] == "SUCCESS").then(|| r.json())
    })
    .await;
    assert_eq!(
        done["data"]["data"].as_array().map(Vec::len),
        Some(2),
        "{done}"
    );
    let listed = send_json(
        "POST",
        &url("/suno/fetch"),
        &[("authorization", bearer.as_str())],
        json!({"ids": [id, "someone-elses"]}),
    )
    .await;
    assert_eq!(listed.json()["data"].as_array().map(Vec::len), Some(1));
    // 0.2 USD, once: the refused submission was free.
    assert_eq!(user_quota(&sys).await, before - 100_000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn polling_survives_a_control_plane_restart_and_actions_need_a_finished_task() {
    let mut sys = System::start(false).await.unwrap();
    let gw = midjourney_gateway(&sys, json!({"mj_imagine": 0.1, "mj_upscale": 0.02})).await;
    let key = sys.key.clone();
    let before = user_quota(&sys).await;
    let imagine = |prompt: &'static str| {
        let (gw, key) = (&gw, key.clone());
        async move {
            eventually(Duration::from_secs(10), "accepted", || async {
                let r = mj(
                    gw,
                    "POST",
                    "/mj/submit/imagine",
                    &key,
                    json!({"prompt": prompt}),
                )
                .await;
                (r.status == 200).then(|| r.json()["result"].as_str().unwrap().to_owned())
            })
            .await
        }
    };
    let lake = imagine("a quiet lake").await;
    let broken = imagine("a drawing that will fail").await;
    eventually(Duration::from_secs(10), "both charged", || async {
        (user_quota(&sys).await == before - 100_000).then_some(())
    })
    .await;

    // An action on a drawing that is not finished yet is refused by the gateway (the option is
    // on by default), in the proxy's shape and free.
    let upscale = |parent: &str| json!({"taskId": parent, "customId": format!("MJ::JOB::upsample::1::{parent}")});
    let early = mj(&gw, "POST", "/mj/submit/action", &key, upscale(&lake)).await;
    assert_eq!(early.status, 400, "{}", early.text());
    assert!(early.json()["description"].is_string(), "{}", early.text());

    // Polling has begun: kill the control plane while the drawing is in progress.
    drawing_in(&gw, &key, &lake, "IN_PROGRESS").await;
    sys.cp.kill();
    let upstream_calls = || sys.mock.with_stats(|s| s.mj_calls.values().sum::<u64>());
    let calls_when_down = upstream_calls();
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(
        upstream_calls(),
        calls_when_down,
        "nobody polls while it is down"
    );

    // Started again, it picks the unfinished drawings up where they were.
    sys.cp.launch().await;
    let done = drawing_in(&gw, &key, &lake, "SUCCESS").await;
    assert!(
        done["imageUrl"].as_str().unwrap().ends_with(".png"),
        "{done}"
    );
    let failed = drawing_in(&gw, &key, &broken, "FAILURE").await;
    assert!(
        !failed["failReason"].as_str().unwrap().is_empty(),
        "{failed}"
    );
    // Charged once for the finished one, the failed one refunded once.
    eventually(Duration::from_secs(10), "the refund", || async {
        (user_quota(&sys).await == before - 50_000).then_some(())
    })
    .await;

    // Now the action builds on a finished drawing of the caller's and is charged as an upscale.
    let upscaled = mj(&gw, "POST", "/mj/submit/action", &key, upscale(&lake)).await;
    assert_eq!(upscaled.status, 200, "{}", upscaled.text());
    assert_eq!(upscaled.json()["code"], 1, "{}", upscaled.text());
    eventually(
        Duration::from_secs(10),
        "the upscale is charged",
        || async { (user_quota(&sys).await == before - 60_000).then_some(()) },
    )
    .await;
    // A failed parent is refused like an unfinished one.
    let on_failed = mj(&gw, "POST", "/mj/submit/action", &key, upscale(&broken)).await;
    assert_eq!(on_failed.status, 400, "{}", on_failed.text());

    // With MjActionCheckSuccessEnabled off the gateway leaves the judgement to the proxy, which
    // accepts an action on any drawing it knows, the failed one too.
    sys.cp
        .ok(
            "PUT",
            "/api/option/",
            json!({"key": "MjActionCheckSuccessEnabled", "value": "false"}),
        )
        .await;
    let unchecked = eventually(
        Duration::from_secs(10),
        "the option reaches the gateway",
        || async {
            let r = mj(&gw, "POST", "/mj/submit/action", &key, upscale(&broken)).await;
            (r.status == 200).then_some(r)
        },
    )
    .await;
    assert_eq!(unchecked.json()["code"], 1, "{}", unchecked.text());
    // That upscale inherits the failing prompt: it fails in turn and is refunded.
    let second = unchecked.json()["result"].as_str().unwrap().to_owned();
    drawing_in(&gw, &key, &second, "FAILURE").await;
    eventually(Duration::from_secs(10), "the second refund", || async {
        (user_quota(&sys).await == before - 60_000).then_some(())
    })
    .await;
    // Every refund happened once: polls go on, the balance does not move.
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(user_quota(&sys).await, before - 60_000);
}
