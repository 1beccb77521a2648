//! AWS Signature Version 4 for Bedrock Runtime requests: a pure function of the request,
//! the credentials, the region, the service and the time (unix seconds).
//!
//! The canonical URI of every service but S3 is the request path URI-encoded once more,
//! segment by segment: a path sent as `/model/anthropic.claude-3-5-sonnet-20241022-v2%3A0/invoke`
//! is signed as `/model/anthropic.claude-3-5-sonnet-20241022-v2%253A0/invoke` (what the AWS
//! SDKs and botocore do, and what Bedrock checks).

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

const ALGORITHM: &str = "AWS4-HMAC-SHA256";

/// IAM credentials. `Debug` shows the first 4 characters of the access key id only.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    access_key_id: String,
    secret_access_key: String,
    session_token: Option<String>,
}

impl Credentials {
    pub fn new(access_key_id: &str, secret_access_key: &str, session_token: Option<&str>) -> Self {
        Credentials {
            access_key_id: access_key_id.to_owned(),
            secret_access_key: secret_access_key.to_owned(),
            session_token: session_token.map(str::to_owned),
        }
    }

    pub fn access_key_id(&self) -> &str {
        &self.access_key_id
    }

    /// Whether the credentials are temporary (carry a session token).
    pub fn has_session_token(&self) -> bool {
        self.session_token.is_some()
    }
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown: String = self.access_key_id.chars().take(4).collect();
        f.debug_struct("Credentials")
            .field("access_key_id", &format_args!("{shown}…"))
            .field("secret_access_key", &format_args!("<redacted>"))
            .field(
                "session_token",
                &format_args!(
                    "{}",
                    if self.session_token.is_some() {
                        "<redacted>"
                    } else {
                        "None"
                    }
                ),
            )
            .finish()
    }
}

/// Why a request cannot be signed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignError {
    #[error("cannot sign: {0}")]
    Url(&'static str),
    #[error("cannot sign: header {0:?} has a value that is not visible ASCII")]
    HeaderValue(String),
    #[error("cannot sign: the time is out of range")]
    Time,
}

/// What is signed.
#[derive(Debug, Clone, Copy)]
pub struct SigningInput<'a> {
    pub method: &'a str,
    /// The URL exactly as it will be sent (path already percent-encoded).
    pub url: &'a str,
    /// Headers to sign besides `host` and the `x-amz-*` headers this adds (which win over
    /// entries of the same name here). Names are case-insensitive.
    pub headers: &'a [(&'a str, &'a str)],
    pub body: &'a [u8],
    pub credentials: &'a Credentials,
    pub region: &'a str,
    pub service: &'a str,
    /// Seconds since 1970-01-01T00:00:00Z.
    pub unix_time: i64,
}

/// Signs a request: returns the headers to add, `authorization`, `x-amz-date`,
/// `x-amz-content-sha256` (the body's SHA-256, also signed) and, for temporary credentials,
/// `x-amz-security-token`. `host` is taken from the URL (default port left out) and signed;
/// the request must carry that `Host`.
pub fn sign(input: &SigningInput<'_>) -> Result<Vec<(&'static str, String)>, SignError> {
    let url = Url::parse(input.url)?;
    let amz_date = amz_date(input.unix_time)?;
    let payload_hash = hex(&Sha256::digest(input.body));
    let mut added: Vec<(&'static str, String)> = vec![
        ("x-amz-date", amz_date.clone()),
        ("x-amz-content-sha256", payload_hash.clone()),
    ];
    if let Some(token) = &input.credentials.session_token {
        added.push(("x-amz-security-token", token.clone()));
    }
    let mut headers: Vec<(String, String)> = vec![("host".to_owned(), url.host.to_owned())];
    headers.extend(added.iter().map(|(k, v)| ((*k).to_owned(), v.clone())));
    for (name, value) in input.headers {
        let name = name.to_ascii_lowercase();
        if name == "host" || name == "authorization" || added.iter().any(|(k, _)| *k == name) {
            continue;
        }
        headers.push((name, (*value).to_owned()));
    }
    let auth = authorization(input, &url, &mut headers, &amz_date, &payload_hash)?;
    added.insert(0, ("authorization", auth));
    Ok(added)
}

/// The `Authorization` value for a request whose signed headers are exactly `headers`
/// (lowercase names; repeated names are joined with `,` in order).
fn authorization(
    input: &SigningInput<'_>,
    url: &Url<'_>,
    headers: &mut [(String, String)],
    amz_date: &str,
    payload_hash: &str,
) -> Result<String, SignError> {
    let (canonical_headers, signed_headers) = canonical_headers(headers)?;
    let canonical_request = format!(
        "{}\n{}\n{}\n{}\n{}\n{}",
        input.method.to_ascii_uppercase(),
        canonical_uri(url.path),
        canonical_query(url.query),
        canonical_headers,
        signed_headers,
        payload_hash
    );
    let date = amz_date.get(..8).ok_or(SignError::Time)?;
    let scope = format!("{date}/{}/{}/aws4_request", input.region, input.service);
    let string_to_sign = format!(
        "{ALGORITHM}\n{amz_date}\n{scope}\n{}",
        hex(&Sha256::digest(canonical_request.as_bytes()))
    );
    let key = signing_key(
        &input.credentials.secret_access_key,
        date,
        input.region,
        input.service,
    );
    let signature = hex(&hmac(&key, string_to_sign.as_bytes()));
    Ok(format!(
        "{ALGORITHM} Credential={}/{scope}, SignedHeaders={signed_headers}, Signature={signature}",
        input.credentials.access_key_id
    ))
}

