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
/// Models as the script expects them: `*-sdk` answer text, `*-tool` call `get_weather`.
const MODELS: [&str; 10] = [
    "azure-sdk",
    "azure-tool",
    "gpt-sdk",
    "gpt-sdk-embed",
    "gpt-tool",
    "claude-sdk",
    "claude-tool",
    "gemini-sdk",
    "gemini-sdk-embed",
    "gemini-tool",
];

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

/// Channels as the script expects them: OpenAI (type 1), Anthropic (14), Gemini (24) and
/// Azure OpenAI (3), each once plain and once answering with a `get_weather` tool call.
fn sdk_snapshot(m: &mock_provider::MockHandle) -> serde_json::Value {
    let tool = m.scenario_url("tool=get_weather");
    let rows = [
        (1, 1, m.url(), vec!["gpt-sdk", "gpt-sdk-embed"]),
        (2, 14, m.url(), vec!["claude-sdk"]),
        (3, 24, m.url(), vec!["gemini-sdk", "gemini-sdk-embed"]),
        (4, 1, tool.clone(), vec!["gpt-tool"]),
        (5, 14, tool.clone(), vec!["claude-tool"]),
        (6, 24, tool.clone(), vec!["gemini-tool"]),
        (7, 3, m.url(), vec!["azure-sdk"]),
        (8, 3, tool, vec!["azure-tool"]),
    ];
    let channels = rows
        .into_iter()
        .map(|(id, kind, url, models)| {
            let mut c = channel(id, &url, &models, 0, 1);
            c["type"] = json!(kind);
            if kind == 3 {
                c["other"] = json!("2024-10-21");
            }
            c
        })
        .collect();
    let mut snap = snapshot(channels);
    snap["pricing"]["model_ratio"] = MODELS.iter().map(|m| (m.to_string(), json!(1.0))).collect();
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
