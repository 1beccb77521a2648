//! Google's service-account flow (RFC 7523 JWT bearer grant): the RS256-signed assertion, the
//! token request carrying it and the token endpoint's answer. Time is an argument; caching
//! and refreshing the token is the caller's job.
//!
//! The assertion's `aud` is always [`TOKEN_AUDIENCE`], whatever the key file's `token_uri`:
//! Google documents that value as the audience of every access-token request, and
//! `google-auth` signs it even when `token_uri` points elsewhere (a private endpoint, a test
//! double); the request itself goes to `token_uri`.

use std::fmt;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::SystemRandom;
use ring::signature::RSA_PKCS1_SHA256;
use serde_json::{Value, json};

use super::ServiceAccount;

/// The scope Vertex AI calls need.
pub const CLOUD_PLATFORM_SCOPE: &str = "https://www.googleapis.com/auth/cloud-platform";
/// The audience of every assertion.
pub const TOKEN_AUDIENCE: &str = "https://oauth2.googleapis.com/token";
/// Assertion lifetime: Google's maximum.
pub const ASSERTION_LIFETIME_SECS: i64 = 3600;
/// The RFC 7523 grant type.
pub const JWT_BEARER_GRANT: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// The token request's content type.
pub const FORM_CONTENT_TYPE: &str = "application/x-www-form-urlencoded";
/// Lifetime assumed when a token answer has no `expires_in` (Google always sends it; a short
/// guess makes the caller refresh early rather than send an expired token).
pub const DEFAULT_EXPIRES_IN_SECS: u64 = 300;
/// Longest `error_description` kept from a refusal.
const MAX_DESCRIPTION: usize = 300;

/// Why no access token was obtained.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TokenError {
    /// ring refused to sign (does not happen with a key that parsed).
    #[error("signing the service-account assertion failed")]
    Sign,
    /// The token endpoint answered an OAuth error (`invalid_grant`: wrong key, revoked
    /// account, clock skew; `invalid_scope`, …).
    #[error("the token endpoint refused the assertion: {error}: {description}")]
    Refused { error: String, description: String },
    /// The answer is neither a token nor an OAuth error.
    #[error("invalid token endpoint answer: {0}")]
    Malformed(String),
}

/// The signed assertion for `sa` at `now_unix` (seconds): header `{"alg":"RS256",
/// "typ":"JWT","kid":…}` (no `kid` when the key file has no `private_key_id`), claims `iss`
/// (the account email), `scope` (cloud-platform), `aud` ([`TOKEN_AUDIENCE`]), `iat` = now,
/// `exp` = now + 3600, each part base64url without padding.
pub fn jwt_assertion(sa: &ServiceAccount, now_unix: i64) -> Result<String, TokenError> {
    let mut header = json!({"alg": "RS256", "typ": "JWT"});
    if !sa.private_key_id.is_empty() {
        header["kid"] = json!(sa.private_key_id);
    }
    let claims = json!({
        "iss": sa.client_email,
        "scope": CLOUD_PLATFORM_SCOPE,
        "aud": TOKEN_AUDIENCE,
        "iat": now_unix,
        "exp": now_unix.saturating_add(ASSERTION_LIFETIME_SECS),
    });
    let mut jwt = String::with_capacity(1024);
    jwt.push_str(&URL_SAFE_NO_PAD.encode(header.to_string()));
    jwt.push('.');
    jwt.push_str(&URL_SAFE_NO_PAD.encode(claims.to_string()));
    let key = sa.key_pair();
    let mut signature = vec![0; key.public().modulus_len()];
    // PKCS#1 v1.5 signatures are deterministic; ring takes a random source for blinding.
    key.sign(
        &RSA_PKCS1_SHA256,
        &SystemRandom::new(),
        jwt.as_bytes(),
        &mut signature,
    )
    .map_err(|_| TokenError::Sign)?;
    jwt.push('.');
    jwt.push_str(&URL_SAFE_NO_PAD.encode(signature));
    Ok(jwt)
}

/// A token request: `POST url` with `body` ([`FORM_CONTENT_TYPE`]). `Debug` hides the body,
/// whose assertion is a credential for an hour.
#[derive(Clone, PartialEq, Eq)]
pub struct TokenRequest {
    pub url: String,
    pub body: String,
}

impl fmt::Debug for TokenRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenRequest")
            .field("url", &self.url)
            .field("body", &"<redacted>")
            .finish()
    }
}

/// The request exchanging a fresh assertion for an access token, sent to the key file's
/// `token_uri`: `grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=…`
/// (form-encoded; the assertion's characters need no escaping).
pub fn token_request(sa: &ServiceAccount, now_unix: i64) -> Result<TokenRequest, TokenError> {
    let assertion = jwt_assertion(sa, now_unix)?;
    let grant = JWT_BEARER_GRANT.replace(':', "%3A");
    Ok(TokenRequest {
        url: sa.token_uri.clone(),
        body: format!("grant_type={grant}&assertion={assertion}"),
    })
}

