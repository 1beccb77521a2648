//! Stand-in for the sign-in providers the control plane talks to: an OAuth2 / OpenID Connect
//! provider (authorize page, token endpoint, GitHub-style `/user`, OIDC userinfo, discovery)
//! and the WeChat server's code check. It checks what the real ones check: the registered
//! client and its secret, one-time codes bound to their client and redirect URI, bearer
//! tokens, the WeChat server token.
//!
//! - `PUT /__oauth/client` `{client_id, client_secret, wechat_token?}`: the one client accepted.
//! - `GET /__oauth/authorize?client_id&redirect_uri&state[&login]`: approves at once as `login`
//!   (default `octocat`) and redirects to `redirect_uri?code=…&state=…`.
//! - `POST /__oauth/token`: form or JSON; client credentials in the body or HTTP Basic. With
//!   `grant_type` (OIDC, LinuxDO) errors are 400 and `redirect_uri` must repeat the
//!   authorize's; without it (GitHub) errors are 200 `{error}` as GitHub answers.
//! - `GET /__oauth/user` (GitHub / LinuxDO shape), `GET /__oauth/userinfo` (OIDC shape).
//! - `GET /.well-known/openid-configuration`.
//! - `POST /__oauth/wechat_code` `{openid}` → `{code}`; `GET /api/wechat/user?code=` with the
//!   WeChat token in `Authorization` (the WeChat server's API).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use http::{HeaderMap, Method, StatusCode};
use hyper::Response;
use serde_json::{Value, json};

use crate::{MockBody, SharedStats, json_response, lock};

/// How long an authorization code is good for.
const CODE_TTL: Duration = Duration::from_secs(600);
/// Most codes and tokens kept.
const MAX_ENTRIES: usize = 10_000;

/// The registered client, issued codes and tokens.
#[derive(Debug, Default)]
pub(crate) struct SignInState {
    client: Option<Client>,
    codes: HashMap<String, Grant>,
    tokens: HashMap<String, String>,
    wechat_codes: HashMap<String, String>,
    issued: u64,
}

#[derive(Debug, Clone)]
struct Client {
    id: String,
    secret: String,
    wechat_token: String,
}

#[derive(Debug, Clone)]
struct Grant {
    client_id: String,
    redirect_uri: Option<String>,
    login: String,
    issued: Instant,
}

/// Whether a path belongs to this stand-in.
pub(crate) fn owns(path: &str) -> bool {
    path.starts_with("/__oauth/")
        || path == "/.well-known/openid-configuration"
        || path == "/api/wechat/user"
}

/// Answers a request to one of this stand-in's paths.
pub(crate) fn handle(
    method: &Method,
    path: &str,
    query: Option<&str>,
    headers: &HeaderMap,
    body: &Bytes,
    stats: &SharedStats,
) -> Response<MockBody> {
    let query = parse_pairs(query.unwrap_or(""));
    let mut st = lock(stats);
    let state = &mut st.sign_in;
    match (method.as_str(), path) {
        ("PUT", "/__oauth/client") => register(state, body),
        ("GET", "/__oauth/authorize") => authorize(state, &query),
        ("POST", "/__oauth/token") => token(state, headers, body),
        ("GET", "/__oauth/user") => user(state, headers, false),
        ("GET", "/__oauth/userinfo") => user(state, headers, true),
        ("GET", "/.well-known/openid-configuration") => discovery(headers),
        ("POST", "/__oauth/wechat_code") => wechat_code(state, body),
        ("GET", "/api/wechat/user") => wechat_user(state, headers, &query),
        _ => json_response(StatusCode::NOT_FOUND, &json!({"error": "not_found"})),
    }
}

fn register(state: &mut SignInState, body: &Bytes) -> Response<MockBody> {
    let v: Value = serde_json::from_slice(body).unwrap_or_default();
    let field = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let (id, secret) = (field("client_id"), field("client_secret"));
    if id.is_empty() || secret.is_empty() {
        return json_response(
            StatusCode::BAD_REQUEST,
            &json!({"error": "client_id and client_secret are required"}),
        );
    }
    state.client = Some(Client {
        id,
        secret,
        wechat_token: field("wechat_token"),
    });
    json_response(StatusCode::OK, &json!({"ok": true}))
}

