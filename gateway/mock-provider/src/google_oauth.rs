//! Google's OAuth token endpoint for service accounts (`POST /token`, RFC 7523 JWT bearer
//! grant), checked the way Google checks it, against the public key of the test service
//! account only (`fixtures/vertex-test-*`): the RS256 signature (key found by `iss` and
//! `kid`), the audience, a lifetime of at most an hour around the mock's clock, the
//! cloud-platform scope. It issues `ya29.mock-<n>` tokens that the Vertex routes accept until
//! they expire, and refuses with Google's `{"error":"invalid_grant",…}` answers.

use std::collections::HashMap;
use std::fmt;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use hyper::{Response, StatusCode};
use ring::signature::{RSA_PKCS1_2048_8192_SHA256, UnparsedPublicKey};
use serde_json::{Value, json};

use crate::{MockBody, Scenario, SharedStats, json_response, lock};

/// Path of the token endpoint (after any `/s/{spec}` prefix): a key file's `token_uri` is
/// `{mock}/token` (or `{mock}/s/token_ttl=5/token` to choose the token lifetime).
pub const TOKEN_PATH: &str = "/token";
/// Audiences Google's token endpoint accepts: the one Google documents for every access-token
/// request and the two older token URLs that libraries still sign.
pub const GOOGLE_TOKEN_AUDIENCES: [&str; 3] = [
    "https://oauth2.googleapis.com/token",
    "https://www.googleapis.com/oauth2/v4/token",
    "https://accounts.google.com/o/oauth2/token",
];
/// Lifetime of an issued token unless the scenario sets `token_ttl` (Google answers 3599).
pub const DEFAULT_TOKEN_TTL_SECS: u64 = 3599;
/// The scope Vertex calls need.
pub const CLOUD_PLATFORM_SCOPE: &str = "https://www.googleapis.com/auth/cloud-platform";

/// The test service account (`fixtures/vertex-test-service-account.json`).
pub const TEST_CLIENT_EMAIL: &str = "gateway-test@mock-vertex-project.iam.gserviceaccount.com";
pub const TEST_PROJECT_ID: &str = "mock-vertex-project";
pub const TEST_KEY_ID: &str = "test-only-0001";
const TEST_PUBLIC_KEY: &str = include_str!("../fixtures/vertex-test-public-key.pem");
const TEST_KEY_FILE: &str = include_str!("../fixtures/vertex-test-service-account.json");
/// Most live tokens kept; expired ones are dropped first.
const MAX_TOKENS: usize = 100_000;
/// Clock skew tolerated on `iat`.
const SKEW_SECS: i64 = 60;
const TOO_LONG: &str = "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.";
const BAD_SIGNATURE: &str = "Invalid JWT Signature.";

/// The test service account's key file with `token_uri` set to `token_uri` (for a gateway
/// channel pointed at this mock).
pub fn test_service_account_json(token_uri: &str) -> String {
    let mut v: Value = serde_json::from_str(TEST_KEY_FILE).unwrap_or_default();
    v["token_uri"] = json!(token_uri);
    v.to_string()
}

/// A token this mock issued.
#[derive(Debug, Clone)]
pub(crate) struct Issued {
    pub project_id: &'static str,
    pub expires: Instant,
}

/// Tokens issued and the audience accepted.
#[derive(Default)]
pub(crate) struct OAuthState {
    tokens: HashMap<String, Issued>,
    issued: u64,
    /// Accepted instead of [`GOOGLE_TOKEN_AUDIENCES`] when set.
    pub audience: Option<String>,
}

impl fmt::Debug for OAuthState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthState")
            .field("tokens", &self.tokens.len())
            .field("audience", &self.audience)
            .finish()
    }
}

impl OAuthState {
    /// The live token `token`, `Err(true)` when it expired, `Err(false)` when never issued.
    pub fn check(&self, token: &str) -> Result<&Issued, bool> {
        match self.tokens.get(token) {
            Some(t) if t.expires > Instant::now() => Ok(t),
            Some(_) => Err(true),
            None => Err(false),
        }
    }

    /// Ends the life of every issued token now.
    pub fn expire_all(&mut self) {
        let now = Instant::now();
        for t in self.tokens.values_mut() {
            t.expires = now;
        }
    }

    fn issue(&mut self, project_id: &'static str, ttl: Duration) -> String {
        if self.tokens.len() >= MAX_TOKENS {
            let now = Instant::now();
            self.tokens.retain(|_, t| t.expires > now);
            if self.tokens.len() >= MAX_TOKENS {
                self.tokens.clear();
            }
        }
        self.issued += 1;
        let token = format!("ya29.mock-{}", self.issued);
        self.tokens.insert(
            token.clone(),
            Issued {
                project_id,
                expires: Instant::now() + ttl,
            },
        );
        token
    }
}

