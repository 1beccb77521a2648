//! Conformance with the official SDKs: `tests/sdk/conformance.py` drives an in-process
//! gateway with the Python `openai`, `anthropic` and `google-genai` packages (installed from
//! PyPI into a throw-away venv by this test) through every client dialect × provider pair
//! against the mock provider, and must report no failed check.
//!
//! Without `python3` (or its `venv`/`pip`) the test prints why and passes, unless `CI=true`,
//! where it fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;
use serde_json::json;

const SDKS: [&str; 3] = ["openai", "anthropic", "google-genai"];
const IMPORTS: &str = "import openai, anthropic, google.genai";

fn run(cmd: &mut Command) -> Result<Output, String> {
    let shown = format!("{cmd:?}");
    let out = cmd.output().map_err(|e| format!("{shown}: {e}"))?;
    if out.status.success() {
        Ok(out)
    } else {
        let stderr = String::from_utf8_lossy(&out.stderr);
        Err(format!(
            "{shown} failed ({}): {}",
            out.status,
            stderr.trim()
        ))
    }
}

fn imports_sdks(python: &Path) -> bool {
    python.exists() && run(Command::new(python).args(["-c", IMPORTS])).is_ok()
}

/// The venv's python with the three SDKs, made (or reused) under the temp dir.
fn sdk_python() -> Result<PathBuf, String> {
    let dir = std::env::temp_dir().join("ai-gateway-sdk-venv");
    let python = dir.join("bin").join("python");
    if imports_sdks(&python) {
        return Ok(python);
    }
    run(Command::new("python3").arg("--version"))?;
    if !python.exists() {
        // A venv left half-made by an interrupted run is made again.
        let _ = std::fs::remove_dir_all(&dir);
        run(Command::new("python3").arg("-m").arg("venv").arg(&dir))
            .map_err(|e| format!("{e} (is the python3-venv package installed?)"))?;
    }
    run(Command::new(&python)
        .args(["-m", "pip", "install", "-q"])
        .args(SDKS)
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1"))?;
    if imports_sdks(&python) {
        Ok(python)
    } else {
        Err(format!(
            "{} cannot import the SDKs after install",
            python.display()
        ))
    }
}

/// The script's model prefixes (`{prefix}-sdk` answers text, `{prefix}-tool` calls
/// `get_weather`) by channel: type, key, `other`, and the upstream model each maps to
/// (`None`: the name as it is).
struct Row {
    prefix: &'static str,
    kind: i64,
    upstream: Option<&'static str>,
}

const ROWS: [Row; 10] = [
    Row {
        prefix: "gpt",
        kind: 1,
        upstream: None,
    },
    Row {
        prefix: "claude",
        kind: 14,
        upstream: None,
    },
    Row {
        prefix: "gemini",
        kind: 24,
        upstream: None,
    },
    Row {
        prefix: "azure",
        kind: 3,
        upstream: None,
    },
    Row {
        prefix: "bedrock-claude",
        kind: 33,
        upstream: Some("anthropic.claude-3-5-haiku-20241022-v1:0"),
    },
    Row {
        prefix: "bedrock-nova",
        kind: 33,
        upstream: Some("amazon.nova-pro-v1:0"),
    },
    Row {
        prefix: "vertex-gemini",
        kind: 41,
        upstream: Some("gemini-2.5-flash"),
    },
    Row {
        prefix: "vertex-claude",
        kind: 41,
        upstream: Some("claude-sonnet-4-5@20250929"),
    },
    Row {
        prefix: "ollama",
        kind: 4,
        upstream: None,
    },
    Row {
        prefix: "cohere",
        kind: 34,
        upstream: None,
    },
];

/// The models of the other OpenAI endpoints the script calls (on the plain OpenAI channel).
const MEDIA_MODELS: [&str; 4] = ["dall-e-3", "tts-1", "whisper-1", "text-moderation-stable"];

/// Channels as the script expects them: each row once plain and once answering with a
/// `get_weather` tool call; OpenAI and Gemini also serve the embedding models.
fn sdk_snapshot(m: &mock_provider::MockHandle) -> serde_json::Value {
    let tool = m.scenario_url("tool=get_weather");
    let mut channels = Vec::new();
    let mut priced = vec!["gpt-sdk-embed".to_owned(), "gemini-sdk-embed".to_owned()];
    for (i, row) in ROWS.iter().enumerate() {
        for (j, (suffix, url)) in [("sdk", m.url()), ("tool", tool.clone())]
            .into_iter()
            .enumerate()
        {
            let model = format!("{}-{suffix}", row.prefix);
            let mut models = vec![model.clone()];
            if suffix == "sdk" && matches!(row.prefix, "gpt" | "gemini") {
                models.push(format!("{}-sdk-embed", row.prefix));
            }
            if suffix == "sdk" && row.prefix == "gpt" {
                models.extend(MEDIA_MODELS.iter().map(|m| (*m).to_owned()));
            }
            let id = i64::try_from(2 * i + j + 1).unwrap();
            let names: Vec<&str> = models.iter().map(String::as_str).collect();
            let mut c = channel(id, &url, &names, 0, 1);
            c["type"] = json!(row.kind);
            match row.kind {
                3 => c["other"] = json!("2024-10-21"),
                4 => c["key"] = json!(""),
                33 => {
                    c["key"] = json!(format!(
                        "{}|{}|us-east-1",
                        mock_provider::MOCK_ACCESS_KEY,
                        mock_provider::MOCK_SECRET
                    ))
                }
                41 => {
                    let token_uri = format!("{}/token", m.url());
                    c["key"] = json!(mock_provider::test_service_account_json(&token_uri));
                    c["other"] = json!("us-central1");
                }
                _ => {}
            }
            if let Some(upstream) = row.upstream {
                c["model_mapping"] = json!({ model.clone(): upstream });
            }
            priced.push(model);
            channels.push(c);
        }
    }
    let mut snap = snapshot(channels);
    priced.extend(MEDIA_MODELS.iter().map(|m| (*m).to_owned()));
    snap["pricing"]["model_ratio"] = priced.iter().map(|m| (m.clone(), json!(1.0))).collect();
    snap["pricing"]["model_price"]["dall-e-3"] = json!(0.04);
    snap["options"]["retry_times"] = json!(1);
    snap
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn official_sdks_parse_every_answer_of_every_dialect_and_provider() {
    let python = match tokio::task::spawn_blocking(sdk_python).await.unwrap() {
        Ok(python) => python,
        Err(why) if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("the SDK conformance test needs python3 with venv and pip: {why}")
        }
        Err(why) => {
            eprintln!("SKIPPED sdk conformance: python3 with venv and pip is needed ({why})");
            return;
        }
    };
    let m = mock_provider::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let gw = Gw::start(sdk_snapshot(&m)).await;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sdk/conformance.py");
    let mut cmd = Command::new(&python);
    cmd.arg(&script)
        .env("GATEWAY_URL", gw.url(""))
        .env("GATEWAY_KEY", "sk-alice");
    let out = tokio::task::spawn_blocking(move || cmd.output())
        .await
        .unwrap()
        .expect("runs the conformance script");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    let last = stdout.lines().rev().find(|l| !l.trim().is_empty());
    let failed = last
        .and_then(|l| l.strip_suffix(" failed"))
        .and_then(|l| l.rsplit_once(", "))
        .map(|(_, n)| n);
    assert_eq!(failed, Some("0"), "last line: {last:?}");
    assert!(out.status.success(), "conformance script: {}", out.status);
}