fn authorize(state: &mut SignInState, query: &HashMap<String, String>) -> Response<MockBody> {
    let Some(client) = &state.client else {
        return json_response(StatusCode::BAD_REQUEST, &json!({"error": "no client"}));
    };
    if query.get("client_id") != Some(&client.id) {
        return json_response(
            StatusCode::BAD_REQUEST,
            &json!({"error": "invalid_client", "error_description": "unknown client_id"}),
        );
    }
    if query
        .get("response_type")
        .is_some_and(|t| t.as_str() != "code")
    {
        return json_response(
            StatusCode::BAD_REQUEST,
            &json!({"error": "unsupported_response_type"}),
        );
    }
    let Some(redirect) = query.get("redirect_uri").filter(|r| !r.is_empty()) else {
        return json_response(
            StatusCode::BAD_REQUEST,
            &json!({"error": "invalid_request", "error_description": "redirect_uri is required by this stand-in"}),
        );
    };
    state.issued += 1;
    let code = format!("mock-code-{}-{}", state.issued, nonce(state.issued));
    if state.codes.len() >= MAX_ENTRIES {
        state.codes.retain(|_, g| g.issued.elapsed() < CODE_TTL);
    }
    state.codes.insert(
        code.clone(),
        Grant {
            client_id: client.id.clone(),
            redirect_uri: Some(redirect.clone()),
            login: query
                .get("login")
                .filter(|l| !l.is_empty())
                .cloned()
                .unwrap_or_else(|| "octocat".to_owned()),
            issued: Instant::now(),
        },
    );
    let sep = if redirect.contains('?') { '&' } else { '?' };
    let location = format!(
        "{redirect}{sep}code={}&state={}",
        encode(&code),
        encode(query.get("state").map_or("", String::as_str))
    );
    let mut resp = json_response(StatusCode::FOUND, &json!({}));
    if let Ok(v) = http::HeaderValue::from_str(&location) {
        resp.headers_mut().insert(http::header::LOCATION, v);
    }
    resp
}

fn token(state: &mut SignInState, headers: &HeaderMap, body: &Bytes) -> Response<MockBody> {
    let is_json = headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|c| c.starts_with("application/json"));
    let params: HashMap<String, String> = if is_json {
        serde_json::from_slice::<HashMap<String, Value>>(body)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(k, v)| v.as_str().map(|s| (k, s.to_owned())))
            .collect()
    } else {
        parse_pairs(std::str::from_utf8(body).unwrap_or(""))
    };
    let oidc_style = params.contains_key("grant_type");
    let refuse = |error: &str, description: &str| {
        let status = if oidc_style {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::OK
        };
        json_response(
            status,
            &json!({"error": error, "error_description": description}),
        )
    };
    if oidc_style && params.get("grant_type").map(String::as_str) != Some("authorization_code") {
        return refuse("unsupported_grant_type", "only authorization_code");
    }
    let (id, secret) = basic_credentials(headers).unwrap_or_else(|| {
        (
            params.get("client_id").cloned().unwrap_or_default(),
            params.get("client_secret").cloned().unwrap_or_default(),
        )
    });
    let Some(client) = &state.client else {
        return refuse("invalid_client", "no client registered");
    };
    if id != client.id || secret != client.secret {
        return refuse(
            "incorrect_client_credentials",
            "The client_id and/or client_secret passed are incorrect.",
        );
    }
    let code = params.get("code").cloned().unwrap_or_default();
    // A code works once, whatever happens next.
    let Some(grant) = state.codes.remove(&code) else {
        return refuse(
            "bad_verification_code",
            "The code passed is incorrect or expired.",
        );
    };
    if grant.client_id != client.id || grant.issued.elapsed() > CODE_TTL {
        return refuse(
            "bad_verification_code",
            "The code passed is incorrect or expired.",
        );
    }
    let sent_redirect = params.get("redirect_uri");
    let redirect_ok = match (sent_redirect, &grant.redirect_uri) {
        (Some(sent), Some(given)) => sent == given,
        (None, _) => !oidc_style,
        (Some(_), None) => true,
    };
    if !redirect_ok {
        return refuse(
            "redirect_uri_mismatch",
            "The redirect_uri does not match the one of the authorization request.",
        );
    }
    state.issued += 1;
    let access = format!("mock-access-{}-{}", state.issued, nonce(state.issued));
    if state.tokens.len() >= MAX_ENTRIES {
        state.tokens.clear();
    }
    state.tokens.insert(access.clone(), grant.login);
    json_response(
        StatusCode::OK,
        &json!({"access_token": access, "token_type": "bearer", "scope": "openid profile email", "expires_in": 3600}),
    )
}

