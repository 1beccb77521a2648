//! End to end over real sockets: the OpenAI media endpoints (images, audio, rerank,
//! moderations) through the gateway to the mock provider, each billed exactly by the formulas
//! of `relay::media::price`; a 3 MB upload passed on byte for byte; failover of a media
//! request; the 501 answers; the billing endpoints; bad input refused with nothing charged.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use bytes::Bytes;
use common::*;
use gateway::usage::{MemorySink, UsageRecord};
use gateway::{RunningGateway, ServeOptions, build_state};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const QPU: f64 = 500_000.0;
const BOUNDARY: &str = "----gatewayTestBoundary7MA4YWxk";

async fn mock() -> mock_provider::MockHandle {
    mock_provider::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap()
}

/// A gateway whose non-relay paths are forwarded to `forward_to` (as in production, where the
/// control plane answers `/api`): the gateway must still answer `/api/usage/token` itself.
async fn gateway(snapshot: Value, forward_to: std::net::SocketAddr) -> Gw {
    let sink = Arc::new(MemorySink::default());
    let raw = serde_json::from_value(snapshot).expect("snapshot JSON");
    let state = build_state(&raw, sink.clone()).expect("valid snapshot");
    let addr: std::net::SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let admin: std::net::SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let opts = ServeOptions {
        forward_to: Some(forward_to),
        ..ServeOptions::new(addr.to_string(), Some(admin.to_string()))
    };
    let running = tokio::task::spawn_blocking(move || RunningGateway::spawn(state, &opts))
        .await
        .unwrap();
    for a in [addr, admin] {
        wait_listening(a).await;
    }
    Gw {
        addr,
        admin,
        sink,
        running: Some(running),
    }
}

/// Every media model on one mock channel (whisper-1 mapped to `whisper-large-v3`), priced:
/// dall-e-3 $0.04 and dall-e / dall-e-2 $0.02 an image, gpt-image-1 ratio 2.5 (completion 4),
/// tts-1 7.5, whisper-1 15, gpt-4o-transcribe 1.25 (completion 4), rerank-fixed $0.001 a call,
/// bge-rerank ratio 0.5, text-moderation-stable ratio 1.
fn media_snapshot(m: &mock_provider::MockHandle) -> Value {
    let models = [
        "dall-e",
        "dall-e-2",
        "dall-e-3",
        "gpt-image-1",
        "tts-1",
        "whisper-1",
        "gpt-4o-transcribe",
        "rerank-fixed",
        "bge-rerank",
        "text-moderation-stable",
    ];
    let mut ch = channel(1, &m.scenario_url("tag=media"), &models, 0, 1);
    ch["model_mapping"] = json!({"whisper-1": "whisper-large-v3"});
    let mut snap = snapshot(vec![
        ch,
        channel(
            10,
            &m.scenario_url("tag=down,status=500"),
            &["whisper-fo"],
            10,
            1,
        ),
        channel(11, &m.scenario_url("tag=up"), &["whisper-fo"], 0, 1),
    ]);
    snap["pricing"] = json!({
        "model_ratio": {"gpt-image-1": 2.5, "tts-1": 7.5, "whisper-1": 15.0, "whisper-fo": 15.0,
                        "gpt-4o-transcribe": 1.25, "bge-rerank": 0.5, "text-moderation-stable": 1.0},
        "completion_ratio": {"gpt-image-1": 4.0, "gpt-4o-transcribe": 4.0},
        "model_price": {"dall-e": 0.02, "dall-e-2": 0.02, "dall-e-3": 0.04, "rerank-fixed": 0.001},
        "group_ratio": {"default": 1.0}
    });
    snap
}

/// A figure of the formula as the gateway rounds it.
fn q(x: f64) -> i64 {
    x.round() as i64
}

