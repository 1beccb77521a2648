//! The per-request trace that becomes the usage record and the request metrics.

use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;

use crate::billing::Price;
use crate::config::ChannelEntry;
use crate::edge::Caller;
use crate::state::GatewayState;
use crate::usage::{LOG_CONSUME, LOG_ERROR, UsageRecord};
use adapters::openai::Usage;

/// Most bytes of a prompt and of an answer kept in a log row (`LogChatContentEnabled`); with
/// JSON escaping, both stay within the control plane's limit on a row's `other`.
pub const CHAT_LOG_MAX: usize = 4096;

/// Calls that cost nothing and write no log row.
const FREE_ENDPOINTS: [&str; 7] = [
    "models",
    "count_tokens",
    "billing",
    "not_implemented",
    "mj_fetch",
    "mj_image",
    "suno_fetch",
];

/// What happened to one request, filled in as it goes.
#[derive(Debug)]
pub struct Trace {
    pub request_id: String,
    pub started: Instant,
    pub created_at: i64,
    pub endpoint: &'static str,
    /// The client's dialect (errors are written in it).
    pub dialect: adapters::convert::Dialect,
    pub caller: Option<Caller>,
    pub model: String,
    pub stream: bool,
    /// The request body was fully read (the connection may be kept alive).
    pub body_read: bool,
    pub channel: Option<Arc<ChannelEntry>>,
    /// The key of `channel` the current (last) attempt uses.
    pub key: crate::config::KeyChoice,
    pub tried: Vec<i64>,
    pub upstream_model: String,
    pub frt_ms: Option<u64>,
    pub price: Option<Price>,
    pub usage: Usage,
    pub local_count: bool,
    pub quota: i64,
    pub status: u16,
    pub error_code: Option<&'static str>,
    pub error: Option<String>,
    pub client_gone: bool,
    /// The client's address, once known.
    pub client_ip: Option<std::net::IpAddr>,
    /// `Access-Control-Allow-Origin` of the answer (a browser from an allowed origin).
    pub cors_origin: Option<String>,
    /// A console playground request (session, no token).
    pub playground: bool,
    /// Upstream attempts that failed, in order.
    pub channel_failures: Vec<crate::usage::ChannelFailure>,
    /// The request's OpenTelemetry spans (while traces are exported).
    pub span: Option<super::spans::RequestSpan>,
    /// The prompt's text, kept for the log row (`LogChatContentEnabled`).
    pub chat_prompt: Option<String>,
    /// The answer's text as the client got it, kept for the log row.
    pub chat_answer: Option<String>,
    /// The asynchronous task this request submitted, if the provider accepted one.
    pub task: Option<crate::usage::TaskReport>,
}

/// A request id: the time in microseconds, then 32 random bits in hex (written without the
/// formatting machinery: it is made for every request).
fn new_request_id(now: std::time::SystemTime) -> String {
    let ts = now
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
        .unwrap_or(0);
    let mut id = String::with_capacity(28);
    push_decimal(&mut id, ts);
    let random = rand::random::<u32>();
    for shift in (0..8).rev() {
        let nibble = (random >> (shift * 4)) & 0xf;
        id.push(char::from_digit(nibble, 16).unwrap_or('0'));
    }
    id
}

/// Appends `n` in decimal.
fn push_decimal(out: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for d in &digits[at..] {
        out.push(char::from(*d));
    }
}

/// The client's address as the log row shows it (IPv4 written by hand: it is made for every
/// request).
fn ip_text(ip: std::net::IpAddr) -> String {
    match ip {
        std::net::IpAddr::V4(v4) => {
            let mut text = String::with_capacity(15);
            for (i, octet) in v4.octets().into_iter().enumerate() {
                if i > 0 {
                    text.push('.');
                }
                push_decimal(&mut text, u64::from(octet));
            }
            text
        }
        std::net::IpAddr::V6(_) => ip.to_string(),
    }
}

impl Trace {
    /// Starts the trace of a new request with a unique id.
    pub fn new() -> Self {
        let now = std::time::SystemTime::now();
        Trace {
            request_id: new_request_id(now),
            started: Instant::now(),
            created_at: now
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(0),
            endpoint: "other",
            dialect: adapters::convert::Dialect::OpenAi,
            caller: None,
            model: String::new(),
            stream: false,
            body_read: false,
            channel: None,
            key: crate::config::KeyChoice::default(),
            tried: Vec::new(),
            upstream_model: String::new(),
            frt_ms: None,
            price: None,
            usage: Usage::default(),
            local_count: false,
            quota: 0,
            status: 200,
            error_code: None,
            error: None,
            client_gone: false,
            client_ip: None,
            cors_origin: None,
            playground: false,
            channel_failures: Vec::new(),
            span: None,
            chat_prompt: None,
            chat_answer: None,
            task: None,
        }
    }

