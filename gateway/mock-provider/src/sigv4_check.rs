//! SigV4 verification as AWS does it for Bedrock Runtime, written independently of the
//! gateway's signer: the `Authorization` header parsed, the access key looked up, the
//! `x-amz-date` checked against the clock (5 minutes either way), and the signature
//! recomputed over the request exactly as received, path URI-encoded once more for the
//! canonical URI (`%3A` → `%253A`), as every AWS service but S3 does.
//!
//! The mock knows one credential: access key [`MOCK_ACCESS_KEY`], secret [`MOCK_SECRET`]
//! (any region; service `bedrock`; a session token, when sent, is only required to be
//! signed).

use hmac::{Hmac, KeyInit, Mac};
use http::HeaderMap;
use sha2::{Digest, Sha256};

/// The mock's access key id.
pub const MOCK_ACCESS_KEY: &str = "AKIDMOCKBEDROCK";
/// The secret of [`MOCK_ACCESS_KEY`].
pub const MOCK_SECRET: &str = "mock-bedrock-secret";
/// How far `x-amz-date` may be from the mock's clock.
const MAX_SKEW_SECS: i64 = 300;

/// Why a signed request is refused: AWS's exception name and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub kind: &'static str,
    pub message: String,
}

fn refuse(kind: &'static str, message: impl Into<String>) -> Refusal {
    Refusal {
        kind,
        message: message.into(),
    }
}

fn incomplete(what: &str) -> Refusal {
    refuse(
        "IncompleteSignatureException",
        format!("Authorization header requires '{what}' parameter."),
    )
}

/// The request as received.
pub(crate) struct Received<'a> {
    pub method: &'a str,
    /// The path as sent (percent-encoding untouched), scenario prefix included.
    pub raw_path: &'a str,
    pub query: Option<&'a str>,
    pub headers: &'a HeaderMap,
    /// The URI's authority (HTTP/2 sends no `Host` header).
    pub authority: Option<&'a str>,
    pub body: &'a [u8],
}

/// The parts of `AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…`.
#[derive(Debug, PartialEq, Eq)]
struct AuthHeader<'a> {
    access_key: &'a str,
    date: &'a str,
    region: &'a str,
    service: &'a str,
    signed_headers: Vec<&'a str>,
    signature: &'a str,
}

fn parse_auth(value: &str) -> Result<AuthHeader<'_>, Refusal> {
    let Some(rest) = value.strip_prefix("AWS4-HMAC-SHA256 ") else {
        return Err(refuse(
            "IncompleteSignatureException",
            "Authorization header must use the AWS4-HMAC-SHA256 algorithm.",
        ));
    };
    let (mut credential, mut signed, mut signature) = (None, None, None);
    for item in rest.split(',').map(str::trim) {
        match item.split_once('=') {
            Some(("Credential", v)) => credential = Some(v),
            Some(("SignedHeaders", v)) => signed = Some(v),
            Some(("Signature", v)) => signature = Some(v),
            _ => {}
        }
    }
    let credential = credential.ok_or_else(|| incomplete("Credential"))?;
    let signed = signed.ok_or_else(|| incomplete("SignedHeaders"))?;
    let signature = signature.ok_or_else(|| incomplete("Signature"))?;
    let parts: Vec<&str> = credential.split('/').collect();
    let [access_key, date, region, service, "aws4_request"] = parts.as_slice() else {
        return Err(refuse(
            "IncompleteSignatureException",
            format!("Credential should be scoped to a valid region and service: {credential}"),
        ));
    };
    Ok(AuthHeader {
        access_key,
        date,
        region,
        service,
        signed_headers: signed.split(';').collect(),
        signature,
    })
}