/// The canonical header block (`name:value\n` each, sorted by name, values trimmed with
/// inner runs of spaces collapsed) and the signed header list (`a;b;c`).
fn canonical_headers(headers: &mut [(String, String)]) -> Result<(String, String), SignError> {
    headers.sort_by(|a, b| a.0.cmp(&b.0));
    let mut block = String::new();
    let mut names: Vec<&str> = Vec::with_capacity(headers.len());
    for (name, value) in headers.iter() {
        if value
            .bytes()
            .any(|b| !(b == b'\t' || (b' '..=b'~').contains(&b)))
        {
            return Err(SignError::HeaderValue(name.clone()));
        }
        let value = value.split_whitespace().collect::<Vec<_>>().join(" ");
        if names.last() == Some(&name.as_str()) {
            block.push(',');
            block.push_str(&value);
            continue;
        }
        if !names.is_empty() {
            block.push('\n');
        }
        names.push(name);
        block.push_str(name);
        block.push(':');
        block.push_str(&value);
    }
    block.push('\n');
    Ok((block, names.join(";")))
}

/// The path URI-encoded once more, segment by segment (`%` → `%25`); `/` when empty.
fn canonical_uri(path: &str) -> String {
    if path.is_empty() {
        return "/".to_owned();
    }
    path.split('/')
        .map(|seg| uri_encode(seg, true))
        .collect::<Vec<_>>()
        .join("/")
}

/// The query's parameters decoded, encoded strictly and sorted by name then value.
fn canonical_query(query: &str) -> String {
    let mut pairs: Vec<(String, String)> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (
                uri_encode(&percent_decode(k), true),
                uri_encode(&percent_decode(v), true),
            )
        })
        .collect();
    pairs.sort();
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&")
}

/// AWS URI encoding: every byte but `A-Z a-z 0-9 - _ . ~` (and `/` unless `encode_slash`)
/// as `%XX`, upper-case hex.
pub fn uri_encode(s: &str, encode_slash: bool) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric()
            || matches!(b, b'-' | b'_' | b'.' | b'~')
            || (b == b'/' && !encode_slash)
        {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        }
    }
    out
}

/// `%XX` sequences decoded (invalid ones kept as they are; `+` is not a space).
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| char::from(c).to_digit(16);
        if b[i] == b'%'
            && let (Some(h), Some(l)) = (
                b.get(i + 1).copied().and_then(hex),
                b.get(i + 2).copied().and_then(hex),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The parts of an `http(s)` URL signing needs.
#[derive(Debug, PartialEq, Eq)]
struct Url<'a> {
    /// `host[:port]`, the default port of the scheme left out.
    host: &'a str,
    path: &'a str,
    query: &'a str,
}

impl<'a> Url<'a> {
    fn parse(url: &'a str) -> Result<Url<'a>, SignError> {
        let (rest, default_port) = if let Some(r) = url.strip_prefix("https://") {
            (r, ":443")
        } else if let Some(r) = url.strip_prefix("http://") {
            (r, ":80")
        } else {
            return Err(SignError::Url(
                "the URL must start with http:// or https://",
            ));
        };
        let rest = rest.split('#').next().unwrap_or(rest);
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, tail) = rest.split_at(end);
        if authority.is_empty() || authority.contains('@') {
            return Err(SignError::Url("the URL has no host, or has user info"));
        }
        let host = authority.strip_suffix(default_port).unwrap_or(authority);
        let (path, query) = tail.split_once('?').unwrap_or((tail, ""));
        Ok(Url { host, path, query })
    }
}

/// `YYYYMMDDTHHMMSSZ` of a unix time.
fn amz_date(unix: i64) -> Result<String, SignError> {
    if !(0..=253_402_300_799).contains(&unix) {
        return Err(SignError::Time);
    }
    let (days, secs) = (unix.div_euclid(86_400), unix.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    Ok(format!(
        "{y:04}{m:02}{d:02}T{:02}{:02}{:02}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    ))
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The SigV4 signing key of a secret for one day, region and service.
fn signing_key(secret: &str, date: &str, region: &str, service: &str) -> [u8; 32] {
    let k_date = hmac(format!("AWS4{secret}").as_bytes(), date.as_bytes());
    let k_region = hmac(&k_date, region.as_bytes());
    let k_service = hmac(&k_region, service.as_bytes());
    hmac(&k_service, b"aws4_request")
}

fn hmac(key: &[u8], data: &[u8]) -> [u8; 32] {
    // HMAC takes keys of any length: `new_from_slice` cannot fail for it.
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(key) else {
        return [0; 32];
    };
    mac.update(data);
    mac.finalize().into_bytes().into()
}

fn hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(HEX[usize::from(b >> 4)]));
        s.push(char::from(HEX[usize::from(b & 15)]));
    }
    s
}

#[cfg(test)]
mod tests;