    fn other(&self) -> String {
        let mut o = Other {
            admin_info: AdminInfo {
                multi_key_index: self
                    .channel
                    .as_ref()
                    .is_some_and(|c| c.keys.len() > 1)
                    .then_some(self.key.index),
                use_channel: &self.tried,
            },
            request_path: self.endpoint,
            frt: self.frt_ms,
            error_code: self.error_code,
            client_disconnected: self.client_gone.then_some(true),
            local_count_tokens: self.local_count.then_some(true),
            playground: self.playground.then_some(true),
            cache_tokens: Some(self.usage.cached_tokens).filter(|n| *n > 0),
            cache_creation_tokens: Some(self.usage.cache_creation_tokens).filter(|n| *n > 0),
            ..Other::default()
        };
        if !self.upstream_model.is_empty() && self.upstream_model != self.model {
            o.is_model_mapped = Some(true);
            o.upstream_model_name = Some(&self.upstream_model);
        }
        match self.price {
            Some(Price::Ratio {
                model_ratio,
                completion_ratio,
                cache_ratio,
                cache_creation_ratio,
                group_ratio,
            }) => {
                o.model_ratio = Some(model_ratio);
                o.completion_ratio = Some(completion_ratio);
                o.cache_ratio = Some(cache_ratio);
                if self.usage.cache_creation_tokens > 0 {
                    o.cache_creation_ratio = Some(cache_creation_ratio);
                }
                o.group_ratio = Some(group_ratio);
                o.model_price = Some(ModelPrice::ByRatio(-1));
            }
            Some(Price::Fixed { price, group_ratio }) => {
                o.model_price = Some(ModelPrice::Fixed(price));
                o.group_ratio = Some(group_ratio);
            }
            None => {}
        }
        if let Some(ch) = &self.channel {
            let protocol = ch.spec.protocol_for(&self.upstream_model);
            if self.dialect.native_protocol() != protocol {
                o.conversion = Some(Conversion {
                    client: dialect_name(self.dialect),
                    provider: protocol_name(protocol),
                });
            }
        }
        // The console's log details show these two.
        if let Some(prompt) = &self.chat_prompt {
            o.input_content = Some(prompt);
            o.output_content = Some(self.chat_answer.as_deref().unwrap_or_default());
        }
        o.to_json()
    }

    /// Emits the usage record and the request metrics.
    pub fn finish(mut self, state: &GatewayState) {
        let elapsed = self.started.elapsed();
        if let Some(span) = self.span.take() {
            span.finish(&self);
        }
        // Each request's row is its usage record and its metrics; a log line per request is
        // for debugging (`RUST_LOG=gateway=debug`): at info it cost every request a write.
        tracing::debug!(
            request_id = self.request_id,
            endpoint = self.endpoint,
            status = self.status,
            model = self.model,
            channel_id = self.channel.as_ref().map_or(0, |c| c.id),
            attempts = self.tried.len(),
            quota = self.quota,
            elapsed_ms = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX),
            code = self.error_code.unwrap_or(""),
            "request done"
        );
        let m = &state.metrics;
        m.count_finished(&crate::metrics::Finished {
            endpoint: self.endpoint,
            status: self.status,
            code: self.error_code,
            stream: self.stream,
            model: self
                .caller
                .as_ref()
                .filter(|_| !self.model.is_empty())
                .map(|c| {
                    (
                        &*self.model,
                        &*c.group,
                        self.channel.as_ref().map(|ch| ch.id),
                    )
                }),
            elapsed_seconds: elapsed.as_secs_f64(),
            ttft_seconds: self.frt_ms.map(|ms| ms as f64 / 1000.0),
            prompt_tokens: self.usage.prompt_tokens,
            completion_tokens: self.usage.completion_tokens,
            quota: self.quota,
        });
        // Requests that never authenticated, and free calls (model lists, token counting),
        // leave no row: anyone could grow the log table with them. They are counted instead.
        let Some(c) = &self.caller else {
            m.unrecorded
                .with_label_values(&[self.error_code.unwrap_or("unauthenticated")])
                .inc();
            return;
        };
        if FREE_ENDPOINTS.contains(&self.endpoint) && self.quota == 0 {
            m.unrecorded.with_label_values(&[self.endpoint]).inc();
            return;
        }
        let other = self.other();
        let (user_id, username, token_id, token_name, group) = (
            c.user.id,
            c.user.username.clone(),
            c.token.id,
            c.token.name.to_string(),
            c.group.clone(),
        );
        let failed = self.error.is_some() && self.quota == 0;
        state.sink.record(UsageRecord {
            request_id: self.request_id,
            created_at: self.created_at,
            kind: if failed { LOG_ERROR } else { LOG_CONSUME },
            user_id,
            username,
            token_id,
            token_name,
            group,
            model_name: self.model,
            channel: self.channel.as_ref().map_or(0, |c| c.id),
            channel_name: self
                .channel
                .as_ref()
                .map(|c| c.name.clone())
                .unwrap_or_default(),
            use_time: elapsed.as_secs() as i64,
            is_stream: self.stream,
            prompt_tokens: self.usage.prompt_tokens,
            completion_tokens: self.usage.completion_tokens,
            quota: self.quota,
            content: self.error.unwrap_or_default(),
            status: self.status,
            other,
            ip: self.client_ip.map(ip_text).unwrap_or_default(),
            channel_failures: self.channel_failures,
            task: self.task,
        });
    }
}