/// An access token and how long it lives from the moment it was issued. `Debug` hides the
/// token.
#[derive(Clone, PartialEq, Eq)]
pub struct AccessToken {
    /// Sent as `Authorization: Bearer {token}`.
    pub token: String,
    pub expires_in_secs: u64,
}

impl fmt::Debug for AccessToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AccessToken")
            .field("token", &"<redacted>")
            .field("expires_in_secs", &self.expires_in_secs)
            .finish()
    }
}

impl AccessToken {
    /// The `authorization` header carrying the token.
    pub fn header(&self) -> (&'static str, String) {
        ("authorization", format!("Bearer {}", self.token))
    }
}

/// Reads the token endpoint's answer, success (`{"access_token":…,"expires_in":3599,
/// "token_type":"Bearer"}`) or OAuth error (`{"error":"invalid_grant",
/// "error_description":…}`), whatever the HTTP status. Errors never quote the token.
pub fn parse_token_response(body: &[u8]) -> Result<AccessToken, TokenError> {
    let v: Value = serde_json::from_slice(body).map_err(|e| {
        TokenError::Malformed(format!(
            "not JSON (line {} column {})",
            e.line(),
            e.column()
        ))
    })?;
    let Some(obj) = v.as_object() else {
        return Err(TokenError::Malformed("not a JSON object".to_owned()));
    };
    if let Some(error) = obj.get("error") {
        let text = |v: Option<&Value>| {
            let s = v.and_then(Value::as_str).unwrap_or_default();
            s.chars().take(MAX_DESCRIPTION).collect::<String>()
        };
        return Err(TokenError::Refused {
            // Google's own error objects (`{"error":{"message":…}}`) land here too.
            error: match error {
                Value::String(_) => text(Some(error)),
                other => text(other.get("status").or_else(|| other.get("message"))),
            },
            description: text(obj.get("error_description")),
        });
    }
    let token = match obj.get("access_token") {
        Some(Value::String(t)) if !t.is_empty() => t,
        Some(Value::String(_)) | None => {
            return Err(TokenError::Malformed("no `access_token`".to_owned()));
        }
        Some(_) => {
            return Err(TokenError::Malformed(
                "`access_token` is not a string".to_owned(),
            ));
        }
    };
    if !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(TokenError::Malformed(
            "`access_token` has characters a header cannot carry".to_owned(),
        ));
    }
    if let Some(kind) = obj.get("token_type")
        && !kind
            .as_str()
            .is_some_and(|k| k.eq_ignore_ascii_case("bearer"))
    {
        return Err(TokenError::Malformed(
            "`token_type` is not Bearer".to_owned(),
        ));
    }
    let expires_in_secs = match obj.get("expires_in") {
        None | Some(Value::Null) => DEFAULT_EXPIRES_IN_SECS,
        Some(n) => n
            .as_u64()
            .or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
            .ok_or_else(|| {
                TokenError::Malformed("`expires_in` is not a number of seconds".to_owned())
            })?,
    };
    Ok(AccessToken {
        token: token.clone(),
        expires_in_secs,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::vertex::VertexKey;
    use base64::engine::general_purpose::STANDARD;
    use ring::signature::{RSA_PKCS1_2048_8192_SHA256, UnparsedPublicKey};

    const FIXTURE: &str =
        include_str!("../../../mock-provider/fixtures/vertex-test-service-account.json");
    const PUBLIC_KEY: &str =
        include_str!("../../../mock-provider/fixtures/vertex-test-public-key.pem");
    const NOW: i64 = 1_760_000_000;

    fn account(edit: impl FnOnce(&mut Value)) -> ServiceAccount {
        let mut v: Value = serde_json::from_str(FIXTURE).unwrap();
        edit(&mut v);
        match VertexKey::parse(&v.to_string(), None).unwrap() {
            VertexKey::ServiceAccount(sa) => sa,
            VertexKey::ApiKey(_) => panic!("a key file"),
        }
    }

    /// The PKCS#1 DER of the fixture's public key, as Google holds it.
    fn public_key_der() -> Vec<u8> {
        let body: String = PUBLIC_KEY
            .lines()
            .filter(|l| !l.starts_with("-----"))
            .collect();
        STANDARD.decode(body).unwrap()
    }

    /// Checks the signature with the public key and returns header and claims.
    fn verify(jwt: &str) -> Result<(Value, Value), &'static str> {
        let (input, sig) = jwt.rsplit_once('.').ok_or("no signature")?;
        let sig = URL_SAFE_NO_PAD
            .decode(sig)
            .map_err(|_| "signature not base64url")?;
        UnparsedPublicKey::new(&RSA_PKCS1_2048_8192_SHA256, public_key_der())
            .verify(input.as_bytes(), &sig)
            .map_err(|_| "bad signature")?;
        let (h, c) = input.split_once('.').ok_or("no claims")?;
        let part = |p: &str| -> Value {
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(p).unwrap()).unwrap()
        };
        Ok((part(h), part(c)))
    }

    #[test]
    fn the_assertion_is_signed_by_the_account_key_with_googles_claims() {
        let jwt = jwt_assertion(&account(|_| {}), NOW).unwrap();
        assert_eq!(jwt.split('.').count(), 3);
        assert!(!jwt.contains('='), "no padding");
        let (header, claims) = verify(&jwt).unwrap();
        assert_eq!(
            header,
            json!({"alg": "RS256", "typ": "JWT", "kid": "test-only-0001"})
        );
        assert_eq!(
            claims,
            json!({
                "iss": "gateway-test@mock-vertex-project.iam.gserviceaccount.com",
                "scope": "https://www.googleapis.com/auth/cloud-platform",
                "aud": "https://oauth2.googleapis.com/token",
                "iat": NOW,
                "exp": NOW + 3600,
            })
        );
        // PKCS#1 v1.5 is deterministic: same account, same time, same assertion.
        assert_eq!(jwt, jwt_assertion(&account(|_| {}), NOW).unwrap());
    }

    #[test]
    fn a_tampered_assertion_fails_verification() {
        let jwt = jwt_assertion(&account(|_| {}), NOW).unwrap();
        let (input, sig) = jwt.rsplit_once('.').unwrap();
        let forged_claims = URL_SAFE_NO_PAD.encode(json!({"iss": "x", "iat": NOW}).to_string());
        let header = input.split('.').next().unwrap();
        let forged = format!("{header}.{forged_claims}.{sig}");
        assert_eq!(verify(&forged).unwrap_err(), "bad signature");
    }

    #[test]
    fn aud_stays_googles_when_token_uri_points_elsewhere_and_kid_is_optional() {
        let sa = account(|v| {
            v["token_uri"] = json!("http://127.0.0.1:4000/token");
            v.as_object_mut().unwrap().remove("private_key_id");
        });
        let (header, claims) = verify(&jwt_assertion(&sa, NOW).unwrap()).unwrap();
        assert_eq!(header, json!({"alg": "RS256", "typ": "JWT"}));
        assert_eq!(claims["aud"], json!(TOKEN_AUDIENCE));
        let req = token_request(&sa, NOW).unwrap();
        assert_eq!(req.url, "http://127.0.0.1:4000/token");
    }

    #[test]
    fn the_token_request_is_a_jwt_bearer_form() {
        let sa = account(|_| {});
        let req = token_request(&sa, NOW).unwrap();
        assert_eq!(req.url, "https://oauth2.googleapis.com/token");
        let fields: Vec<(&str, &str)> = req
            .body
            .split('&')
            .map(|p| p.split_once('=').unwrap())
            .collect();
        assert_eq!(fields.len(), 2);
        assert_eq!(
            fields[0],
            (
                "grant_type",
                "urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer"
            )
        );
        assert_eq!(fields[1].0, "assertion");
        assert_eq!(fields[1].1, jwt_assertion(&sa, NOW).unwrap());
        assert!(verify(fields[1].1).is_ok());
        assert!(!format!("{req:?}").contains(fields[1].1));
    }

    #[test]
    fn reads_tokens_and_refusals() {
        let ok = parse_token_response(
            br#"{"access_token":"ya29.secret","expires_in":3599,"token_type":"Bearer"}"#,
        )
        .unwrap();
        assert_eq!(
            (ok.token.as_str(), ok.expires_in_secs),
            ("ya29.secret", 3599)
        );
        assert_eq!(
            ok.header(),
            ("authorization", "Bearer ya29.secret".to_owned())
        );
        assert!(!format!("{ok:?}").contains("ya29.secret"));
        let no_expiry = parse_token_response(br#"{"access_token":"t"}"#).unwrap();
        assert_eq!(no_expiry.expires_in_secs, DEFAULT_EXPIRES_IN_SECS);

        let refused = parse_token_response(
            br#"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#,
        )
        .unwrap_err();
        assert_eq!(
            refused,
            TokenError::Refused {
                error: "invalid_grant".into(),
                description: "Invalid JWT Signature.".into()
            }
        );
        let google = parse_token_response(
            br#"{"error":{"code":503,"message":"down","status":"UNAVAILABLE"}}"#,
        )
        .unwrap_err();
        assert!(matches!(google, TokenError::Refused { error, .. } if error == "UNAVAILABLE"));
    }

    #[test]
    fn malformed_answers_are_errors_that_never_quote_the_token() {
        for body in [
            &b"<html>"[..],
            b"[]",
            br#"{"expires_in":3599}"#,
            br#"{"access_token":""}"#,
            br#"{"access_token":7}"#,
            br#"{"access_token":"ya29.secret token"}"#,
            br#"{"access_token":"ya29.secret","token_type":"MAC"}"#,
            br#"{"access_token":"ya29.secret","expires_in":"soon"}"#,
            br#"{"access_token":"ya29.secret","expires_in":-1}"#,
        ] {
            let e = parse_token_response(body).unwrap_err();
            assert!(matches!(e, TokenError::Malformed(_)), "{e:?}");
            assert!(!e.to_string().contains("ya29.secret"), "{e}");
        }
    }
}
