//! The binary's `--help` never shows the sync token set in the environment (clap shows the
//! environment values of other flags).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_gateway");
const MARKER: &str = "s3cret-marker-7f3a";

fn help_with(env: &[(&str, &str)]) -> String {
    let out = Command::new(BIN)
        .arg("--help")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(out.status.success());
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn help_never_shows_the_sync_token() {
    let text = help_with(&[("GATEWAY_SYNC_TOKEN", MARKER)]);
    assert!(text.contains("--sync-token"), "{text}");
    assert!(
        !text.contains(MARKER),
        "--help shows the sync token: {text}"
    );
    // The check can fail: a plain setting's environment value is shown.
    assert!(help_with(&[("GATEWAY_ID", MARKER)]).contains(MARKER));
}