/// An OAuth error answer: `{"error": kind, "error_description": description}`.
fn refuse(status: StatusCode, kind: &str, description: &str) -> Response<MockBody> {
    json_response(
        status,
        &json!({"error": kind, "error_description": description}),
    )
}

fn invalid_grant(description: &str) -> Response<MockBody> {
    refuse(StatusCode::BAD_REQUEST, "invalid_grant", description)
}

/// Answers `POST /token`.
pub(crate) fn token(
    scenario: &Scenario,
    method: &http::Method,
    body: &[u8],
    stats: &SharedStats,
) -> Response<MockBody> {
    if scenario.status != 200 {
        let code = StatusCode::from_u16(scenario.status).unwrap_or(StatusCode::BAD_GATEWAY);
        let kind = match scenario.status {
            429 => "rate_limit_exceeded",
            s if s >= 500 => "internal_failure",
            _ => "invalid_grant",
        };
        return refuse(code, kind, &format!("mock error {}", scenario.status));
    }
    if method != http::Method::POST {
        return refuse(
            StatusCode::METHOD_NOT_ALLOWED,
            "invalid_request",
            "Only POST is supported",
        );
    }
    let form = form_fields(body);
    let field = |k: &str| form.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    match field("grant_type") {
        Some("urn:ietf:params:oauth:grant-type:jwt-bearer") => {}
        Some(other) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                "unsupported_grant_type",
                &format!("Invalid grant_type: {other}"),
            );
        }
        None => {
            return refuse(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                "Missing required parameter: grant_type",
            );
        }
    }
    let Some(assertion) = field("assertion") else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "Missing required parameter: assertion",
        );
    };
    let audience = lock(stats).oauth.audience.clone();
    let project_id = match verify(assertion, audience.as_deref(), unix_now()) {
        Ok(project) => project,
        Err(Refusal::Grant(d)) => return invalid_grant(&d),
        Err(Refusal::Scope) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                "invalid_scope",
                "Invalid OAuth scope or ID token audience provided.",
            );
        }
    };
    let ttl = scenario.token_ttl.unwrap_or(DEFAULT_TOKEN_TTL_SECS);
    let token = {
        let mut st = lock(stats);
        st.tokens_issued += 1;
        st.oauth.issue(project_id, Duration::from_secs(ttl))
    };
    json_response(
        StatusCode::OK,
        &json!({"access_token": token, "expires_in": ttl, "token_type": "Bearer"}),
    )
}

fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// Why an assertion is refused.
#[derive(Debug, PartialEq, Eq)]
enum Refusal {
    /// `invalid_grant` with this description.
    Grant(String),
    /// `invalid_scope`.
    Scope,
}

fn grant(d: &str) -> Refusal {
    Refusal::Grant(d.to_owned())
}

/// Checks an assertion as Google does; the project of the account on success.
fn verify(jwt: &str, audience: Option<&str>, now: i64) -> Result<&'static str, Refusal> {
    let mut parts = jwt.split('.');
    let (Some(h), Some(c), Some(sig), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(grant(
            "Invalid JWT: the assertion is not three base64url parts",
        ));
    };
    let decode = |p: &str| URL_SAFE_NO_PAD.decode(p).ok();
    let json = |p: &str| decode(p).and_then(|b| serde_json::from_slice::<Value>(&b).ok());
    let (Some(header), Some(claims), Some(signature)) = (json(h), json(c), decode(sig)) else {
        return Err(grant(
            "Invalid JWT: the assertion is not three base64url parts",
        ));
    };
    if header.get("alg").and_then(Value::as_str) != Some("RS256") {
        return Err(grant("Invalid JWT: the signing algorithm must be RS256"));
    }
    if claims.get("iss").and_then(Value::as_str) != Some(TEST_CLIENT_EMAIL) {
        return Err(grant("Invalid grant: account not found"));
    }
    // Google looks the key up by `kid` among the account's keys (all of them without one).
    if let Some(kid) = header.get("kid")
        && kid.as_str() != Some(TEST_KEY_ID)
    {
        return Err(grant(BAD_SIGNATURE));
    }
    let input = &jwt[..h.len() + 1 + c.len()];
    UnparsedPublicKey::new(&RSA_PKCS1_2048_8192_SHA256, public_key_der())
        .verify(input.as_bytes(), &signature)
        .map_err(|_| grant(BAD_SIGNATURE))?;
    let aud = claims.get("aud").and_then(Value::as_str).unwrap_or("");
    let aud_ok = match audience {
        Some(expected) => aud == expected,
        None => GOOGLE_TOKEN_AUDIENCES.contains(&aud),
    };
    if !aud_ok {
        let right = audience.unwrap_or(GOOGLE_TOKEN_AUDIENCES[0]);
        return Err(Refusal::Grant(format!(
            "Invalid JWT: Failed audience check. The right audience is {right}"
        )));
    }
    let (Some(iat), Some(exp)) = (
        claims.get("iat").and_then(Value::as_i64),
        claims.get("exp").and_then(Value::as_i64),
    ) else {
        return Err(grant(TOO_LONG));
    };
    if exp <= iat || exp - iat > 3600 || iat > now + SKEW_SECS || exp < now {
        return Err(grant(TOO_LONG));
    }
    let scope = claims.get("scope").and_then(Value::as_str).unwrap_or("");
    if !scope.split(' ').any(|s| s == CLOUD_PLATFORM_SCOPE) {
        return Err(Refusal::Scope);
    }
    Ok(TEST_PROJECT_ID)
}

