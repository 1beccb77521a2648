//! Per-key status of multi-key channels: which keys are disabled (by hand or automatically),
//! why and since when. Kept as JSON in `channels.key_status` by key index (the key's position
//! in the channel's key list); keys not listed are enabled.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::channels::{STATUS_AUTO_DISABLED, STATUS_DISABLED, STATUS_ENABLED};

/// The status of one key that is not enabled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyStatus {
    /// 2 disabled by hand, 3 disabled automatically.
    pub status: i64,
    #[serde(default)]
    pub reason: String,
    /// Unix seconds when it was disabled.
    #[serde(default)]
    pub time: i64,
}

/// The keys of one channel that are not enabled.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyStates(BTreeMap<u32, KeyStatus>);

impl KeyStates {
    /// The stored JSON (`{"2": {"status": 3, …}}`); anything unreadable counts as all enabled.
    pub fn parse(raw: &str) -> KeyStates {
        let map: BTreeMap<String, KeyStatus> = serde_json::from_str(raw).unwrap_or_default();
        KeyStates(
            map.into_iter()
                .filter_map(|(k, v)| Some((k.parse().ok()?, v)))
                .filter(|(_, v)| v.status == STATUS_DISABLED || v.status == STATUS_AUTO_DISABLED)
                .collect(),
        )
    }

    /// The JSON to store.
    pub fn to_json(&self) -> String {
        let map: BTreeMap<String, &KeyStatus> =
            self.0.iter().map(|(k, v)| (k.to_string(), v)).collect();
        serde_json::to_string(&map).unwrap_or_else(|_| "{}".to_owned())
    }

    /// The status of key `index`: 1 enabled, 2 disabled by hand, 3 disabled automatically.
    pub fn status(&self, index: u32) -> i64 {
        self.0.get(&index).map_or(STATUS_ENABLED, |s| s.status)
    }

    pub fn get(&self, index: u32) -> Option<&KeyStatus> {
        self.0.get(&index)
    }

    /// Sets key `index` to `status` (enabled removes the entry). Answers whether it changed.
    pub fn set(&mut self, index: u32, status: i64, reason: &str, time: i64) -> bool {
        if status == STATUS_ENABLED {
            return self.0.remove(&index).is_some();
        }
        if self.0.get(&index).is_some_and(|s| s.status == status) {
            return false;
        }
        self.0.insert(
            index,
            KeyStatus {
                status,
                reason: reason.to_owned(),
                time,
            },
        );
        true
    }

    /// The enabled keys among `count`, by index.
    pub fn enabled(&self, count: usize) -> impl Iterator<Item = u32> + '_ {
        (0..u32::try_from(count).unwrap_or(u32::MAX)).filter(|i| !self.0.contains_key(i))
    }

    /// Forgets keys at or beyond `count` (the key list got shorter).
    pub fn truncate(&mut self, count: usize) {
        let count = u32::try_from(count).unwrap_or(u32::MAX);
        self.0.retain(|i, _| *i < count);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The channel's status after a change of its keys, with the reason to record, when it
/// changes: a channel whose last key was disabled is disabled automatically; an automatically
/// disabled channel comes back when one of its keys is enabled again.
pub fn channel_status_after(
    status: i64,
    enabled_keys: usize,
    key_enabled: bool,
) -> Option<(i64, &'static str)> {
    match (status, enabled_keys) {
        (STATUS_ENABLED, 0) => Some((STATUS_AUTO_DISABLED, "every key of the channel is disabled")),
        (STATUS_AUTO_DISABLED, n) if n > 0 && key_enabled => Some((STATUS_ENABLED, "")),
        _ => None,
    }
}

/// A key as administrators see it: its first and last four characters (stars for short keys).
pub fn preview(key: &str) -> String {
    let chars: Vec<char> = key.chars().collect();
    if chars.len() <= 12 {
        return "*".repeat(chars.len());
    }
    let head: String = chars[..4].iter().collect();
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!("{head}…{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_round_trip_and_bad_json_means_all_enabled() {
        let mut s = KeyStates::default();
        assert!(s.set(2, STATUS_AUTO_DISABLED, "upstream answered 401", 100));
        assert!(!s.set(2, STATUS_AUTO_DISABLED, "again", 101), "no change");
        assert!(s.set(0, STATUS_DISABLED, "", 5));
        let back = KeyStates::parse(&s.to_json());
        assert_eq!(back, s);
        assert_eq!(back.status(2), STATUS_AUTO_DISABLED);
        assert_eq!(back.status(1), STATUS_ENABLED);
        assert_eq!(back.enabled(4).collect::<Vec<_>>(), [1, 3]);
        assert_eq!(KeyStates::parse("not json"), KeyStates::default());
        assert_eq!(
            KeyStates::parse(r#"{"x": {"status": 3}, "1": {"status": 9}}"#),
            KeyStates::default()
        );
        let mut t = back.clone();
        assert!(t.set(2, STATUS_ENABLED, "", 0));
        t.truncate(0);
        assert!(t.is_empty());
    }

    #[test]
    fn the_channel_follows_its_keys() {
        assert_eq!(
            channel_status_after(STATUS_ENABLED, 0, false).map(|s| s.0),
            Some(STATUS_AUTO_DISABLED)
        );
        assert_eq!(channel_status_after(STATUS_ENABLED, 2, false), None);
        assert_eq!(
            channel_status_after(STATUS_AUTO_DISABLED, 1, true).map(|s| s.0),
            Some(STATUS_ENABLED)
        );
        assert_eq!(channel_status_after(STATUS_AUTO_DISABLED, 1, false), None);
        assert_eq!(channel_status_after(STATUS_DISABLED, 1, true), None);
    }

    #[test]
    fn previews_hide_the_key() {
        assert_eq!(preview("sk-abcdefghijkl"), "sk-a…ijkl");
        assert_eq!(preview("short"), "*****");
    }
}
