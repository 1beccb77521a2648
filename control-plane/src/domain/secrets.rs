//! Random keys and one-way hashes for session cookies, access tokens and invitation codes; the
//! redacting wrapper of configured secrets.

use rand::Rng;
use rand::distr::Alphanumeric;
use sha2::{Digest, Sha256};

/// A configured secret (database URL, encryption key, sync and setup tokens). `Debug` shows
/// `Secret(***)`, so settings can be printed or logged without it; `expose` reads it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Secret(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Secret(value.to_owned())
    }
}

/// A random string of ASCII letters and digits.
pub fn random_alphanumeric(len: usize) -> String {
    rand::rng()
        .sample_iter(&Alphanumeric)
        .take(len)
        .map(char::from)
        .collect()
}

/// Hex SHA-256 of a secret, used as its lookup key so the secret itself is never stored.
pub fn sha256_hex(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// Constant-time equality of two strings (for tokens compared in memory).
pub fn constant_time_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_strings_have_the_asked_length_and_alphabet() {
        let s = random_alphanumeric(48);
        assert_eq!(s.len(), 48);
        assert!(s.chars().all(|c| c.is_ascii_alphanumeric()));
        assert_ne!(s, random_alphanumeric(48));
    }

    #[test]
    fn secrets_are_redacted_in_debug_output() {
        let secret = Secret::from("postgres://u:hunter2@db/x");
        assert_eq!(format!("{secret:?}"), "Secret(***)");
        assert_eq!(format!("{:?}", Some(secret.clone())), "Some(Secret(***))");
        assert_eq!(secret.expose(), "postgres://u:hunter2@db/x");
    }

    #[test]
    fn hashes_are_stable_and_comparison_is_exact() {
        assert_eq!(sha256_hex("abc").len(), 64);
        assert_eq!(sha256_hex("abc"), sha256_hex("abc"));
        assert!(constant_time_eq("token", "token"));
        assert!(!constant_time_eq("token", "tokem"));
        assert!(!constant_time_eq("token", "tokens"));
    }
}
