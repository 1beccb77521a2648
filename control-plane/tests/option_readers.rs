//! Every key of the options registry has a reader: code that names it outside the options
//! module (the control plane acting on it, the config snapshot carrying it to gateways, the
//! gateway, or `/api/status` showing it). Keys whose behaviour is not built yet are listed below with
//! the issue that builds it; the list may only shrink: a new key nobody reads fails, and so
//! does a listed key that gained a reader (take it off the list).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use control_plane::domain::options::REGISTRY;

/// Saved by the console, read by nothing yet (none now: keep the list for keys added before
/// their behaviour, each with the issue that brings it).
const PENDING: &[(&str, &str)] = &[];

/// The Rust sources of both planes, but the options module itself (its registry, and its
/// validation, which names keys without acting on them).
fn sources() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut dirs: Vec<PathBuf> = ["control-plane/src", "gateway/src", "gateway/adapters/src"]
        .iter()
        .map(|d| root.join(d))
        .collect();
    let mut out = Vec::new();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                && !path.to_string_lossy().contains("domain/options/")
            {
                out.push(std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    out
}

#[test]
fn every_option_key_has_a_reader() {
    let sources = sources();
    assert!(sources.len() > 50, "sources not found");
    let mut unread = Vec::new();
    let mut listed_but_read = Vec::new();
    for spec in REGISTRY {
        let quoted = format!("\"{}\"", spec.key);
        let read = sources.iter().any(|s| s.contains(&quoted));
        let pending = PENDING.iter().any(|(k, _)| *k == spec.key);
        match (read, pending) {
            (false, false) => unread.push(spec.key),
            (true, true) => listed_but_read.push(spec.key),
            _ => {}
        }
    }
    assert!(unread.is_empty(), "option keys no code reads: {unread:?}");
    assert!(
        listed_but_read.is_empty(),
        "keys listed as pending that have a reader now (take them off the list): {listed_but_read:?}"
    );
    for (key, _) in PENDING {
        assert!(
            REGISTRY.iter().any(|s| s.key == *key),
            "{key} is not in the registry"
        );
    }
}
