//! Snapshots for the billing unit tests: user 1 with one token (id 7) of theirs.

#![allow(clippy::unwrap_used)]

use proto::config::v1 as pb;

use crate::config::{KeyHash, Snapshot};

/// Key hash of the one token, as the snapshot message has it.
pub fn token_hash() -> String {
    "a".repeat(64)
}

/// Key hash of the one token, as the snapshot's index has it.
pub fn token_index() -> KeyHash {
    KeyHash::from_hex(&token_hash()).unwrap()
}

/// User 1 with `quota`, and token 7 with `remain` (or unlimited).
pub fn one_user(quota: i64, remain: i64, unlimited: bool) -> Snapshot {
    Snapshot::build(&pb::Snapshot {
        version: 1,
        users: vec![pb::User {
            id: 1,
            quota,
            status: 1,
            ..Default::default()
        }],
        tokens: vec![pb::Token {
            id: 7,
            user_id: 1,
            key_hash: token_hash(),
            remain_quota: remain,
            unlimited_quota: unlimited,
            status: 1,
            ..Default::default()
        }],
        ..Default::default()
    })
    .unwrap()
}
