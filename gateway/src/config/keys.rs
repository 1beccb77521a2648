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

/// One or more keys; never empty (a channel without a key has one empty key). Each key keeps
/// its position in the channel's whole key list (disabled keys are not sent to gateways), which
/// names it in failure reports and circuit breakers.
#[derive(Debug)]
pub struct ChannelKeys {
    keys: Vec<(u32, Secret)>,
    mode: KeyMode,
    next: AtomicUsize,
}

/// The key an attempt uses: where it sits in [`ChannelKeys`] and its index in the channel's
/// whole key list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KeyChoice {
    pub slot: usize,
    pub index: u32,
}

impl ChannelKeys {
    /// Every non-blank key of `keys` with its index from `indexes` (its position when
    /// `indexes` does not cover it), else `first` alone (snapshots from before multi-key).
    pub fn new(first: &str, keys: &[String], indexes: &[u32], mode: KeyMode) -> ChannelKeys {
        let mut list: Vec<(u32, Secret)> = keys
            .iter()
            .enumerate()
            .map(|(pos, k)| {
                let index = indexes
                    .get(pos)
                    .copied()
                    .unwrap_or_else(|| u32::try_from(pos).unwrap_or(u32::MAX));
                (index, k.trim())
            })
            .filter(|(_, k)| !k.is_empty())
            .map(|(i, k)| (i, Secret(k.to_owned())))
            .collect();
        if list.is_empty() {
            let index = indexes.first().copied().unwrap_or(0);
            list.push((index, Secret(first.trim().to_owned())));
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

    /// The indexes of the keys, in order.
    pub fn indexes(&self) -> impl Iterator<Item = u32> + '_ {
        self.keys.iter().map(|(i, _)| *i)
    }

    /// The key for the next attempt among those `usable` allows (by index); when it allows
    /// none, among all of them.
    pub fn pick(&self, usable: impl Fn(u32) -> bool) -> KeyChoice {
        let n = self.keys.len();
        if n == 1 {
            return self.choice(0);
        }
        let start = match self.mode {
            KeyMode::Polling => self.next.fetch_add(1, Ordering::Relaxed) % n,
            KeyMode::Random => rand::rng().random_range(0..n),
        };
        if usable(self.keys[start].0) {
            return self.choice(start);
        }
        let allowed: Vec<usize> = (0..n).filter(|&s| usable(self.keys[s].0)).collect();
        let slot = match self.mode {
            _ if allowed.is_empty() => start,
            KeyMode::Polling => allowed
                .iter()
                .copied()
                .find(|&s| s > start)
                .unwrap_or(allowed[0]),
            KeyMode::Random => allowed[rand::rng().random_range(0..allowed.len())],
        };
        self.choice(slot)
    }

    fn choice(&self, slot: usize) -> KeyChoice {
        KeyChoice {
            slot,
            index: self.keys[slot].0,
        }
    }

    /// The secret of a chosen key (the first key when `slot` is out of range).
    pub fn secret(&self, slot: usize) -> &Secret {
        &self.keys.get(slot).unwrap_or(&self.keys[0]).1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(list: &[&str], mode: KeyMode) -> ChannelKeys {
        let owned: Vec<String> = list.iter().map(|s| s.to_string()).collect();
        ChannelKeys::new("first", &owned, &[], mode)
    }

    fn picked(k: &ChannelKeys, usable: impl Fn(u32) -> bool) -> &str {
        k.secret(k.pick(usable).slot).0.as_str()
    }

    #[test]
    fn polling_takes_every_key_in_turn() {
        let k = keys(&["a", " b ", "", "c"], KeyMode::Polling);
        let picked: Vec<&str> = (0..6).map(|_| picked(&k, |_| true)).collect();
        assert_eq!(picked, ["a", "b", "c", "a", "b", "c"]);
    }

    #[test]
    fn random_uses_only_given_keys_and_reaches_each() {
        let k = keys(&["a", "b", "c"], KeyMode::Random);
        let seen: std::collections::HashSet<&str> =
            (0..300).map(|_| picked(&k, |_| true)).collect();
        assert_eq!(seen, ["a", "b", "c"].into_iter().collect());
    }

    #[test]
    fn falls_back_to_the_single_key_and_never_shows_it() {
        let k = keys(&[], KeyMode::Polling);
        assert_eq!(k.len(), 1);
        assert_eq!(picked(&k, |_| true), "first");
        assert_eq!(format!("{:?}", k.secret(0)), "Secret(***)");
        assert_eq!(KeyMode::parse("Polling"), KeyMode::Polling);
        assert_eq!(KeyMode::parse(""), KeyMode::Random);
    }

    #[test]
    fn keys_keep_their_indexes_and_unusable_ones_are_skipped() {
        let owned: Vec<String> = ["a", "c", "d"].iter().map(|s| s.to_string()).collect();
        let k = ChannelKeys::new("a", &owned, &[0, 2, 3], KeyMode::Polling);
        assert_eq!(k.indexes().collect::<Vec<_>>(), [0, 2, 3]);
        let picked: Vec<u32> = (0..4).map(|_| k.pick(|i| i != 2).index).collect();
        assert_eq!(picked, [0, 3, 3, 0]);
        for mode in [KeyMode::Random, KeyMode::Polling] {
            let k = ChannelKeys::new("a", &owned, &[0, 2, 3], mode);
            for _ in 0..50 {
                assert_eq!(k.pick(|i| i == 3).index, 3);
            }
            let any = k.pick(|_| false);
            assert!(any.slot < 3, "none usable: any key still goes");
        }
    }
}
