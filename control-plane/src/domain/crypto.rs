//! Encryption of secrets at rest (channel keys, token keys): AES-256-GCM with a key derived from
//! the operator's secret, a random nonce per value, stored as `v1:<base64(nonce ‖ ciphertext)>`.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use ring::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use sha2::{Digest, Sha256};

const PREFIX: &str = "v1:";

/// Why a stored secret could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CryptoError {
    #[error("not an encrypted value")]
    Format,
    #[error("the value does not decrypt with this key (was the encryption key changed?)")]
    Decrypt,
}

/// Encrypts and decrypts secrets with one key.
pub struct Cipher {
    key: LessSafeKey,
}

impl std::fmt::Debug for Cipher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Cipher(..)")
    }
}

impl Cipher {
    /// A cipher whose key is the SHA-256 of `secret` (any string the operator chose).
    pub fn from_secret(secret: &str) -> Self {
        let digest = Sha256::digest(secret.as_bytes());
        // A 32-byte key always fits AES-256.
        let unbound = UnboundKey::new(&AES_256_GCM, &digest)
            .unwrap_or_else(|_| unreachable!("SHA-256 output is 32 bytes"));
        Cipher {
            key: LessSafeKey::new(unbound),
        }
    }

    /// Encrypts `plain` with a fresh random nonce.
    pub fn encrypt(&self, plain: &str) -> String {
        let mut nonce = [0u8; NONCE_LEN];
        rand::fill(&mut nonce);
        let mut buffer = plain.as_bytes().to_vec();
        // Sealing only fails for inputs larger than GCM allows (~64 GiB).
        if self
            .key
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::empty(),
                &mut buffer,
            )
            .is_err()
        {
            unreachable!("secret larger than AES-GCM allows");
        }
        let mut out = nonce.to_vec();
        out.extend_from_slice(&buffer);
        format!("{PREFIX}{}", STANDARD.encode(out))
    }

    /// Decrypts a value made by [`Cipher::encrypt`].
    pub fn decrypt(&self, stored: &str) -> Result<String, CryptoError> {
        let encoded = stored.strip_prefix(PREFIX).ok_or(CryptoError::Format)?;
        let bytes = STANDARD.decode(encoded).map_err(|_| CryptoError::Format)?;
        if bytes.len() < NONCE_LEN {
            return Err(CryptoError::Format);
        }
        let (nonce, sealed) = bytes.split_at(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| CryptoError::Format)?;
        let mut sealed = sealed.to_vec();
        let plain = self
            .key
            .open_in_place(nonce, Aad::empty(), &mut sealed)
            .map_err(|_| CryptoError::Decrypt)?;
        String::from_utf8(plain.to_vec()).map_err(|_| CryptoError::Decrypt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_with_fresh_nonces() {
        let cipher = Cipher::from_secret("operator secret");
        let a = cipher.encrypt("sk-upstream-key");
        let b = cipher.encrypt("sk-upstream-key");
        assert_ne!(a, b, "nonces differ");
        assert!(!a.contains("upstream"));
        assert_eq!(cipher.decrypt(&a), Ok("sk-upstream-key".to_string()));
        assert_eq!(cipher.decrypt(&cipher.encrypt("")), Ok(String::new()));
    }

    #[test]
    fn wrong_key_and_garbage_are_refused() {
        let a = Cipher::from_secret("one").encrypt("secret");
        assert_eq!(
            Cipher::from_secret("two").decrypt(&a),
            Err(CryptoError::Decrypt)
        );
        assert_eq!(
            Cipher::from_secret("one").decrypt("plain"),
            Err(CryptoError::Format)
        );
        assert_eq!(
            Cipher::from_secret("one").decrypt("v1:!!"),
            Err(CryptoError::Format)
        );
        let mut tampered = a.clone();
        tampered.pop();
        tampered.push(if a.ends_with('A') { 'B' } else { 'A' });
        assert!(Cipher::from_secret("one").decrypt(&tampered).is_err());
    }
}