fn sha256(b: &[u8]) -> String {
    Sha256::digest(b)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A multipart body of text fields and one file.
fn form(fields: &[(&str, &str)], file: Option<(&str, &str, &[u8])>) -> Bytes {
    let mut out = Vec::new();
    for (k, v) in fields {
        out.extend_from_slice(
            format!("--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n")
                .as_bytes(),
        );
    }
    if let Some((name, filename, data)) = file {
        out.extend_from_slice(
            format!("--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{filename}\"\r\nContent-Type: application/octet-stream\r\n\r\n")
                .as_bytes(),
        );
        out.extend_from_slice(data);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    Bytes::from(out)
}

async fn upload(gw: &Gw, path: &str, body: Bytes) -> Reply {
    let ct = format!("multipart/form-data; boundary={BOUNDARY}");
    send(
        "POST",
        &gw.url(path),
        &[("authorization", "Bearer sk-alice"), ("content-type", &ct)],
        body,
    )
    .await
}

/// A 16 kHz 16-bit mono PCM WAV of `seconds`.
fn wav(seconds: u32) -> Vec<u8> {
    let rate = 16_000u32;
    let data = rate * 2 * seconds;
    let mut b = Vec::with_capacity(data as usize + 44);
    b.extend_from_slice(b"RIFF");
    b.extend_from_slice(&(36 + data).to_le_bytes());
    b.extend_from_slice(b"WAVEfmt ");
    b.extend_from_slice(&16u32.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&rate.to_le_bytes());
    b.extend_from_slice(&(rate * 2).to_le_bytes());
    b.extend_from_slice(&2u16.to_le_bytes());
    b.extend_from_slice(&16u16.to_le_bytes());
    b.extend_from_slice(b"data");
    b.extend_from_slice(&data.to_le_bytes());
    // Pseudo-random samples (with the boundary's leading dashes among them now and then).
    let mut x = 0x2545_f491u32;
    b.extend((0..data).map(|_| {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x as u8
    }));
    b
}

/// `frames` MPEG-1 Layer III frames, 128 kbit/s at 44.1 kHz (1152 samples each).
fn mp3(frames: usize) -> Vec<u8> {
    let mut b = Vec::new();
    for i in 0..frames {
        let pad = u8::from(i % 2 == 1);
        b.extend_from_slice(&[0xFF, 0xFB, 0x90 | (pad << 1), 0x64]);
        b.extend(std::iter::repeat_n(0x55u8, 417 + usize::from(pad) - 4));
    }
    b
}

/// Checks the record of `reply` and the user's balance: charged exactly `quota`.
async fn charged(gw: &Gw, reply: &Reply, before: i64, quota: i64) -> UsageRecord {
    let rec = gw.record(&reply.request_id()).await;
    assert_eq!(rec.quota, quota, "record: {rec:?}");
    assert_eq!(gw.user_quota(1), before - quota);
    rec
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn images_are_billed_per_image_by_size_and_quality() {
    let m = mock().await;
    let gw = gateway(media_snapshot(&m), m.addr).await;
    // dall-e-3, 2 tall hd images: 0.04 × 500000 × group 1 × size 2 × quality 1.5 × n 2.
    let before = gw.user_quota(1);
    let r = gw
        .post(
            "/v1/images/generations",
            "alice",
            json!({"model": "dall-e-3", "prompt": "a lighthouse", "n": 2, "size": "1024x1792", "quality": "hd"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["data"].as_array().unwrap().len(), 2);
    let rec = charged(&gw, &r, before, q(0.04 * QPU * 2.0 * 1.5 * 2.0)).await;
    assert_eq!(rec.model_name, "dall-e-3");
    assert_eq!(last_seen(&m).path, "/v1/images/generations");

    // No model: the reference's default `dall-e` ($0.02, size 1024² ratio 1).
    let before = gw.user_quota(1);
    let r = gw
        .post(
            "/v1/images/generations",
            "alice",
            json!({"prompt": "a cat"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(last_seen(&m).model.as_deref(), Some("dall-e"));
    charged(&gw, &r, before, q(0.02 * QPU)).await;

    // gpt-image-1 reports token usage: (12 input + 4160 output × completion 4) × ratio 2.5.
    let before = gw.user_quota(1);
    let r = gw
        .post(
            "/v1/images/generations",
            "alice",
            json!({"model": "gpt-image-1", "prompt": "a fox"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let out = mock_provider::IMAGE_OUTPUT_TOKENS as f64;
    let rec = charged(&gw, &r, before, q((12.0 + out * 4.0) * 2.5)).await;
    assert_eq!((rec.prompt_tokens, rec.completion_tokens), (12, 4160));

    // Edits as multipart: dall-e-2 at 512² (size ratio 0.45); the image arrives unchanged.
    let png: Vec<u8> = (0..50_000u32).map(|i| (i * 7 % 256) as u8).collect();
    let before = gw.user_quota(1);
    let r = upload(
        &gw,
        "/v1/images/edits",
        form(
            &[
                ("model", "dall-e-2"),
                ("prompt", "add a hat"),
                ("size", "512x512"),
            ],
            Some(("image", "cat.png", &png)),
        ),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let seen = last_seen(&m);
    assert_eq!(seen.file_sha256.as_deref(), Some(sha256(&png).as_str()));
    assert_eq!(seen.model.as_deref(), Some("dall-e-2"));
    charged(&gw, &r, before, q(0.02 * QPU * 0.45)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn speech_is_billed_by_characters_and_answers_audio() {
    let m = mock().await;
    let gw = gateway(media_snapshot(&m), m.addr).await;
    let before = gw.user_quota(1);
    let input = "Bonjour, ça va bien?"; // 20 characters (21 bytes)
    let r = gw
        .post(
            "/v1/audio/speech",
            "alice",
            json!({"input": input, "voice": "alloy"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.headers["content-type"], "audio/mpeg");
    assert_eq!(r.body.len(), mock_provider::SPEECH_BYTES);
    // Default model tts-1: 20 characters × ratio 7.5.
    assert_eq!(last_seen(&m).model.as_deref(), Some("tts-1"));
    let rec = charged(&gw, &r, before, 150).await;
    assert_eq!(rec.prompt_tokens, 20);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_3mb_upload_is_transcribed_and_billed_by_its_duration() {
    let m = mock().await;
    let gw = gateway(media_snapshot(&m), m.addr).await;
    let audio = wav(96); // 3 072 044 bytes
    assert!(audio.len() > 3_000_000);
    let before = gw.user_quota(1);
    let r = upload(
        &gw,
        "/v1/audio/transcriptions",
        form(
            &[("model", "whisper-1"), ("language", "en")],
            Some(("file", "speech.wav", &audio)),
        ),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["text"], mock_provider::TRANSCRIPT);
    let seen = last_seen(&m);
    // The same bytes, the model replaced by the channel's mapping.
    assert_eq!(seen.file_len, Some(audio.len()));
    assert_eq!(seen.file_sha256.as_deref(), Some(sha256(&audio).as_str()));
    assert_eq!(seen.model.as_deref(), Some("whisper-large-v3"));
    assert!(
        seen.content_type
            .unwrap()
            .starts_with("multipart/form-data; boundary=")
    );
    // 96 s at 1000 tokens a minute = 1600 tokens × ratio 15.
    let rec = charged(&gw, &r, before, 1600 * 15).await;
    assert_eq!(rec.prompt_tokens, 1600);
    assert_eq!(rec.model_name, "whisper-1");

    // Plain-text answers pass through, billed by the MP3's frames: 230 × 1152 / 44100 s
    // = 6.008 s → ceil(100.13) = 101 tokens; no model field: whisper-1.
    let before = gw.user_quota(1);
    let r = upload(
        &gw,
        "/v1/audio/translations",
        form(
            &[("response_format", "text")],
            Some(("file", "speech.mp3", &mp3(230))),
        ),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.text(), mock_provider::TRANSCRIPT);
    assert_eq!(last_seen(&m).model.as_deref(), Some("whisper-large-v3"));
    charged(&gw, &r, before, 101 * 15).await;

    // verbose_json: the upstream's duration (12 s → 200 tokens) wins over the file's 6 s.
    let m2 = mock().await;
    let mut snap = media_snapshot(&m2);
    snap["channels"][0]["base_url"] = json!(m2.scenario_url("tag=media,duration=12"));
    let gw2 = gateway(snap, m2.addr).await;
    let before = gw2.user_quota(1);
    let r = upload(
        &gw2,
        "/v1/audio/transcriptions",
        form(
            &[("model", "whisper-1"), ("response_format", "verbose_json")],
            Some(("file", "speech.mp3", &mp3(230))),
        ),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["duration"], 12);
    charged(&gw2, &r, before, 200 * 15).await;

    // gpt-4o-transcribe reports tokens: (12 + 45 × completion 4) × ratio 1.25.
    let before = gw.user_quota(1);
    let r = upload(
        &gw,
        "/v1/audio/transcriptions",
        form(
            &[("model", "gpt-4o-transcribe")],
            Some(("file", "a.wav", &wav(2))),
        ),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let out = mock_provider::TRANSCRIPT_TOKENS as f64;
    charged(&gw, &r, before, q((12.0 + out * 4.0) * 1.25)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rerank_and_moderations_are_billed() {
    let m = mock().await;
    let gw = gateway(media_snapshot(&m), m.addr).await;
    let docs = json!(["Paris is in France", {"text": "Berlin is in Germany"}, "Rome"]);
    // Per call: $0.001.
    let before = gw.user_quota(1);
    let r = gw
        .post(
            "/v1/rerank",
            "alice",
            json!({"model": "rerank-fixed", "query": "capital of France", "documents": docs, "top_n": 2}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["results"].as_array().unwrap().len(), 2);
    assert_eq!(v["results"][0]["index"], 2);
    assert!(v["results"][0]["relevance_score"].as_f64().unwrap() > 0.0);
    charged(&gw, &r, before, q(0.001 * QPU)).await;
    // By the upstream's usage tokens (12) × ratio 0.5.
    let before = gw.user_quota(1);
    let r = gw
        .post(
            "/v1/rerank",
            "alice",
            json!({"model": "bge-rerank", "query": "q", "documents": docs}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let rec = charged(&gw, &r, before, 6).await;
    assert_eq!(rec.prompt_tokens, 12);
    // Moderations: default model, the input's estimated tokens × ratio 1.
    let before = gw.user_quota(1);
    let r = gw
        .post(
            "/v1/moderations",
            "alice",
            json!({"input": ["I will kill the process", "hello"]}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["results"][0]["flagged"], true);
    assert_eq!(v["results"][1]["flagged"], false);
    assert_eq!(
        last_seen(&m).model.as_deref(),
        Some("text-moderation-stable")
    );
    let rec = gw.record(&r.request_id()).await;
    assert!(rec.prompt_tokens > 0);
    charged(&gw, &r, before, rec.prompt_tokens).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_media_request_fails_over_from_a_broken_channel() {
    let m = mock().await;
    let gw = gateway(media_snapshot(&m), m.addr).await;
    let audio = wav(3);
    let before = gw.user_quota(1);
    let r = upload(
        &gw,
        "/v1/audio/transcriptions",
        form(&[("model", "whisper-fo")], Some(("file", "a.wav", &audio))),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!((m.calls("down"), m.calls("up")), (1, 1));
    // The retried attempt carried the same file.
    assert_eq!(
        last_seen(&m).file_sha256.as_deref(),
        Some(sha256(&audio).as_str())
    );
    // 3 s → 50 tokens × 15, charged once.
    let rec = charged(&gw, &r, before, 750).await;
    assert_eq!(rec.channel, 11);
    assert_eq!(rec.channel_failures.len(), 1);
    assert_eq!(rec.channel_failures[0].status, 500);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_is_refused_in_openai_shape_and_not_charged() {
    let m = mock().await;
    let gw = gateway(media_snapshot(&m), m.addr).await;
    let before = gw.user_quota(1);
    // Not multipart.
    let r = gw
        .post(
            "/v1/audio/transcriptions",
            "alice",
            json!({"model": "whisper-1", "file": "x"}),
        )
        .await;
    let err = r.assert_error(400, "invalid_request");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("multipart/form-data")
    );
    // No file part.
    let r = upload(
        &gw,
        "/v1/audio/transcriptions",
        form(&[("model", "whisper-1")], None),
    )
    .await;
    let err = r.assert_error(400, "invalid_request");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("file is required")
    );
    // A form cut short.
    let cut = form(&[("model", "whisper-1")], Some(("file", "a.wav", &wav(1))));
    let r = upload(&gw, "/v1/audio/transcriptions", cut.slice(..cut.len() - 30)).await;
    r.assert_error(400, "invalid_request");
    // Speech without a voice; images without a prompt.
    gw.post("/v1/audio/speech", "alice", json!({"input": "hi"}))
        .await
        .assert_error(400, "invalid_request");
    gw.post(
        "/v1/images/generations",
        "alice",
        json!({"model": "dall-e-3"}),
    )
    .await
    .assert_error(400, "invalid_request");
    gw.post(
        "/v1/images/generations",
        "alice",
        json!({"prompt": "x", "n": 11}),
    )
    .await
    .assert_error(400, "invalid_request");
    assert_eq!(gw.user_quota(1), before);
    assert_eq!(m.calls("media"), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unimplemented_openai_paths_answer_501() {
    let m = mock().await;
    let gw = gateway(media_snapshot(&m), m.addr).await;
    let auth = ("authorization", "Bearer sk-alice");
    for (method, path, body) in [
        (
            "POST",
            "/v1/images/variations",
            form(&[("model", "dall-e-2")], Some(("image", "a.png", b"png"))),
        ),
        ("GET", "/v1/files", Bytes::new()),
        ("POST", "/v1/files", Bytes::from_static(b"{}")),
        ("GET", "/v1/files/file-1/content", Bytes::new()),
        ("DELETE", "/v1/files/file-1", Bytes::new()),
        ("POST", "/v1/fine-tunes", Bytes::from_static(b"{}")),
        ("GET", "/v1/fine-tunes/ft-1/events", Bytes::new()),
        ("DELETE", "/v1/models/ft-model", Bytes::new()),
    ] {
        let r = send(method, &gw.url(path), &[auth], body).await;
        assert_eq!(r.status, 501, "{method} {path}: {}", r.text());
        assert_eq!(
            r.json(),
            json!({"error": {"message": "API not implemented", "type": "new_api_error", "code": "api_not_implemented"}}),
            "{method} {path}"
        );
    }
    // The token is checked first.
    send("GET", &gw.url("/v1/files"), &[], Bytes::new())
        .await
        .assert_error(401, "");
    assert_eq!(m.with_stats(|s| s.requests.len()), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn billing_endpoints_answer_from_the_snapshot() {
    let m = mock().await;
    let mut snap = media_snapshot(&m);
    let mut limited = token(2, 1, "bob");
    limited["unlimited_quota"] = json!(false);
    limited["remain_quota"] = json!(750_000);
    limited["used_quota"] = json!(250_000);
    limited["expired_time"] = json!(4_000_000_000i64);
    limited["model_limits_enabled"] = json!(true);
    limited["model_limits"] = json!(["tts-1"]);
    let mut expired = token(3, 1, "old");
    expired["expired_time"] = json!(1000);
    expired["status"] = json!(3);
    expired["unlimited_quota"] = json!(false);
    expired["remain_quota"] = json!(10);
    expired["used_quota"] = json!(20);
    let mut disabled = token(4, 1, "off");
    disabled["status"] = json!(2);
    snap["tokens"] = json!([token(1, 1, "alice"), limited, expired, disabled]);
    let gw = gateway(snap, m.addr).await;
    let get = |path: &'static str, key: &'static str| {
        let url = gw.url(path);
        async move {
            let auth = format!("Bearer sk-{key}");
            send("GET", &url, &[("authorization", &auth)], Bytes::new()).await
        }
    };
    for path in [
        "/dashboard/billing/subscription",
        "/v1/dashboard/billing/subscription",
    ] {
        let r = get(path, "bob").await;
        assert_eq!(r.status, 200, "{}", r.text());
        let v = r.json();
        // (750000 + 250000) / 500000 USD
        assert_eq!(v["object"], "billing_subscription");
        assert_eq!(v["hard_limit_usd"], 2.0);
        assert_eq!(v["soft_limit_usd"], 2.0);
        assert_eq!(v["system_hard_limit_usd"], 2.0);
        assert_eq!(v["access_until"], 4_000_000_000i64);
        assert_eq!(
            get(path, "alice").await.json()["hard_limit_usd"],
            100_000_000.0
        );
    }
    for path in ["/dashboard/billing/usage", "/v1/dashboard/billing/usage"] {
        let v = get(path, "bob").await.json();
        // 250000 / 500000 USD = 50 cents
        assert_eq!(v, json!({"object": "list", "total_usage": 50.0}));
    }
    // Expired tokens are refused by the dashboard endpoints but answered by /api/usage/token
    // (which the gateway answers although /api is forwarded to the control plane).
    get("/dashboard/billing/usage", "old")
        .await
        .assert_error(401, "");
    let r = get("/api/usage/token", "bob").await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        r.json(),
        json!({"code": true, "message": "ok", "data": {
            "object": "token_usage", "name": "token2", "total_granted": 1_000_000,
            "total_used": 250_000, "total_available": 750_000, "unlimited_quota": false,
            "model_limits": {"tts-1": true}, "model_limits_enabled": true,
            "expires_at": 4_000_000_000i64}})
    );
    let v = get("/api/usage/token/", "old").await.json();
    assert_eq!(
        (
            v["data"]["total_granted"].as_i64(),
            v["data"]["expires_at"].as_i64()
        ),
        (Some(30), Some(1000))
    );
    get("/api/usage/token", "off").await.assert_error(401, "");
    get("/api/usage/token", "nobody")
        .await
        .assert_error(401, "");
    // Nothing reached the mock (the "control plane" here), and nothing was logged as usage.
    assert_eq!(m.with_stats(|s| s.requests.len()), 0);
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    assert!(gw.records().is_empty(), "{:?}", gw.records());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn azure_channels_get_deployment_paths_for_media() {
    let m = mock().await;
    let mut az = channel(1, &m.url(), &["whisper-1", "tts-1"], 0, 1);
    az["type"] = json!(3);
    az["key"] = json!("azure-key-1");
    az["other"] = json!("2024-10-21");
    let mut snap = snapshot(vec![az]);
    snap["pricing"]["model_ratio"] = json!({"whisper-1": 15.0, "tts-1": 7.5});
    let gw = gateway(snap, m.addr).await;
    let audio = wav(3);
    let before = gw.user_quota(1);
    let r = upload(
        &gw,
        "/v1/audio/transcriptions",
        form(&[("model", "whisper-1")], Some(("file", "a.wav", &audio))),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let seen = last_seen(&m);
    assert_eq!(
        seen.path,
        "/openai/deployments/whisper-1/audio/transcriptions"
    );
    assert_eq!(seen.query.as_deref(), Some("api-version=2024-10-21"));
    let cred = seen.credential.unwrap();
    assert_eq!(
        (cred.carrier.as_str(), cred.value.as_str()),
        ("api-key", "azure-key-1")
    );
    assert_eq!(seen.file_sha256.as_deref(), Some(sha256(&audio).as_str()));
    charged(&gw, &r, before, 750).await;
    let r = gw
        .post(
            "/v1/audio/speech",
            "alice",
            json!({"model": "tts-1", "input": "hello", "voice": "alloy"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(last_seen(&m).path, "/openai/deployments/tts-1/audio/speech");
}