/// A log row's `other`: what the console's log details show besides the columns. Fields
/// are in alphabetical order, the order the control plane and the console have always seen.
/// Written by [`Other::to_json`]; the derived serialisation is its reference in tests.
#[derive(Serialize, Default)]
struct Other<'a> {
    admin_info: AdminInfo<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_creation_ratio: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_creation_tokens: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_ratio: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_tokens: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    client_disconnected: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    completion_ratio: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    conversion: Option<Conversion>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error_code: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    frt: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    group_ratio: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input_content: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    is_model_mapped: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    local_count_tokens: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model_price: Option<ModelPrice>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model_ratio: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_content: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    playground: Option<bool>,
    request_path: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    upstream_model_name: Option<&'a str>,
}

#[derive(Serialize, Default)]
struct AdminInfo<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    multi_key_index: Option<u32>,
    use_channel: &'a [i64],
}

#[derive(Serialize)]
struct Conversion {
    client: &'static str,
    provider: &'static str,
}

/// `model_price`: the fixed price, or -1 for a model billed by ratio.
#[derive(Serialize)]
#[serde(untagged)]
enum ModelPrice {
    ByRatio(i64),
    Fixed(f64),
}

impl Other<'_> {
    /// The compact JSON object, byte for byte what `serde_json` writes for the struct, without
    /// the serializer's work per key (it is made for every request).
    fn to_json(&self) -> String {
        use crate::usage::line::{integer, string};
        let mut out = Vec::with_capacity(256);
        out.extend_from_slice(b"{\"admin_info\":{");
        if let Some(index) = self.admin_info.multi_key_index {
            out.extend_from_slice(b"\"multi_key_index\":");
            integer(index, &mut out);
            out.push(b',');
        }
        out.extend_from_slice(b"\"use_channel\":[");
        for (i, id) in self.admin_info.use_channel.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            integer(*id, &mut out);
        }
        out.extend_from_slice(b"]}");
        let o = &mut out;
        put(o, "cache_creation_ratio", self.cache_creation_ratio);
        put(o, "cache_creation_tokens", self.cache_creation_tokens);
        put(o, "cache_ratio", self.cache_ratio);
        put(o, "cache_tokens", self.cache_tokens);
        put(o, "client_disconnected", self.client_disconnected);
        put(o, "completion_ratio", self.completion_ratio);
        if let Some(c) = &self.conversion {
            key(o, "conversion");
            o.extend_from_slice(b"{\"client\":");
            string(c.client, o);
            o.extend_from_slice(b",\"provider\":");
            string(c.provider, o);
            o.push(b'}');
        }
        put(o, "error_code", self.error_code);
        put(o, "frt", self.frt);
        put(o, "group_ratio", self.group_ratio);
        put(o, "input_content", self.input_content);
        put(o, "is_model_mapped", self.is_model_mapped);
        put(o, "local_count_tokens", self.local_count_tokens);
        match self.model_price {
            Some(ModelPrice::ByRatio(v)) => put(o, "model_price", Some(v)),
            Some(ModelPrice::Fixed(v)) => put(o, "model_price", Some(v)),
            None => {}
        }
        put(o, "model_ratio", self.model_ratio);
        put(o, "output_content", self.output_content);
        put(o, "playground", self.playground);
        put(o, "request_path", Some(self.request_path));
        put(o, "upstream_model_name", self.upstream_model_name);
        out.push(b'}');
        // Every piece above is UTF-8 (strings are copied whole or escaped in ASCII).
        String::from_utf8(out).unwrap_or_default()
    }
}

