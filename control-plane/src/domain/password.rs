//! Password hashing: argon2id for new hashes; bcrypt hashes (imported users) are accepted.

use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::{Algorithm, Argon2, Params, Version};

/// The well-known default root password of the system this one replaces; a root account still
/// using it gets a warning at sign-in.
pub const WELL_KNOWN_ROOT_PASSWORD: &str = "123456";

fn hasher() -> Argon2<'static> {
    Argon2::new(Algorithm::Argon2id, Version::V0x13, Params::default())
}

/// Hashes a password with argon2id and a random salt.
pub fn hash(password: &str) -> Result<String, String> {
    let mut salt = [0u8; 16];
    rand::fill(&mut salt);
    hasher()
        .hash_password_with_salt(password.as_bytes(), &salt)
        .map(|h: PasswordHash| h.to_string())
        .map_err(|e| e.to_string())
}

/// Checks a password against an argon2 or bcrypt hash. Unknown formats never match.
pub fn verify(password: &str, stored: &str) -> bool {
    if stored.starts_with("$argon2") {
        PasswordHash::new(stored)
            .map(|parsed| {
                hasher()
                    .verify_password(password.as_bytes(), &parsed)
                    .is_ok()
            })
            .unwrap_or(false)
    } else if is_bcrypt(stored) {
        bcrypt::verify(password, stored).unwrap_or(false)
    } else {
        false
    }
}

/// Whether `stored` is a password hash this module can check (argon2 or bcrypt).
pub fn is_hash(stored: &str) -> bool {
    stored.starts_with("$argon2") || is_bcrypt(stored)
}

/// Whether a stored hash should be replaced by an argon2id one after a successful sign-in.
pub fn needs_rehash(stored: &str) -> bool {
    !stored.starts_with("$argon2id")
}

fn is_bcrypt(stored: &str) -> bool {
    ["$2a$", "$2b$", "$2y$"]
        .iter()
        .any(|p| stored.starts_with(p))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn argon2_round_trip() {
        let h = hash("correct horse").unwrap();
        assert!(h.starts_with("$argon2id$"));
        assert!(verify("correct horse", &h));
        assert!(!verify("wrong horse", &h));
        assert!(!needs_rehash(&h));
    }

    #[test]
    fn bcrypt_hashes_are_accepted_and_flagged_for_rehash() {
        let h = bcrypt::hash("imported-pass", 4).unwrap();
        assert!(verify("imported-pass", &h));
        assert!(!verify("other", &h));
        assert!(needs_rehash(&h));
    }

    #[test]
    fn unknown_formats_never_match() {
        assert!(!verify("plain", "plain"));
        assert!(!verify("", ""));
        assert!(!is_hash("") && !is_hash("plain"));
        assert!(is_hash(&hash("x").unwrap()));
    }
}
