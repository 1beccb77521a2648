//! Config sync: reads a `config.v1.Snapshot` (from a JSON/YAML file, or from the control
//! plane's Watch stream), validates it into the in-memory [`Snapshot`] and holds the current
//! one behind an atomic swap.

mod channel_setting;
pub mod delta;
mod intern;
mod keys;
pub mod link;
mod snapshot;
mod token_index;
pub mod watch;

pub use channel_setting::ChannelSetting;
pub use keys::{ChannelKeys, KeyChoice, KeyMode, Secret};
pub use snapshot::{
    ChannelEntry, ImageWorker, KeyHash, ModelRateLimit, Options, Pricing, ProviderOptions,
    Snapshot, StatusSet, Tier, TokenEntry, TokenRateLimit, UserEntry,
};
pub use token_index::TokenIndex;

use std::path::Path;
use std::sync::Arc;

use arc_swap::ArcSwap;
use proto::config::v1 as pb;

/// Problems with a config file or snapshot.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot parse config file {path}: {message}")]
    Parse { path: String, message: String },
    #[error("invalid snapshot: {0}")]
    Invalid(String),
}

/// Parses a snapshot file: JSON when the name ends in `.json`, YAML otherwise.
pub fn load_file(path: &Path) -> Result<pb::Snapshot, ConfigError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: shown.clone(),
        source,
    })?;
    let is_json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if is_json {
        serde_json::from_str(&text).map_err(|e| ConfigError::Parse {
            path: shown,
            message: e.to_string(),
        })
    } else {
        serde_yaml_ng::from_str(&text).map_err(|e| ConfigError::Parse {
            path: shown,
            message: e.to_string(),
        })
    }
}

/// The current snapshot, read without locks on the request path; the Watch client swaps in
/// new ones atomically.
pub struct ConfigStore {
    current: ArcSwap<Snapshot>,
}

impl ConfigStore {
    /// Starts from a validated snapshot.
    pub fn new(snapshot: Snapshot) -> Self {
        ConfigStore {
            current: ArcSwap::from_pointee(snapshot),
        }
    }

    /// The snapshot in force now.
    pub fn load(&self) -> Arc<Snapshot> {
        self.current.load_full()
    }

    /// Puts `snapshot` in force; requests already running keep the one they loaded.
    pub fn swap(&self, snapshot: Snapshot) {
        self.current.store(Arc::new(snapshot));
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn loads_yaml_and_json_of_the_same_shape() {
        let dir = tempfile::tempdir().unwrap();
        let yaml = dir.path().join("s.yaml");
        std::fs::write(&yaml, "version: 4\nchannels:\n  - {id: 1, type: 1, models: [m], status: 1}\noptions: {retry_times: 2}\n").unwrap();
        let from_yaml = load_file(&yaml).unwrap();
        let json = dir.path().join("s.json");
        std::fs::write(&json, serde_json::to_string(&from_yaml).unwrap()).unwrap();
        let from_json = load_file(&json).unwrap();
        assert_eq!(from_yaml, from_json);
        assert_eq!(from_json.options.unwrap().retry_times, 2);
        std::fs::write(&json, "{\"version\": \"x\"}").unwrap();
        assert!(matches!(load_file(&json), Err(ConfigError::Parse { .. })));
        assert!(matches!(
            load_file(&dir.path().join("missing.json")),
            Err(ConfigError::Read { .. })
        ));
        let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/standalone.yaml");
        let snap = Snapshot::build(&load_file(&example).unwrap()).unwrap();
        assert_eq!(snap.tiers("default", "gpt-4o-mini").len(), 1);
    }
}