/// `,"name":` (every key of [`Other`] but the first, which is written with its brace).
fn key(out: &mut Vec<u8>, name: &str) {
    out.extend_from_slice(b",\"");
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\":");
}

/// A present field of [`Other`], as `serde_json` writes it.
fn put<T: JsonScalar>(out: &mut Vec<u8>, name: &str, value: Option<T>) {
    if let Some(v) = value {
        key(out, name);
        v.write(out);
    }
}

/// The scalars of [`Other`].
trait JsonScalar {
    fn write(self, out: &mut Vec<u8>);
}

impl JsonScalar for f64 {
    fn write(self, out: &mut Vec<u8>) {
        crate::usage::line::float(self, out);
    }
}

impl JsonScalar for i64 {
    fn write(self, out: &mut Vec<u8>) {
        crate::usage::line::integer(self, out);
    }
}

impl JsonScalar for u64 {
    fn write(self, out: &mut Vec<u8>) {
        crate::usage::line::integer(self, out);
    }
}

impl JsonScalar for bool {
    fn write(self, out: &mut Vec<u8>) {
        out.extend_from_slice(if self { b"true" } else { b"false" });
    }
}

impl JsonScalar for &str {
    fn write(self, out: &mut Vec<u8>) {
        crate::usage::line::string(self, out);
    }
}

impl Default for Trace {
    fn default() -> Self {
        Self::new()
    }
}

/// The name of a client dialect in log rows.
fn dialect_name(d: adapters::convert::Dialect) -> &'static str {
    use adapters::convert::Dialect;
    match d {
        Dialect::OpenAi => "openai",
        Dialect::Responses => "responses",
        Dialect::Claude => "claude",
        Dialect::Gemini => "gemini",
    }
}

