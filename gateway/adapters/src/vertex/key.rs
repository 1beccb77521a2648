//! The Vertex channel key: a service-account key file (JSON, RSA private key parsed once) or
//! an API key (Vertex AI express mode). Secrets never reach `Debug` output or errors.

use std::fmt;
use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use ring::signature::RsaKeyPair;
use serde::Deserialize;

use crate::ParseError;

/// Where a key file without `token_uri` exchanges its assertions.
pub const DEFAULT_TOKEN_URI: &str = "https://oauth2.googleapis.com/token";

/// Largest channel key read (a Google key file is about 2.4 KB).
const MAX_KEY_LEN: usize = 64 * 1024;

const PEM_BEGIN: &str = "-----BEGIN PRIVATE KEY-----";
const PEM_END: &str = "-----END PRIVATE KEY-----";

/// A service account's key file, validated: its RSA key is parsed and ready to sign.
#[derive(Clone)]
pub struct ServiceAccount {
    /// The project the account belongs to (the `{project}` of Vertex URLs).
    pub project_id: String,
    /// The account's email: the assertion's issuer.
    pub client_email: String,
    /// The key's id (the assertion header's `kid`); empty when the file has none.
    pub private_key_id: String,
    /// Where assertions are exchanged for access tokens.
    pub token_uri: String,
    key: Arc<RsaKeyPair>,
}

impl ServiceAccount {
    /// The parsed private key.
    pub(super) fn key_pair(&self) -> &RsaKeyPair {
        &self.key
    }
}

impl fmt::Debug for ServiceAccount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServiceAccount")
            .field("project_id", &self.project_id)
            .field("client_email", &self.client_email)
            .field("private_key_id", &self.private_key_id)
            .field("token_uri", &self.token_uri)
            .field("private_key", &"<redacted>")
            .finish()
    }
}

/// A Vertex channel key.
#[derive(Clone)]
pub enum VertexKey {
    /// A service-account key file: calls carry an OAuth access token obtained with a signed
    /// assertion (see [`super::jwt_assertion`]).
    ServiceAccount(ServiceAccount),
    /// An API key (express mode: Gemini models only), sent as `x-goog-api-key`.
    ApiKey(String),
}

impl fmt::Debug for VertexKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VertexKey::ServiceAccount(sa) => f.debug_tuple("ServiceAccount").field(sa).finish(),
            VertexKey::ApiKey(_) => f.debug_tuple("ApiKey").field(&"<redacted>").finish(),
        }
    }
}

/// The fields of a key file the gateway uses (the others are ignored).
#[derive(Deserialize)]
struct KeyFile {
    #[serde(rename = "type")]
    kind: Option<String>,
    project_id: Option<String>,
    private_key_id: Option<String>,
    private_key: Option<String>,
    client_email: Option<String>,
    token_uri: Option<String>,
}

impl VertexKey {
    /// Parses a channel key. `key_type` is the channel setting naming the kind (`json`:
    /// service-account key file, `api_key`); without it a key starting with `{` is a key
    /// file and anything else an API key. Errors name the field at fault, never its value.
    pub fn parse(key: &str, key_type: Option<&str>) -> Result<VertexKey, ParseError> {
        let key = key.trim();
        if key.len() > MAX_KEY_LEN {
            return Err(invalid(format!(
                "the key is longer than {MAX_KEY_LEN} bytes"
            )));
        }
        let json = match key_type.map(str::trim).filter(|t| !t.is_empty()) {
            Some("json" | "service_account") => true,
            Some("api_key") => false,
            Some(other) => {
                return Err(invalid(format!(
                    "unknown key type {other:?}, expected \"json\" or \"api_key\""
                )));
            }
            None => key.starts_with('{'),
        };
        if json {
            service_account(key).map(VertexKey::ServiceAccount)
        } else {
            api_key(key).map(VertexKey::ApiKey)
        }
    }
}

fn invalid(message: String) -> ParseError {
    ParseError::Invalid(format!("Vertex key: {message}"))
}