/// The PKCS#1 DER of the test account's public key.
fn public_key_der() -> Vec<u8> {
    let b64: String = TEST_PUBLIC_KEY
        .lines()
        .filter(|l| !l.starts_with("-----"))
        .collect();
    STANDARD.decode(b64.trim()).unwrap_or_default()
}

/// The fields of an `application/x-www-form-urlencoded` body, decoded.
fn form_fields(body: &[u8]) -> Vec<(String, String)> {
    body.split(|b| *b == b'&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = match p.iter().position(|b| *b == b'=') {
                Some(i) => (&p[..i], &p[i + 1..]),
                None => (p, &b""[..]),
            };
            (form_decode(k), form_decode(v))
        })
        .collect()
}

fn form_decode(s: &[u8]) -> String {
    let hex = |b: u8| char::from(b).to_digit(16);
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < s.len() => match (hex(s[i + 1]), hex(s[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use ring::rand::SystemRandom;
    use ring::signature::{RSA_PKCS1_SHA256, RsaKeyPair};

    const NOW: i64 = 1_760_000_000;
    const STRANGER: &str = include_str!("../fixtures/vertex-test-stranger-key.pem");

    fn pkcs8(pem: &str) -> RsaKeyPair {
        let b64: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
        RsaKeyPair::from_pkcs8(&STANDARD.decode(b64).unwrap()).unwrap()
    }

    fn account_key() -> RsaKeyPair {
        let v: Value = serde_json::from_str(TEST_KEY_FILE).unwrap();
        pkcs8(v["private_key"].as_str().unwrap())
    }

    fn sign(key: &RsaKeyPair, header: &Value, claims: &Value) -> String {
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let mut sig = vec![0; key.public().modulus_len()];
        key.sign(
            &RSA_PKCS1_SHA256,
            &SystemRandom::new(),
            input.as_bytes(),
            &mut sig,
        )
        .unwrap();
        format!("{input}.{}", URL_SAFE_NO_PAD.encode(sig))
    }

    fn header() -> Value {
        json!({"alg": "RS256", "typ": "JWT", "kid": TEST_KEY_ID})
    }

    fn claims() -> Value {
        json!({
            "iss": TEST_CLIENT_EMAIL,
            "scope": CLOUD_PLATFORM_SCOPE,
            "aud": GOOGLE_TOKEN_AUDIENCES[0],
            "iat": NOW,
            "exp": NOW + 3600,
        })
    }

    fn check(edit: impl FnOnce(&mut Value, &mut Value)) -> Result<&'static str, Refusal> {
        let (mut h, mut c) = (header(), claims());
        edit(&mut h, &mut c);
        verify(&sign(&account_key(), &h, &c), None, NOW)
    }

    fn refusal(r: Result<&'static str, Refusal>) -> String {
        match r {
            Err(Refusal::Grant(d)) => d,
            other => panic!("expected invalid_grant, got {other:?}"),
        }
    }

    #[test]
    fn accepts_the_account_key_with_googles_claims() {
        assert_eq!(check(|_, _| {}), Ok(TEST_PROJECT_ID));
        // No kid: Google tries the account's keys.
        assert_eq!(
            check(|h, _| {
                h.as_object_mut().unwrap().remove("kid");
            }),
            Ok(TEST_PROJECT_ID)
        );
        assert_eq!(
            check(|_, c| c["aud"] = json!(GOOGLE_TOKEN_AUDIENCES[1])),
            Ok(TEST_PROJECT_ID)
        );
        assert_eq!(
            check(|_, c| c["scope"] = json!(format!("openid {CLOUD_PLATFORM_SCOPE}"))),
            Ok(TEST_PROJECT_ID)
        );
        // A minute of clock skew is fine.
        assert_eq!(
            check(|_, c| {
                c["iat"] = json!(NOW + 59);
                c["exp"] = json!(NOW + 59 + 3600);
            }),
            Ok(TEST_PROJECT_ID)
        );
    }

    #[test]
    fn refuses_other_keys_and_forged_claims() {
        let stranger = sign(&pkcs8(STRANGER), &header(), &claims());
        assert_eq!(refusal(verify(&stranger, None, NOW)), BAD_SIGNATURE);
        let honest = sign(&account_key(), &header(), &claims());
        let (input, sig) = honest.rsplit_once('.').unwrap();
        let mut forged_claims = claims();
        forged_claims["exp"] = json!(NOW + 7200);
        let forged = format!(
            "{}.{}.{sig}",
            input.split('.').next().unwrap(),
            URL_SAFE_NO_PAD.encode(forged_claims.to_string())
        );
        assert_eq!(refusal(verify(&forged, None, NOW)), BAD_SIGNATURE);
        assert_eq!(
            refusal(check(|h, _| h["kid"] = json!("other-key"))),
            BAD_SIGNATURE
        );
        assert!(refusal(check(|h, _| h["alg"] = json!("HS256"))).contains("RS256"));
        assert!(
            refusal(check(|_, c| c["iss"] = json!("x@y.iam.gserviceaccount.com")))
                .contains("account not found")
        );
        assert!(refusal(verify("a.b", None, NOW)).contains("three"));
        assert!(refusal(verify(&format!("{honest}="), None, NOW)).contains("three"));
    }

    #[test]
    fn refuses_other_audiences_unless_configured() {
        let mock_url = "http://127.0.0.1:4000/token";
        let d = refusal(check(|_, c| c["aud"] = json!(mock_url)));
        assert!(
            d.contains("audience") && d.contains(GOOGLE_TOKEN_AUDIENCES[0]),
            "{d}"
        );
        let mut c = claims();
        c["aud"] = json!(mock_url);
        let jwt = sign(&account_key(), &header(), &c);
        assert_eq!(verify(&jwt, Some(mock_url), NOW), Ok(TEST_PROJECT_ID));
        let google = sign(&account_key(), &header(), &claims());
        assert!(verify(&google, Some(mock_url), NOW).is_err());
    }

    #[test]
    fn refuses_long_lived_future_or_expired_assertions() {
        for (iat, exp) in [
            (NOW, NOW + 3601),
            (NOW + 61, NOW + 61 + 3600),
            (NOW - 4000, NOW - 400),
            (NOW, NOW),
        ] {
            let r = check(|_, c| {
                c["iat"] = json!(iat);
                c["exp"] = json!(exp);
            });
            assert_eq!(refusal(r), TOO_LONG, "iat {iat} exp {exp}");
        }
        assert_eq!(
            refusal(check(|_, c| {
                c.as_object_mut().unwrap().remove("exp");
            })),
            TOO_LONG
        );
    }

    #[test]
    fn wants_the_cloud_platform_scope() {
        assert_eq!(
            check(|_, c| c["scope"] = json!("https://www.googleapis.com/auth/drive")),
            Err(Refusal::Scope)
        );
        assert_eq!(
            check(|_, c| {
                c.as_object_mut().unwrap().remove("scope");
            }),
            Err(Refusal::Scope)
        );
    }

    #[test]
    fn decodes_forms() {
        let f = form_fields(b"grant_type=urn%3Aietf%3Aparams&assertion=a.b-c_d&x=1+2%2&y");
        assert_eq!(
            f,
            vec![
                ("grant_type".to_owned(), "urn:ietf:params".to_owned()),
                ("assertion".to_owned(), "a.b-c_d".to_owned()),
                ("x".to_owned(), "1 2%2".to_owned()),
                ("y".to_owned(), String::new()),
            ]
        );
    }

    #[test]
    fn issues_tokens_that_expire() {
        let mut st = OAuthState::default();
        let t = st.issue(TEST_PROJECT_ID, Duration::from_secs(60));
        assert_eq!(t, "ya29.mock-1");
        assert_eq!(st.check(&t).unwrap().project_id, TEST_PROJECT_ID);
        assert!(!st.check("ya29.other").unwrap_err(), "never issued");
        st.expire_all();
        assert!(st.check(&t).unwrap_err(), "expired");
        let zero = st.issue(TEST_PROJECT_ID, Duration::ZERO);
        assert!(st.check(&zero).is_err());
        assert!(test_service_account_json("http://m/token").contains("http://m/token"));
    }
}
