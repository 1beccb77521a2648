//! What a usage record from a gateway must look like before it may touch a balance: its type,
//! amounts, times, request id and strings, each bounded. (Who owns the token is checked
//! against the store.)

/// Log type of a charged request.
pub const CONSUME: i64 = 2;
/// Log type of a failed request.
pub const ERROR: i64 = 6;

/// Largest quota one request may charge (2 000 000 USD at 500 000 units a dollar).
pub const MAX_QUOTA: i64 = 1_000_000_000_000;
/// Largest token count one request may report.
pub const MAX_TOKENS: i64 = 1_000_000_000;
/// Longest request (seconds).
pub const MAX_USE_TIME: i64 = 7 * 24 * 3600;
/// Longest request id (bytes).
pub const MAX_REQUEST_ID: usize = 128;
/// Longest short text field (names, group, model, ip; bytes).
pub const MAX_NAME: usize = 512;
/// Longest long text field (error content, `other` JSON; bytes).
pub const MAX_TEXT: usize = 64 * 1024;
/// How far in the future a record's time may lie (clock skew between machines).
pub const MAX_FUTURE_SECONDS: i64 = 24 * 3600;

/// Why a record is refused: a stable code (metric label) and a message for admins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    pub code: &'static str,
    pub message: String,
}

impl Rejection {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Rejection {
            code,
            message: message.into(),
        }
    }
}

/// The fields of a record the rules look at.
pub struct RecordView<'a> {
    pub request_id: &'a str,
    pub kind: i64,
    pub created_at: i64,
    pub user_id: i64,
    pub token_id: i64,
    pub channel_id: i64,
    pub quota: i64,
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
    pub use_time: i64,
    /// (field name, value, longest allowed) of every text field.
    pub texts: [(&'static str, &'a str, usize); 8],
}

/// The token name of console playground records (which have no token).
pub const PLAYGROUND_TOKEN: &str = "playground";

/// Checks a record's shape; `now` is epoch seconds.
pub fn check(r: &RecordView<'_>, now: i64) -> Result<(), Rejection> {
    if r.request_id.is_empty() {
        return Err(Rejection::new("bad_request_id", "empty request id"));
    }
    if r.request_id.len() > MAX_REQUEST_ID || !r.request_id.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(Rejection::new(
            "bad_request_id",
            format!("request id must be 1 to {MAX_REQUEST_ID} printable ASCII characters"),
        ));
    }
    if r.kind != CONSUME && r.kind != ERROR {
        return Err(Rejection::new(
            "bad_type",
            format!("type {} is neither consume (2) nor error (6)", r.kind),
        ));
    }
    for (name, value, max) in [
        ("quota", r.quota, MAX_QUOTA),
        ("prompt_tokens", r.prompt_tokens, MAX_TOKENS),
        ("completion_tokens", r.completion_tokens, MAX_TOKENS),
        ("use_time", r.use_time, MAX_USE_TIME),
    ] {
        if !(0..=max).contains(&value) {
            return Err(Rejection::new(
                "bad_amount",
                format!("{name} {value} is outside 0..={max}"),
            ));
        }
    }
    if r.kind == ERROR && r.quota != 0 {
        return Err(Rejection::new(
            "bad_amount",
            format!("an error record charges no quota (got {})", r.quota),
        ));
    }
    if r.created_at <= 0 || r.created_at > now + MAX_FUTURE_SECONDS {
        return Err(Rejection::new(
            "bad_time",
            format!("created_at {} is not a plausible time", r.created_at),
        ));
    }
    if r.user_id < 0 || r.token_id < 0 || r.channel_id < 0 {
        return Err(Rejection::new("bad_id", "negative id"));
    }
    // The console playground spends a user's wallet with no token: token 0, named so.
    let playground = r.user_id > 0 && r.token_id == 0 && r.texts[1].1 == PLAYGROUND_TOKEN;
    if r.kind == CONSUME && (r.user_id == 0 || (r.token_id == 0 && !playground)) {
        return Err(Rejection::new(
            "unknown_user",
            "a consume record names no user or token",
        ));
    }
    if (r.user_id == 0) != (r.token_id == 0) && !playground {
        return Err(Rejection::new(
            "foreign_token",
            "a record names a user without a token or a token without a user",
        ));
    }
    for (name, value, max) in r.texts {
        if value.len() > max {
            return Err(Rejection::new(
                "bad_string",
                format!("{name} is longer than {max} bytes"),
            ));
        }
        if value.contains('\0') {
            return Err(Rejection::new(
                "bad_string",
                format!("{name} contains a NUL character"),
            ));
        }
    }
    Ok(())
}

/// Platforms whose tasks gateways report.
pub const TASK_PLATFORMS: [&str; 2] = ["mj", "suno"];