/// Verifies a SigV4-signed request at `now` (unix seconds); returns the access key id.
pub(crate) fn verify(req: &Received<'_>, authorization: &str, now: i64) -> Result<String, Refusal> {
    let auth = parse_auth(authorization)?;
    if auth.access_key != MOCK_ACCESS_KEY {
        return Err(refuse(
            "UnrecognizedClientException",
            "The security token included in the request is invalid.",
        ));
    }
    if auth.service != "bedrock" {
        return Err(refuse(
            "InvalidSignatureException",
            format!(
                "Credential should be scoped to correct service: 'bedrock'. (got {})",
                auth.service
            ),
        ));
    }
    let header = |name: &str| -> Option<String> {
        let values: Vec<&str> = req
            .headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        if values.is_empty() {
            return if name == "host" {
                req.authority.map(str::to_owned)
            } else {
                None
            };
        }
        Some(
            values
                .iter()
                .map(|v| v.split_whitespace().collect::<Vec<_>>().join(" "))
                .collect::<Vec<_>>()
                .join(","),
        )
    };
    for required in ["host", "x-amz-date"] {
        if !auth.signed_headers.contains(&required) {
            return Err(refuse(
                "InvalidSignatureException",
                format!("'{required}' must be a 'SignedHeader' in the AWS Authorization."),
            ));
        }
    }
    if req.headers.contains_key("x-amz-security-token")
        && !auth.signed_headers.contains(&"x-amz-security-token")
    {
        return Err(refuse(
            "InvalidSignatureException",
            "'x-amz-security-token' must be a 'SignedHeader' when sent.",
        ));
    }
    let amz_date = header("x-amz-date").unwrap_or_default();
    let Some(signed_at) = parse_amz_date(&amz_date) else {
        return Err(refuse(
            "IncompleteSignatureException",
            format!("Date must be in ISO-8601 'basic format'. Got '{amz_date}'."),
        ));
    };
    if (now - signed_at).abs() > MAX_SKEW_SECS {
        return Err(refuse(
            "InvalidSignatureException",
            format!(
                "Signature expired: {amz_date} is now earlier or later than the allowed 5 minutes."
            ),
        ));
    }
    if !amz_date.starts_with(auth.date) || auth.date.len() != 8 {
        return Err(refuse(
            "InvalidSignatureException",
            "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP.",
        ));
    }
    let mut canonical_headers = String::new();
    for name in &auth.signed_headers {
        let value = header(name).unwrap_or_default();
        canonical_headers.push_str(&format!("{name}:{value}\n"));
    }
    let canonical_request = format!(
        "{}\n{}\n{}\n{}\n{}\n{}",
        req.method,
        canonical_uri(req.raw_path),
        canonical_query(req.query.unwrap_or("")),
        canonical_headers,
        auth.signed_headers.join(";"),
        hex(&Sha256::digest(req.body)),
    );
    let scope = format!(
        "{}/{}/{}/aws4_request",
        auth.date, auth.region, auth.service
    );
    let string_to_sign = format!(
        "AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{}",
        hex(&Sha256::digest(canonical_request.as_bytes()))
    );
    let mut key = hmac(
        format!("AWS4{MOCK_SECRET}").as_bytes(),
        auth.date.as_bytes(),
    );
    for part in [auth.region, auth.service, "aws4_request"] {
        key = hmac(&key, part.as_bytes());
    }
    let expected = hex(&hmac(&key, string_to_sign.as_bytes()));
    if expected != auth.signature {
        return Err(refuse(
            "InvalidSignatureException",
            "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.",
        ));
    }
    Ok(auth.access_key.to_owned())
}

/// Each path segment encoded once more (`%` → `%25`).
fn canonical_uri(path: &str) -> String {
    if path.is_empty() {
        return "/".to_owned();
    }
    path.split('/').map(encode).collect::<Vec<_>>().join("/")
}

fn canonical_query(query: &str) -> String {
    let mut pairs: Vec<String> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            format!("{}={}", encode(&decode(k)), encode(&decode(v)))
        })
        .collect();
    pairs.sort();
    pairs.join("&")
}

fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && let Some(v) = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Unix seconds of `YYYYMMDDTHHMMSSZ`.
fn parse_amz_date(s: &str) -> Option<i64> {
    if s.len() != 16 || s.as_bytes()[8] != b'T' || !s.ends_with('Z') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (y, m, d) = (num(0..4)?, num(4..6)?, num(6..8)?);
    let (hh, mm, ss) = (num(9..11)?, num(11..13)?, num(13..15)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || hh > 23 || mm > 59 || ss > 60 {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hh * 3600 + mm * 60 + ss)
}

fn hmac(key: &[u8], data: &[u8]) -> Vec<u8> {
    match Hmac::<Sha256>::new_from_slice(key) {
        Ok(mut mac) => {
            mac.update(data);
            mac.finalize().into_bytes().to_vec()
        }
        Err(_) => Vec::new(),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A request signed by botocore 1.44.8 (`SigV4Auth(Credentials(MOCK_ACCESS_KEY,
    /// MOCK_SECRET, "session-token-xyz"), "bedrock", "eu-west-1")`, time patched to
    /// 2024-11-05T12:34:56Z), as the gateway would send it to the mock.
    const BODY: &[u8] = br#"{"anthropic_version":"bedrock-2023-05-31","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}"#;
    const PATH: &str =
        "/s/tag=b/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse-stream";
    const AUTH: &str = "AWS4-HMAC-SHA256 Credential=AKIDMOCKBEDROCK/20241105/eu-west-1/bedrock/aws4_request, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature=e9002be9a9879c68cfa1fe98ef8fff7e2cd2ebb974946096e43991500f10c3e5";
    const NOW: i64 = 1_730_810_096;

    fn headers() -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in [
            ("host", "127.0.0.1:4000"),
            ("content-type", "application/json"),
            ("x-amz-date", "20241105T123456Z"),
            ("x-amz-security-token", "session-token-xyz"),
            (
                "x-amz-content-sha256",
                "616eb59224eb795b641b4c541ad9ee8b939a1e8798f73b54fce66bb79ddbb992",
            ),
        ] {
            h.insert(k, v.parse().unwrap());
        }
        h
    }

    fn check(
        path: &str,
        headers: &HeaderMap,
        body: &[u8],
        auth: &str,
        now: i64,
    ) -> Result<String, Refusal> {
        verify(
            &Received {
                method: "POST",
                raw_path: path,
                query: None,
                headers,
                authority: None,
                body,
            },
            auth,
            now,
        )
    }

    #[test]
    fn accepts_the_botocore_signed_request() {
        assert_eq!(
            check(PATH, &headers(), BODY, AUTH, NOW).unwrap(),
            MOCK_ACCESS_KEY
        );
        assert!(check(PATH, &headers(), BODY, AUTH, NOW + 299).is_ok());
    }

    #[test]
    fn refuses_tampering_skew_and_strangers() {
        let kind = |r: Result<String, Refusal>| r.unwrap_err().kind;
        assert_eq!(
            kind(check(PATH, &headers(), b"{}", AUTH, NOW)),
            "InvalidSignatureException"
        );
        // The path signed once-encoded, not as sent: refused.
        let decoded = PATH.replace("%3A", ":");
        assert_eq!(
            kind(check(&decoded, &headers(), BODY, AUTH, NOW)),
            "InvalidSignatureException"
        );
        let mut h = headers();
        h.insert("content-type", "text/plain".parse().unwrap());
        assert_eq!(
            kind(check(PATH, &h, BODY, AUTH, NOW)),
            "InvalidSignatureException"
        );
        assert!(
            check(PATH, &headers(), BODY, AUTH, NOW + 301)
                .unwrap_err()
                .message
                .contains("expired")
        );
        let stranger = AUTH.replace("AKIDMOCKBEDROCK", "AKIDSOMEONEELSE");
        assert_eq!(
            kind(check(PATH, &headers(), BODY, &stranger, NOW)),
            "UnrecognizedClientException"
        );
        assert_eq!(
            kind(check(
                PATH,
                &headers(),
                BODY,
                "AWS4-HMAC-SHA256 Credential=x",
                NOW
            )),
            "IncompleteSignatureException"
        );
        assert_eq!(
            kind(check(PATH, &headers(), BODY, "Basic abc", NOW)),
            "IncompleteSignatureException"
        );
    }

    #[test]
    fn pieces() {
        assert_eq!(parse_amz_date("20241105T123456Z"), Some(NOW));
        assert_eq!(parse_amz_date("19700101T000000Z"), Some(0));
        assert_eq!(parse_amz_date("2024-11-05T12:34:56Z"), None);
        assert_eq!(
            canonical_uri("/model/a%3A0/invoke"),
            "/model/a%253A0/invoke"
        );
        assert_eq!(canonical_query("b=1&a=x%20y"), "a=x%20y&b=1");
    }
}