/// The name of a provider protocol in log rows.
fn protocol_name(p: adapters::provider::Protocol) -> &'static str {
    use adapters::provider::Protocol;
    match p {
        Protocol::OpenAi => "openai",
        Protocol::Anthropic => "anthropic",
        Protocol::Gemini => "gemini",
        Protocol::Converse => "bedrock-converse",
        Protocol::Ollama => "ollama",
        Protocol::Cohere => "cohere",
        Protocol::Task => "task",
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn request_ids_and_addresses_are_written_as_the_formatter_would() {
        let at = std::time::UNIX_EPOCH + std::time::Duration::from_micros(1_764_412_345_678_901);
        let id = new_request_id(at);
        assert_eq!(id.len(), 16 + 8);
        assert!(id.starts_with("1764412345678901"));
        assert!(
            id[16..]
                .chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        assert!(new_request_id(std::time::UNIX_EPOCH).starts_with('0'));
        for n in [0u64, 7, 10, 255, 1_000_000, u64::MAX] {
            let mut s = String::new();
            push_decimal(&mut s, n);
            assert_eq!(s, n.to_string());
        }
        for ip in [
            "0.0.0.0",
            "127.0.0.1",
            "10.20.255.9",
            "255.255.255.255",
            "::1",
            "2001:db8::8a2e:370:7334",
        ] {
            let ip: std::net::IpAddr = ip.parse().unwrap();
            assert_eq!(ip_text(ip), ip.to_string());
        }
    }

    #[test]
    fn other_written_by_hand_is_what_serde_writes() {
        let strings = [
            "",
            "chat",
            "say \"hi\"\n\t\\ é 汉字 \u{1}\u{1f}",
            "a/b",
            "\u{7f}x",
        ];
        let floats = [
            0.0,
            -0.0,
            1.0,
            4.0,
            0.8,
            1.25,
            1e-7,
            1e21,
            123456.789,
            f64::NAN,
            f64::INFINITY,
        ];
        let ints = [0i64, 1, -1, 42, i64::MAX, i64::MIN];
        let channels: [&[i64]; 3] = [&[], &[3], &[3, 7, -1]];
        let pick = |n: usize, i: usize| (i.wrapping_mul(2_654_435_761) >> 7) % n;
        for case in 0..4000usize {
            let bit = |b: u32| (case.wrapping_mul(0x9e37_79b9) >> (b % 31)) & 1 == 1;
            let f = |k: usize| Some(floats[pick(floats.len(), case + k)]).filter(|_| bit(k as u32));
            let n =
                |k: usize| Some(ints[pick(ints.len(), case * 3 + k)]).filter(|_| bit(k as u32 + 3));
            let s = |k: usize| {
                Some(strings[pick(strings.len(), case * 7 + k)]).filter(|_| bit(k as u32 + 5))
            };
            let b = |k: usize| Some(bit(k as u32 + 11)).filter(|_| bit(k as u32 + 13));
            let o = Other {
                admin_info: AdminInfo {
                    multi_key_index: Some(u32::try_from(case % 5).unwrap()).filter(|_| bit(1)),
                    use_channel: channels[case % 3],
                },
                cache_creation_ratio: f(1),
                cache_creation_tokens: n(2),
                cache_ratio: f(3),
                cache_tokens: n(4),
                client_disconnected: b(5),
                completion_ratio: f(6),
                conversion: bit(7).then_some(Conversion {
                    client: "openai",
                    provider: "anthropic",
                }),
                error_code: ["client_gone", "x\"y"].get(case % 4).copied(),
                frt: n(8).map(|v| v.unsigned_abs()),
                group_ratio: f(9),
                input_content: s(10),
                is_model_mapped: b(11),
                local_count_tokens: b(12),
                model_price: match case % 3 {
                    0 => None,
                    1 => Some(ModelPrice::ByRatio(-1)),
                    _ => Some(ModelPrice::Fixed(floats[case % floats.len()])),
                },
                model_ratio: f(14),
                output_content: s(15),
                playground: b(16),
                request_path: strings[case % strings.len()],
                upstream_model_name: s(17),
            };
            assert_eq!(
                o.to_json(),
                serde_json::to_string(&o).unwrap(),
                "case {case}"
            );
        }
    }

    #[test]
    fn other_is_the_sorted_object_the_console_reads() {
        let mut t = Trace::new();
        t.endpoint = "chat";
        t.tried = vec![3, 7];
        assert_eq!(
            t.other(),
            r#"{"admin_info":{"use_channel":[3,7]},"request_path":"chat"}"#
        );
        t.model = "gpt-4o".into();
        t.upstream_model = "gpt-4o-2024".into();
        t.frt_ms = Some(12);
        t.price = Some(Price::Ratio {
            model_ratio: 1.25,
            completion_ratio: 4.0,
            cache_ratio: 0.5,
            cache_creation_ratio: 1.25,
            group_ratio: 0.8,
        });
        t.usage.cached_tokens = 5;
        t.usage.cache_creation_tokens = 2;
        t.local_count = true;
        t.client_gone = true;
        t.playground = true;
        t.error_code = Some("client_gone");
        t.chat_prompt = Some("say \"hi\"".into());
        assert_eq!(
            t.other(),
            concat!(
                r#"{"admin_info":{"use_channel":[3,7]},"cache_creation_ratio":1.25,"#,
                r#""cache_creation_tokens":2,"cache_ratio":0.5,"cache_tokens":5,"#,
                r#""client_disconnected":true,"completion_ratio":4.0,"#,
                r#""error_code":"client_gone","frt":12,"group_ratio":0.8,"#,
                r#""input_content":"say \"hi\"","is_model_mapped":true,"#,
                r#""local_count_tokens":true,"model_price":-1,"model_ratio":1.25,"#,
                r#""output_content":"","playground":true,"request_path":"chat","#,
                r#""upstream_model_name":"gpt-4o-2024"}"#
            )
        );
        t.price = Some(Price::Fixed {
            price: 0.02,
            group_ratio: 1.0,
        });
        let other: serde_json::Value = serde_json::from_str(&t.other()).unwrap();
        assert_eq!(other["model_price"], serde_json::json!(0.02));
        assert_eq!(other["group_ratio"], serde_json::json!(1.0));
        assert!(other.get("model_ratio").is_none());
    }
}
