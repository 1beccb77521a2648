//! One-time codes sent by email: what they look like, how long they live, and when a code offered
//! by a user is accepted.

use super::secrets;

/// A code lives ten minutes.
pub const CODE_TTL_SECS: i64 = 600;
/// A new code for the same address may be sent after 30 seconds (spec 1 §9).
pub const RESEND_COOLDOWN_SECS: i64 = 30;
/// After this many wrong guesses a code is dead.
pub const MAX_ATTEMPTS: i64 = 5;

/// What a code is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// Registration (and binding an email while signed in).
    Email,
    /// A password-reset link.
    PasswordReset,
}

impl Purpose {
    pub fn as_str(self) -> &'static str {
        match self {
            Purpose::Email => "email",
            Purpose::PasswordReset => "password_reset",
        }
    }

    /// A fresh code: six digits to type, or a long token for a reset link.
    pub fn new_code(self) -> String {
        match self {
            Purpose::Email => {
                let n: u32 = rand::random_range(0..1_000_000);
                format!("{n:06}")
            }
            Purpose::PasswordReset => secrets::random_alphanumeric(32),
        }
    }
}

/// Seconds to wait before another code may be sent, if any.
pub fn cooldown_left(created_at: i64, now: i64) -> Option<i64> {
    let left = created_at + RESEND_COOLDOWN_SECS - now;
    (left > 0).then_some(left)
}

/// Whether `offered` is the code whose hash is `code_hash` (compared in constant time).
pub fn matches(code_hash: &str, offered: &str) -> bool {
    let offered = offered.trim();
    !offered.is_empty() && secrets::constant_time_eq(&secrets::sha256_hex(offered), code_hash)
}

/// Normalises an address for lookups: trimmed and lower-cased.
pub fn normalize_email(email: &str) -> String {
    email.trim().to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_have_the_right_shape() {
        let code = Purpose::Email.new_code();
        assert_eq!(code.len(), 6);
        assert!(code.chars().all(|c| c.is_ascii_digit()));
        assert_eq!(Purpose::PasswordReset.new_code().len(), 32);
    }

    #[test]
    fn a_code_matches_only_itself() {
        let hash = secrets::sha256_hex("123456");
        assert!(matches(&hash, "123456"));
        assert!(matches(&hash, " 123456 "));
        assert!(!matches(&hash, "654321"));
        assert!(!matches(&hash, ""));
    }

    #[test]
    fn resend_waits_thirty_seconds() {
        assert_eq!(cooldown_left(1000, 1000), Some(30));
        assert_eq!(cooldown_left(1000, 1029), Some(1));
        assert_eq!(cooldown_left(1000, 1030), None);
    }
}
