//! A hasher for keys that are already numbers the gateway made or was given by its own
//! control plane (user, token and channel ids; the carry's record fingerprints): one
//! multiplication, where the standard SipHash costs tens of instructions a key. Never used
//! for keys a client chooses.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Fibonacci hashing's multiplier (2^64 / φ): spreads consecutive ids over the high bits,
/// which the hash table's probing uses.
const MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;

/// See the module documentation.
#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Not used by integer keys; any other key is folded in eight bytes at a time.
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n).wrapping_mul(MULTIPLIER);
    }

    fn write_i64(&mut self, n: i64) {
        self.write_u64(n as u64);
    }

    fn write_u128(&mut self, n: u128) {
        self.write_u64(n as u64 ^ (n >> 64) as u64);
    }
}

/// A `HashMap` keyed by ids, hashed with [`IdHasher`].
pub type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn consecutive_ids_differ_in_their_high_bits() {
        let build = BuildHasherDefault::<IdHasher>::default();
        let tops: std::collections::HashSet<u64> =
            (0i64..128).map(|id| build.hash_one(id) >> 57).collect();
        // 128 ids over the 128 values of the top seven bits: nearly all distinct.
        assert!(tops.len() > 64, "{}", tops.len());
    }

    #[test]
    fn an_id_map_behaves_as_a_map() {
        let mut map: IdMap<i64, i64> = IdMap::default();
        for id in -50..50 {
            map.insert(id, id * 2);
        }
        assert_eq!(map.len(), 100);
        assert!((-50..50).all(|id| map.get(&id) == Some(&(id * 2))));
        assert_eq!(map.get(&50), None);
    }
}