/// Checks the task a consume record says it submitted: a known platform, a provider id that
/// names one task (1 to 128 printable ASCII characters), texts within their limits.
pub fn check_task(
    kind: i64,
    channel_id: i64,
    platform: &str,
    task_id: &str,
    texts: [(&'static str, &str, usize); 4],
) -> Result<(), Rejection> {
    if kind != CONSUME || channel_id <= 0 {
        return Err(Rejection::new(
            "bad_task",
            "only a consume record through a channel submits a task",
        ));
    }
    if !TASK_PLATFORMS.contains(&platform) {
        return Err(Rejection::new(
            "bad_task",
            format!("unknown task platform {platform:?}"),
        ));
    }
    if task_id.is_empty()
        || task_id.len() > MAX_REQUEST_ID
        || !task_id.bytes().all(|b| b.is_ascii_graphic())
    {
        return Err(Rejection::new(
            "bad_task",
            format!("a task id is 1 to {MAX_REQUEST_ID} printable ASCII characters"),
        ));
    }
    for (name, value, max) in texts {
        if value.len() > max || value.contains('\0') {
            return Err(Rejection::new(
                "bad_task",
                format!("task {name} is longer than {max} bytes or contains NUL"),
            ));
        }
    }
    Ok(())
}

/// `text` made storable anywhere (NUL replaced) and cut to at most `max` bytes on a
/// character boundary.
pub fn storable(text: &str, max: usize) -> String {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].replace('\0', "\u{FFFD}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view<'a>(texts: [(&'static str, &'a str, usize); 8]) -> RecordView<'a> {
        RecordView {
            request_id: "req-1",
            kind: CONSUME,
            created_at: 1_700_000_000,
            user_id: 1,
            token_id: 2,
            channel_id: 3,
            quota: 100,
            prompt_tokens: 10,
            completion_tokens: 5,
            use_time: 1,
            texts,
        }
    }

    const OK_TEXTS: [(&str, &str, usize); 8] = [("model_name", "gpt-4o", MAX_NAME); 8];

    #[test]
    fn valid_records_pass_and_each_rule_bites() {
        let now = 1_700_000_100;
        assert_eq!(check(&view(OK_TEXTS), now), Ok(()));
        let code = |f: &dyn Fn(&mut RecordView)| {
            let mut v = view(OK_TEXTS);
            f(&mut v);
            check(&v, now).err().map(|r| r.code)
        };
        assert_eq!(code(&|v| v.quota = -500_000_000), Some("bad_amount"));
        assert_eq!(code(&|v| v.quota = MAX_QUOTA + 1), Some("bad_amount"));
        assert_eq!(code(&|v| v.prompt_tokens = -1), Some("bad_amount"));
        assert_eq!(code(&|v| v.use_time = -3), Some("bad_amount"));
        assert_eq!(code(&|v| v.kind = 1), Some("bad_type"));
        assert_eq!(code(&|v| v.request_id = ""), Some("bad_request_id"));
        assert_eq!(code(&|v| v.request_id = "a b"), Some("bad_request_id"));
        assert_eq!(code(&|v| v.created_at = now + 3 * 86_400), Some("bad_time"));
        assert_eq!(code(&|v| v.user_id = 0), Some("unknown_user"));
        assert_eq!(
            code(&|v| {
                v.kind = ERROR;
                v.quota = 0;
                v.token_id = 0;
            }),
            Some("foreign_token")
        );
        assert_eq!(
            code(&|v| {
                v.kind = ERROR;
                v.quota = 5;
            }),
            Some("bad_amount")
        );
        let nul = [("model_name", "gpt\u{0}4o", MAX_NAME); 8];
        assert_eq!(
            check(&view(nul), now).err().map(|r| r.code),
            Some("bad_string")
        );
        let long = "x".repeat(MAX_NAME + 1);
        let texts = [("model_name", long.as_str(), MAX_NAME); 8];
        assert_eq!(
            check(&view(texts), now).err().map(|r| r.code),
            Some("bad_string")
        );
        // A playground call: the user's, with no token.
        let mut playground = view(OK_TEXTS);
        playground.token_id = 0;
        playground.texts[1] = ("token_name", PLAYGROUND_TOKEN, MAX_NAME);
        assert_eq!(check(&playground, now), Ok(()));
        // An anonymous error (no caller) is a valid record.
        let mut anonymous = view(OK_TEXTS);
        (
            anonymous.kind,
            anonymous.quota,
            anonymous.user_id,
            anonymous.token_id,
        ) = (ERROR, 0, 0, 0);
        assert_eq!(check(&anonymous, now), Ok(()));
    }

    #[test]
    fn storable_text_has_no_nul_and_is_cut_on_a_boundary() {
        assert_eq!(storable("a\u{0}b", 10), "a\u{FFFD}b");
        assert_eq!(storable("héllo", 2), "h");
    }
}
