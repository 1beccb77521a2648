//! The option registry: every key the product knows, its default, what a valid value looks like,
//! and whether it is a secret that `GET /api/option/` never returns.

mod registry;
mod validate;

use std::collections::{BTreeMap, HashMap};

pub use registry::{OptionKind, OptionSpec, REGISTRY, spec};
pub use validate::normalize;

/// Stored values overlaid on the defaults (the pricing maps default to our price table): the
/// effective configuration.
#[derive(Debug, Clone, Default)]
pub struct Options {
    values: BTreeMap<String, String>,
}

impl Options {
    /// Defaults, then every stored value of a known key.
    pub fn from_stored(stored: HashMap<String, String>) -> Self {
        let mut values: BTreeMap<String, String> = REGISTRY
            .iter()
            .map(|s| (s.key.to_string(), s.default.to_string()))
            .collect();
        for (key, value) in super::pricing::defaults() {
            values.insert(key.to_string(), value);
        }
        for (key, value) in stored {
            if spec(&key).is_some() {
                values.insert(key, value);
            }
        }
        Options { values }
    }

    /// Only `keys`: their defaults, then their stored values. For a path that reads a few
    /// settings often (every usage batch), without building every default (the price tables).
    pub fn only(keys: &[&str], stored: HashMap<String, String>) -> Self {
        let mut values: BTreeMap<String, String> = keys
            .iter()
            .filter_map(|key| spec(key))
            .map(|s| (s.key.to_string(), s.default.to_string()))
            .collect();
        for (key, value) in stored {
            if let Some(slot) = values.get_mut(&key) {
                *slot = value;
            }
        }
        Options { values }
    }

    pub fn get(&self, key: &str) -> &str {
        self.values.get(key).map(String::as_str).unwrap_or("")
    }

    pub fn bool(&self, key: &str) -> bool {
        self.get(key) == "true"
    }

    pub fn i64(&self, key: &str) -> i64 {
        self.get(key).trim().parse().unwrap_or_default()
    }

    pub fn f64(&self, key: &str) -> f64 {
        self.get(key).trim().parse().unwrap_or_default()
    }

    /// A JSON option parsed, or `Null` when unparsable.
    pub fn json(&self, key: &str) -> serde_json::Value {
        serde_json::from_str(self.get(key)).unwrap_or(serde_json::Value::Null)
    }

    /// Keys of a JSON-object option (group names of `GroupRatio`, …).
    pub fn json_keys(&self, key: &str) -> Vec<String> {
        match self.json(key) {
            serde_json::Value::Object(map) => map.keys().cloned().collect(),
            _ => Vec::new(),
        }
    }

    /// Every non-secret option, sorted by key.
    pub fn public_entries(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values
            .iter()
            .filter(|(key, _)| spec(key).is_some_and(|s| !s.secret))
            .map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// Sets a value in memory (after it was validated and stored).
    pub fn set(&mut self, key: &str, value: String) {
        self.values.insert(key.to_string(), value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_keys_asked_for_with_their_defaults_and_stored_values() {
        let stored = HashMap::from([
            ("DataExportEnabled".to_string(), "false".to_string()),
            ("QuotaPerUnit".to_string(), "7".to_string()),
        ]);
        let options = Options::only(
            &["LogConsumeEnabled", "DataExportEnabled", "NoSuchKey"],
            stored,
        );
        assert!(options.bool("LogConsumeEnabled"), "default");
        assert!(!options.bool("DataExportEnabled"), "stored");
        assert_eq!(options.get("QuotaPerUnit"), "", "not asked for");
        assert_eq!(options.get("NoSuchKey"), "", "not in the registry");
    }

    #[test]
    fn defaults_fill_every_registered_key() {
        let options = Options::from_stored(HashMap::new());
        assert_eq!(options.i64("QuotaPerUnit"), 500_000);
        assert!(options.bool("PasswordLoginEnabled"));
        assert_eq!(options.json_keys("GroupRatio").len(), 3);
    }

    #[test]
    fn secrets_are_not_public_and_unknown_keys_are_ignored() {
        let mut stored = HashMap::new();
        stored.insert("SMTPToken".to_string(), "hunter2".to_string());
        stored.insert("NotAKey".to_string(), "x".to_string());
        let options = Options::from_stored(stored);
        assert_eq!(options.get("SMTPToken"), "hunter2");
        assert!(
            options
                .public_entries()
                .all(|(k, _)| k != "SMTPToken" && k != "NotAKey")
        );
    }

    #[test]
    fn every_default_is_valid_for_its_own_kind() {
        let options = Options::from_stored(HashMap::new());
        for spec in REGISTRY {
            if spec.key == "PayAddress" {
                continue;
            }
            let normalized = normalize(spec.key, spec.default, &options);
            assert!(
                normalized.is_ok(),
                "{} default {:?}: {:?}",
                spec.key,
                spec.default,
                normalized
            );
        }
    }
}