fn api_key(key: &str) -> Result<String, ParseError> {
    if key.is_empty() {
        return Err(invalid("the API key is empty".to_owned()));
    }
    if !key.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(invalid(
            "the API key has characters a header cannot carry".to_owned(),
        ));
    }
    Ok(key.to_owned())
}

fn service_account(key: &str) -> Result<ServiceAccount, ParseError> {
    // serde's messages may quote a value: only the position is reported.
    let file: KeyFile = serde_json::from_str(key).map_err(|e| {
        invalid(format!(
            "not a service-account key file (JSON error at line {} column {})",
            e.line(),
            e.column()
        ))
    })?;
    match file.kind.as_deref() {
        Some("service_account") => {}
        Some(other) => {
            return Err(invalid(format!(
                "`type` is {other:?}, expected \"service_account\""
            )));
        }
        None => return Err(invalid("`type` is missing".to_owned())),
    }
    let required = |v: Option<String>, name: &str| {
        v.map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .ok_or_else(|| invalid(format!("`{name}` is missing")))
    };
    let project_id = required(file.project_id, "project_id")?;
    let client_email = required(file.client_email, "client_email")?;
    let pem = required(file.private_key, "private_key")?;
    let token_uri = match file.token_uri.map(|s| s.trim().to_owned()) {
        Some(uri) if !uri.is_empty() => {
            if !(uri.starts_with("https://") || uri.starts_with("http://")) {
                return Err(invalid("`token_uri` is not an http(s) URL".to_owned()));
            }
            uri
        }
        _ => DEFAULT_TOKEN_URI.to_owned(),
    };
    let der = pkcs8_der(&pem)?;
    let key = RsaKeyPair::from_pkcs8(&der).map_err(|e| {
        invalid(format!(
            "`private_key` is not an RSA key of 2048 to 8192 bits ({e})"
        ))
    })?;
    Ok(ServiceAccount {
        project_id,
        client_email,
        private_key_id: file.private_key_id.unwrap_or_default().trim().to_owned(),
        token_uri,
        key: Arc::new(key),
    })
}

