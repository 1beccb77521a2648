//! SigV4 against AWS's published example vectors and signatures botocore computed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

const AKID: &str = "AKIDEXAMPLE";
const SECRET: &str = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
/// 2024-11-05T12:34:56Z.
const T: i64 = 1_730_810_096;
const BODY: &[u8] = br#"{"anthropic_version":"bedrock-2023-05-31","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}"#;

fn header<'a>(h: &'a [(&'static str, String)], name: &str) -> &'a str {
    h.iter()
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.as_str())
        .unwrap_or_else(|| panic!("no {name} in {h:?}"))
}

#[test]
fn derives_the_signing_key_of_the_aws_documentation_example() {
    // "Examples of how to derive a signing key for Signature Version 4" (AWS General
    // Reference): secret above, 20120215, us-east-1, iam.
    assert_eq!(
        hex(&signing_key(SECRET, "20120215", "us-east-1", "iam")),
        "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d"
    );
}

#[test]
fn signs_the_get_vanilla_vector_of_the_aws_test_suite() {
    // `get-vanilla` of the AWS SigV4 test suite (host and x-amz-date signed only); botocore
    // 1.44.8 gives the same signature.
    let creds = Credentials::new(AKID, SECRET, None);
    let input = SigningInput {
        method: "GET",
        url: "https://example.amazonaws.com/",
        headers: &[],
        body: b"",
        credentials: &creds,
        region: "us-east-1",
        service: "service",
        unix_time: 1_440_938_160,
    };
    let url = Url::parse(input.url).unwrap();
    let amz_date = amz_date(input.unix_time).unwrap();
    assert_eq!(amz_date, "20150830T123600Z");
    let mut headers = vec![
        ("host".to_owned(), "example.amazonaws.com".to_owned()),
        ("x-amz-date".to_owned(), amz_date.clone()),
    ];
    let empty_hash = hex(&Sha256::digest(b""));
    let auth = authorization(&input, &url, &mut headers, &amz_date, &empty_hash).unwrap();
    assert_eq!(
        auth,
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, \
         SignedHeaders=host;x-amz-date, \
         Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
    );
}

#[test]
fn signs_a_bedrock_invoke_as_botocore_does() {
    // Expected values from botocore 1.44.8: `SigV4Auth(Credentials(AKID, SECRET), "bedrock",
    // "us-east-1").add_auth(req)` on `AWSRequest("POST", <url below>, data=BODY,
    // headers={"content-type": "application/json", "X-Amz-Content-SHA256": sha256(BODY)})`
    // with `botocore.auth.get_current_datetime` patched to 2024-11-05T12:34:56.
    let creds = Credentials::new(AKID, SECRET, None);
    let h = sign(&SigningInput {
        method: "POST",
        url: "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-5-sonnet-20241022-v2%3A0/invoke",
        headers: &[("Content-Type", "application/json")],
        body: BODY,
        credentials: &creds,
        region: "us-east-1",
        service: "bedrock",
        unix_time: T,
    })
    .unwrap();
    assert_eq!(header(&h, "x-amz-date"), "20241105T123456Z");
    assert_eq!(
        header(&h, "x-amz-content-sha256"),
        "616eb59224eb795b641b4c541ad9ee8b939a1e8798f73b54fce66bb79ddbb992"
    );
    assert_eq!(
        header(&h, "authorization"),
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20241105/us-east-1/bedrock/aws4_request, \
         SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date, \
         Signature=b892f7887960e7ee7dfed03cd20faf79c63fed5374760000e9c93e7640d9d10d"
    );
    assert!(h.iter().all(|(k, _)| *k != "x-amz-security-token"));
}

#[test]
fn signs_with_a_session_token_and_a_port_as_botocore_does() {
    // botocore 1.44.8 as above, `Credentials("AKIDMOCKBEDROCK", "mock-bedrock-secret",
    // "session-token-xyz")`, region eu-west-1, the mock's scenario prefix and a port.
    let creds = Credentials::new(
        "AKIDMOCKBEDROCK",
        "mock-bedrock-secret",
        Some("session-token-xyz"),
    );
    let h = sign(&SigningInput {
        method: "POST",
        url: "http://127.0.0.1:4000/s/tag=b/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse-stream",
        headers: &[("content-type", "application/json")],
        body: BODY,
        credentials: &creds,
        region: "eu-west-1",
        service: "bedrock",
        unix_time: T,
    })
    .unwrap();
    assert_eq!(header(&h, "x-amz-security-token"), "session-token-xyz");
    assert_eq!(
        header(&h, "authorization"),
        "AWS4-HMAC-SHA256 Credential=AKIDMOCKBEDROCK/20241105/eu-west-1/bedrock/aws4_request, \
         SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token, \
         Signature=e9002be9a9879c68cfa1fe98ef8fff7e2cd2ebb974946096e43991500f10c3e5"
    );
}

#[test]
fn the_signature_changes_with_the_body_the_path_and_the_time() {
    let creds = Credentials::new(AKID, SECRET, None);
    let base = SigningInput {
        method: "POST",
        url: "https://h.example/model/m%3A0/invoke",
        headers: &[],
        body: b"{}",
        credentials: &creds,
        region: "us-east-1",
        service: "bedrock",
        unix_time: T,
    };
    let auth = |i: &SigningInput<'_>| header(&sign(i).unwrap(), "authorization").to_owned();
    let a = auth(&base);
    assert_ne!(
        a,
        auth(&SigningInput {
            body: b"{ }",
            ..base
        })
    );
    assert_ne!(
        a,
        auth(&SigningInput {
            url: "https://h.example/model/m:0/invoke",
            ..base
        })
    );
    assert_ne!(
        a,
        auth(&SigningInput {
            unix_time: T + 1,
            ..base
        })
    );
    assert_eq!(a, auth(&base));
}

#[test]
fn canonical_pieces() {
    assert_eq!(
        canonical_uri("/model/anthropic.claude-3-5-sonnet-20241022-v2%3A0/invoke"),
        "/model/anthropic.claude-3-5-sonnet-20241022-v2%253A0/invoke"
    );
    assert_eq!(canonical_uri(""), "/");
    assert_eq!(canonical_query("b=2&a=%7E%20x&a=1"), "a=1&a=~%20x&b=2");
    assert_eq!(uri_encode("arn:aws/x y~", true), "arn%3Aaws%2Fx%20y~");
    assert_eq!(uri_encode("a/b", false), "a/b");
    let mut h = vec![
        ("x-b".to_owned(), "  two   words ".to_owned()),
        ("a".to_owned(), "1".to_owned()),
        ("x-b".to_owned(), "again".to_owned()),
    ];
    assert_eq!(
        canonical_headers(&mut h).unwrap(),
        ("a:1\nx-b:two words,again\n".to_owned(), "a;x-b".to_owned())
    );
    let mut bad = vec![("a".to_owned(), "line\nbreak".to_owned())];
    assert!(canonical_headers(&mut bad).is_err());
    assert_eq!(amz_date(0).unwrap(), "19700101T000000Z");
    assert_eq!(amz_date(951_782_400).unwrap(), "20000229T000000Z");
    assert!(amz_date(-1).is_err());
    assert_eq!(
        Url::parse("https://h:443/p?q=1#f").unwrap(),
        Url {
            host: "h",
            path: "/p",
            query: "q=1"
        }
    );
    assert_eq!(Url::parse("http://h:8080").unwrap().host, "h:8080");
    assert!(Url::parse("ftp://h/").is_err());
    assert!(Url::parse("https://u@h/").is_err());
}

#[test]
fn debug_hides_the_secrets() {
    let c = Credentials::new("AKIAIOSFODNN7EXAMPLE", "very-secret", Some("token-secret"));
    let d = format!("{c:?}");
    assert!(d.contains("AKIA") && !d.contains("IOSFODNN7"), "{d}");
    assert!(
        !d.contains("very-secret") && !d.contains("token-secret"),
        "{d}"
    );
}