fn user(state: &SignInState, headers: &HeaderMap, oidc: bool) -> Response<MockBody> {
    let token = headers
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("token "))
        })
        .unwrap_or("");
    let Some(login) = state.tokens.get(token) else {
        return json_response(
            StatusCode::UNAUTHORIZED,
            &json!({"message": "Bad credentials"}),
        );
    };
    let email = format!("{login}@users.example.com");
    let name = format!("{login} (mock)");
    if oidc {
        return json_response(
            StatusCode::OK,
            &json!({"sub": format!("sub-{login}"), "preferred_username": login, "name": name, "email": email, "email_verified": true}),
        );
    }
    json_response(
        StatusCode::OK,
        &json!({"id": numeric_id(login), "login": login, "username": login, "name": name, "email": email, "active": true, "silenced": false, "trust_level": 1}),
    )
}

fn discovery(headers: &HeaderMap) -> Response<MockBody> {
    let host = headers
        .get(http::header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("127.0.0.1");
    let base = format!("http://{host}");
    json_response(
        StatusCode::OK,
        &json!({
            "issuer": base,
            "authorization_endpoint": format!("{base}/__oauth/authorize"),
            "token_endpoint": format!("{base}/__oauth/token"),
            "userinfo_endpoint": format!("{base}/__oauth/userinfo"),
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "scopes_supported": ["openid", "profile", "email"],
            "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic"],
        }),
    )
}

fn wechat_code(state: &mut SignInState, body: &Bytes) -> Response<MockBody> {
    let v: Value = serde_json::from_slice(body).unwrap_or_default();
    let Some(openid) = v
        .get("openid")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
    else {
        return json_response(
            StatusCode::BAD_REQUEST,
            &json!({"error": "openid required"}),
        );
    };
    state.issued += 1;
    let code = format!("{:06}", nonce(state.issued) % 1_000_000);
    if state.wechat_codes.len() >= MAX_ENTRIES {
        state.wechat_codes.clear();
    }
    state.wechat_codes.insert(code.clone(), openid.to_owned());
    json_response(StatusCode::OK, &json!({"code": code}))
}

fn wechat_user(
    state: &mut SignInState,
    headers: &HeaderMap,
    query: &HashMap<String, String>,
) -> Response<MockBody> {
    let sent = headers
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let expected = state
        .client
        .as_ref()
        .map_or("", |c| c.wechat_token.as_str());
    if expected.is_empty() || sent != expected {
        return json_response(
            StatusCode::OK,
            &json!({"success": false, "message": "无权进行此操作，未登录或 token 无效"}),
        );
    }
    let code = query.get("code").map_or("", String::as_str);
    match state.wechat_codes.remove(code) {
        Some(openid) => json_response(
            StatusCode::OK,
            &json!({"success": true, "message": "", "data": openid}),
        ),
        None => json_response(
            StatusCode::OK,
            &json!({"success": false, "message": "无效或过期的验证码"}),
        ),
    }
}

/// `client_id:client_secret` from `Authorization: Basic …`.
fn basic_credentials(headers: &HeaderMap) -> Option<(String, String)> {
    let raw = headers
        .get(http::header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Basic ")?;
    let decoded = String::from_utf8(STANDARD.decode(raw.trim()).ok()?).ok()?;
    let (id, secret) = decoded.split_once(':')?;
    Some((decode(id), decode(secret)))
}

/// A stable numeric id for a login (GitHub ids are numbers).
fn numeric_id(login: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in login.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h % 100_000_000 + 1
}

/// Unpredictable enough for a stand-in: the clock's nanoseconds mixed with a counter.
fn nonce(n: u64) -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos() as u64);
    numeric_id(&format!("{nanos}-{n}"))
}

/// `a=b&c=d` (form or query) with percent- and plus-decoding.
fn parse_pairs(raw: &str) -> HashMap<String, String> {
    raw.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect()
}

fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], escaped) {
            (_, Some(b)) => {
                out.push(b);
                i += 3;
                continue;
            }
            (b'+', None) => out.push(b' '),
            (b, None) => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_values_decode() {
        let p = parse_pairs("a=1&redirect_uri=http%3A%2F%2Fx%2Fy&n=a+b&bad=%zz&tail=%4");
        assert_eq!(p["redirect_uri"], "http://x/y");
        assert_eq!(p["n"], "a b");
        assert_eq!(p["bad"], "%zz");
        assert_eq!(p["tail"], "%4");
        assert_eq!(decode(&encode("a b/ü")), "a b/ü");
    }
}
