//! The upstream keys of one channel and how requests are spread over them: a multi-key
//! channel picks a key per attempt, at random or in turn (`polling`).

use std::sync::atomic::{AtomicUsize, Ordering};

use rand::Rng;

/// A string that never shows in logs or debug output.
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// How a multi-key channel chooses the key of each attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyMode {
    /// Uniformly at random (the default).
    Random,
    /// In turn, one after the other.
    Polling,
}

impl KeyMode {
    /// The control plane's `multi_key_mode`: `polling`, else random.
    pub fn parse(raw: &str) -> KeyMode {
        if raw.trim().eq_ignore_ascii_case("polling") {
            KeyMode::Polling
        } else {
            KeyMode::Random
        }
    }
}

/// One or more keys; never empty (a channel without a key has one empty key).
#[derive(Debug)]
pub struct ChannelKeys {
    keys: Vec<Secret>,
    mode: KeyMode,
    next: AtomicUsize,
}

impl ChannelKeys {
    /// Every non-blank key of `keys`, else `first` alone (snapshots from before multi-key).
    pub fn new(first: &str, keys: &[String], mode: KeyMode) -> ChannelKeys {
        let mut list: Vec<Secret> = keys
            .iter()
            .map(|k| k.trim())
            .filter(|k| !k.is_empty())
            .map(|k| Secret(k.to_owned()))
            .collect();
        if list.is_empty() {
            list.push(Secret(first.trim().to_owned()));
        }
        ChannelKeys {
            keys: list,
            mode,
            next: AtomicUsize::new(0),
        }
    }

    /// How many keys the channel has.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Always false: there is at least one key.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The key for the next attempt.
    pub fn pick(&self) -> &Secret {
        let n = self.keys.len();
        let i = match (n, self.mode) {
            (1, _) => 0,
            (_, KeyMode::Polling) => self.next.fetch_add(1, Ordering::Relaxed) % n,
            (_, KeyMode::Random) => rand::rng().random_range(0..n),
        };
        &self.keys[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(list: &[&str], mode: KeyMode) -> ChannelKeys {
        let owned: Vec<String> = list.iter().map(|s| s.to_string()).collect();
        ChannelKeys::new("first", &owned, mode)
    }

    #[test]
    fn polling_takes_every_key_in_turn() {
        let k = keys(&["a", " b ", "", "c"], KeyMode::Polling);
        let picked: Vec<&str> = (0..6).map(|_| k.pick().0.as_str()).collect();
        assert_eq!(picked, ["a", "b", "c", "a", "b", "c"]);
    }

    #[test]
    fn random_uses_only_given_keys_and_reaches_each() {
        let k = keys(&["a", "b", "c"], KeyMode::Random);
        let seen: std::collections::HashSet<&str> = (0..300).map(|_| k.pick().0.as_str()).collect();
        assert_eq!(seen, ["a", "b", "c"].into_iter().collect());
    }

    #[test]
    fn falls_back_to_the_single_key_and_never_shows_it() {
        let k = keys(&[], KeyMode::Polling);
        assert_eq!(k.len(), 1);
        assert_eq!(k.pick().0, "first");
        assert_eq!(format!("{:?}", k.pick()), "Secret(***)");
        assert_eq!(KeyMode::parse("Polling"), KeyMode::Polling);
        assert_eq!(KeyMode::parse(""), KeyMode::Random);
    }
}
