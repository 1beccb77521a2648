//! The snapshot's token index: tokens by key hash (what a request's key finds), and by id
//! (what deltas and balance updates name) through the first bytes of the key hash.

use std::ops::RangeInclusive;
use std::sync::Arc;

use super::ConfigError;
use super::snapshot::{KeyHash, TokenEntry};

/// The first 8 bytes of a key hash, which is all the id index keeps: a whole hash there cost
/// 48 bytes more per token in half-full B-tree leaves. Tokens whose hashes share a prefix
/// (about one pair in 3·10⁹ at 100 000 tokens) are told apart by their ids.
type KeyPrefix = [u8; 8];

/// Tokens by key hash and by id, as persistent maps sharing their entries.
#[derive(Debug, Clone, Default)]
pub struct TokenIndex {
    by_key: imbl::OrdMap<KeyHash, Arc<TokenEntry>>,
    ids: imbl::OrdMap<i64, KeyPrefix>,
}

impl TokenIndex {
    /// The token of a key.
    pub fn get(&self, key: &KeyHash) -> Option<&Arc<TokenEntry>> {
        self.by_key.get(key)
    }

    /// The token of an id.
    pub fn by_id(&self, id: i64) -> Option<&Arc<TokenEntry>> {
        self.entry_of(id).map(|(_, token)| token)
    }

    /// Adds a token; its key and its id must both be new.
    pub fn insert(&mut self, key: KeyHash, token: Arc<TokenEntry>) -> Result<(), ConfigError> {
        let id = token.id;
        if self.by_key.contains_key(&key) {
            return Err(ConfigError::Invalid(format!(
                "token {id}: duplicate key_hash"
            )));
        }
        if self.ids.contains_key(&id) {
            return Err(ConfigError::Invalid(format!("duplicate token id {id}")));
        }
        self.by_key.insert(key, token);
        self.ids.insert(id, key.prefix());
        Ok(())
    }

    /// Removes the token of an id, if there is one.
    pub fn remove(&mut self, id: i64) -> Option<Arc<TokenEntry>> {
        let key = *self.entry_of(id)?.0;
        self.ids.remove(&id);
        self.by_key.remove(&key)
    }

    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }

    /// Every token with its key hash, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&KeyHash, &Arc<TokenEntry>)> {
        self.by_key.iter()
    }

    fn entry_of(&self, id: i64) -> Option<(&KeyHash, &Arc<TokenEntry>)> {
        let prefix = self.ids.get(&id)?;
        self.by_key
            .range(KeyHash::with_prefix(prefix))
            .find(|(_, token)| token.id == id)
    }
}

impl std::ops::Index<&KeyHash> for TokenIndex {
    type Output = Arc<TokenEntry>;

    /// The token of a key; panics when there is none (for tests and known keys).
    fn index(&self, key: &KeyHash) -> &Arc<TokenEntry> {
        &self.by_key[key]
    }
}

impl KeyHash {
    fn prefix(&self) -> KeyPrefix {
        let mut prefix = [0; 8];
        prefix.copy_from_slice(&self.0[..8]);
        prefix
    }

    /// Every hash that starts with `prefix`.
    fn with_prefix(prefix: &KeyPrefix) -> RangeInclusive<KeyHash> {
        let (mut low, mut high) = ([0; 32], [0xff; 32]);
        low[..8].copy_from_slice(prefix);
        high[..8].copy_from_slice(prefix);
        KeyHash(low)..=KeyHash(high)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use proto::config::v1 as pb;

    fn entry(id: i64) -> Arc<TokenEntry> {
        let raw = pb::Token {
            id,
            user_id: 1,
            status: 1,
            ..pb::Token::default()
        };
        Arc::new(super::super::snapshot::token(&raw).unwrap())
    }

    /// A hash of 32 bytes `head` followed by `tail`.
    fn hash(head: u8, tail: u8) -> KeyHash {
        let mut bytes = [tail; 32];
        bytes[..8].fill(head);
        KeyHash(bytes)
    }

    #[test]
    fn ids_sharing_a_key_prefix_find_their_own_tokens() {
        let mut index = TokenIndex::default();
        index.insert(hash(7, 1), entry(10)).unwrap();
        index.insert(hash(7, 2), entry(11)).unwrap();
        index.insert(hash(8, 0), entry(12)).unwrap();
        for id in [10, 11, 12] {
            assert_eq!(index.by_id(id).unwrap().id, id);
        }
        assert!(index.by_id(13).is_none());

        assert_eq!(index.remove(10).unwrap().id, 10);
        assert!(index.by_id(10).is_none());
        assert!(index.get(&hash(7, 1)).is_none());
        assert_eq!(index.by_id(11).unwrap().id, 11);
        assert_eq!(index.get(&hash(7, 2)).unwrap().id, 11);
        assert_eq!(index.len(), 2);
        assert!(index.remove(10).is_none());
    }

    #[test]
    fn a_key_or_an_id_used_twice_is_refused_and_changes_nothing() {
        let mut index = TokenIndex::default();
        index.insert(hash(1, 1), entry(1)).unwrap();
        let key_twice = index.insert(hash(1, 1), entry(2)).unwrap_err();
        assert!(key_twice.to_string().contains("duplicate key_hash"));
        let id_twice = index.insert(hash(2, 2), entry(1)).unwrap_err();
        assert!(id_twice.to_string().contains("duplicate token id 1"));
        assert_eq!(index.len(), 1);
        assert!(index.by_id(2).is_none());
        assert!(index.get(&hash(2, 2)).is_none());
        assert_eq!(index.by_id(1).unwrap().id, 1);
    }
}