/// The DER bytes of a PKCS#8 PEM block (`BEGIN PRIVATE KEY`).
fn pkcs8_der(pem: &str) -> Result<Vec<u8>, ParseError> {
    let Some((_, rest)) = pem.split_once(PEM_BEGIN) else {
        return Err(invalid(
            "`private_key` is not a PKCS#8 PEM block (BEGIN PRIVATE KEY)".to_owned(),
        ));
    };
    let Some((body, _)) = rest.split_once(PEM_END) else {
        return Err(invalid(
            "`private_key` has no END PRIVATE KEY line".to_owned(),
        ));
    };
    let b64: String = body.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    STANDARD
        .decode(b64.as_bytes())
        .map_err(|_| invalid("`private_key` is not valid base64".to_owned()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::{Value, json};

    const FIXTURE: &str =
        include_str!("../../../mock-provider/fixtures/vertex-test-service-account.json");

    fn fixture() -> Value {
        serde_json::from_str(FIXTURE).unwrap()
    }

    fn parse_value(v: &Value) -> Result<VertexKey, ParseError> {
        VertexKey::parse(&v.to_string(), None)
    }

    fn err(v: &Value) -> String {
        parse_value(v).unwrap_err().to_string()
    }

    #[test]
    fn parses_the_fixture_key_file() {
        let VertexKey::ServiceAccount(sa) = VertexKey::parse(FIXTURE, None).unwrap() else {
            panic!("a key file is a service account");
        };
        assert_eq!(sa.project_id, "mock-vertex-project");
        assert_eq!(
            sa.client_email,
            "gateway-test@mock-vertex-project.iam.gserviceaccount.com"
        );
        assert_eq!(sa.private_key_id, "test-only-0001");
        assert_eq!(sa.token_uri, "https://oauth2.googleapis.com/token");
        assert_eq!(sa.key_pair().public().modulus_len(), 256);
        let explicit = VertexKey::parse(FIXTURE, Some("json")).unwrap();
        assert!(matches!(explicit, VertexKey::ServiceAccount(_)));
    }

    #[test]
    fn tells_api_keys_from_key_files() {
        let key = VertexKey::parse("  AIzaSyTest-key  ", None).unwrap();
        assert!(matches!(&key, VertexKey::ApiKey(k) if k == "AIzaSyTest-key"));
        // The setting wins over the guess.
        let forced = VertexKey::parse("{not-json", Some("api_key")).unwrap();
        assert!(matches!(forced, VertexKey::ApiKey(_)));
        let e = VertexKey::parse("AIza-x", Some("json")).unwrap_err();
        assert!(
            e.to_string().contains("not a service-account key file"),
            "{e}"
        );
        let e = VertexKey::parse("AIza-x", Some("pem")).unwrap_err();
        assert!(e.to_string().contains("unknown key type"), "{e}");
        assert!(VertexKey::parse("", Some("api_key")).is_err());
        assert!(VertexKey::parse("a b", None).is_err());
        assert!(VertexKey::parse(&"k".repeat(MAX_KEY_LEN + 1), None).is_err());
    }

    #[test]
    fn token_uri_defaults_and_must_be_http() {
        let mut v = fixture();
        v.as_object_mut().unwrap().remove("token_uri");
        let VertexKey::ServiceAccount(sa) = parse_value(&v).unwrap() else {
            panic!()
        };
        assert_eq!(sa.token_uri, DEFAULT_TOKEN_URI);
        v["token_uri"] = json!("http://127.0.0.1:9/token");
        let VertexKey::ServiceAccount(sa) = parse_value(&v).unwrap() else {
            panic!()
        };
        assert_eq!(sa.token_uri, "http://127.0.0.1:9/token");
        v["token_uri"] = json!("file:///etc/passwd");
        assert!(err(&v).contains("token_uri"));
    }

    #[test]
    fn refuses_incomplete_or_foreign_key_files() {
        for (field, message) in [
            ("project_id", "`project_id` is missing"),
            ("client_email", "`client_email` is missing"),
            ("private_key", "`private_key` is missing"),
            ("type", "`type` is missing"),
        ] {
            let mut v = fixture();
            v.as_object_mut().unwrap().remove(field);
            assert!(err(&v).contains(message), "{field}: {}", err(&v));
        }
        let mut v = fixture();
        v["type"] = json!("authorized_user");
        assert!(err(&v).contains("authorized_user"));
        let mut v = fixture();
        v["private_key"] =
            json!("-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n");
        assert!(err(&v).contains("PKCS#8"), "{}", err(&v));
        let mut v = fixture();
        v["private_key"] = json!("-----BEGIN PRIVATE KEY-----\n!!!!\n-----END PRIVATE KEY-----\n");
        assert!(err(&v).contains("base64"));
        let mut v = fixture();
        v["private_key"] = json!("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");
        assert!(err(&v).contains("not an RSA key"), "{}", err(&v));
        let mut v = fixture();
        v["project_id"] = json!(7);
        assert!(err(&v).contains("line 1"), "{}", err(&v));
    }

    #[test]
    fn secrets_stay_out_of_debug_and_errors() {
        let fixture = fixture();
        let pem = fixture["private_key"].as_str().unwrap();
        let body_line = pem.lines().nth(1).unwrap();
        let sa = VertexKey::parse(FIXTURE, None).unwrap();
        let shown = format!("{sa:?}");
        assert!(shown.contains("gateway-test@") && shown.contains("<redacted>"));
        assert!(!shown.contains(body_line), "{shown}");
        let api = VertexKey::parse("AIzaSecret123", None).unwrap();
        assert!(!format!("{api:?}").contains("AIzaSecret123"));
        // A type error on the key itself must not quote it.
        let mut v = fixture.clone();
        v["private_key"] = json!(["AIzaSecret123"]);
        assert!(!err(&v).contains("AIzaSecret123"));
        let e = VertexKey::parse("{\"type\": \"AIzaSecret123", None).unwrap_err();
        assert!(!e.to_string().contains("AIzaSecret123"), "{e}");
    }
}
