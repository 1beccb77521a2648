//! Calls from the control plane to upstream providers: a test chat completion, the model list,
//! and the account balance. URLs and auth come from the provider registry shared with the
//! gateway (`adapters`); cloud channels' calls are built in [`super::cloud`].

use std::time::{Duration, Instant};

use adapters::convert;
use adapters::ir;
use adapters::provider::{self, Protocol};
use serde_json::Value;

use super::cloud;

/// The channel to call.
pub struct Upstream<'a> {
    pub channel_type: i64,
    pub base_url: &'a str,
    pub key: &'a str,
    pub organization: &'a str,
    /// The channel's `other` (Azure's api-version, Vertex's region).
    pub other: &'a str,
    /// The channel's setting JSON.
    pub setting: &'a str,
    /// Gemini: the API version for the model called (`gemini.version_settings`); empty:
    /// `v1beta`.
    pub gemini_version: &'a str,
}

impl Upstream<'_> {
    /// Where the channel's calls go.
    fn site(&self, spec: &'static provider::ProviderSpec) -> provider::Site<'_> {
        provider::Site {
            spec,
            base_url: self.base_url,
            other: self.other,
            responses_version: "",
            gemini_version: self.gemini_version,
        }
    }
}

/// Why a call failed.
#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    #[error("channel type {0} is not supported yet")]
    Unsupported(i64),
    #[error("{0}")]
    Request(String),
    #[error("upstream answered {status}: {message}")]
    Status { status: u16, message: String },
    #[error("unexpected answer: {0}")]
    Body(String),
}

impl ProviderError {
    /// The upstream status, when there was an answer.
    pub fn status(&self) -> Option<u16> {
        match self {
            ProviderError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }
}

const TEST_TIMEOUT: Duration = Duration::from_secs(60);
const CALL_TIMEOUT: Duration = Duration::from_secs(20);

fn spec(upstream: &Upstream<'_>) -> Result<&'static provider::ProviderSpec, ProviderError> {
    i32::try_from(upstream.channel_type)
        .ok()
        .and_then(provider::lookup)
        .ok_or(ProviderError::Unsupported(upstream.channel_type))
}

fn authorized(
    request: reqwest::RequestBuilder,
    upstream: &Upstream<'_>,
) -> reqwest::RequestBuilder {
    let Ok(spec) = spec(upstream) else {
        return request.bearer_auth(upstream.key);
    };
    let (name, value) = spec.auth.header(upstream.key);
    let request = request.header(name, value);
    let request = match spec.protocol {
        Protocol::Anthropic => request.header("anthropic-version", provider::ANTHROPIC_VERSION),
        Protocol::OpenAi
        | Protocol::Gemini
        | Protocol::Converse
        | Protocol::Ollama
        | Protocol::Cohere
        | Protocol::Task => request,
    };
    if upstream.organization.is_empty() || spec.protocol != Protocol::OpenAi {
        request
    } else {
        request.header("OpenAI-Organization", upstream.organization)
    }
}

/// Sends the request and returns the JSON answer of a 2xx, or the upstream's error.
pub(super) async fn call_json(request: reqwest::RequestBuilder) -> Result<Value, ProviderError> {
    let response = request
        .send()
        .await
        .map_err(|e| ProviderError::Request(e.without_url().to_string()))?;
    let status = response.status();
    let text = response
        .text()
        .await
        .map_err(|e| ProviderError::Request(e.without_url().to_string()))?;
    let body: Option<Value> = serde_json::from_str(&text).ok();
    if !status.is_success() {
        let message = body
            .as_ref()
            .and_then(|b| b.pointer("/error/message").or_else(|| b.get("message")))
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| text.chars().take(200).collect());
        return Err(ProviderError::Status {
            status: status.as_u16(),
            message,
        });
    }
    body.ok_or_else(|| ProviderError::Body(text.chars().take(200).collect()))
}

/// Sends a one-message chat completion to `model`; returns the elapsed milliseconds.
pub async fn test_chat(
    client: &reqwest::Client,
    upstream: &Upstream<'_>,
    model: &str,
) -> Result<i64, (ProviderError, i64)> {
    let started = Instant::now();
    let elapsed = || started.elapsed().as_millis() as i64;
    let spec = spec(upstream).map_err(|e| (e, 0))?;
    // A task API (Midjourney, Suno) has no chat to test.
    if spec.protocol == Protocol::Task {
        return Err((ProviderError::Unsupported(upstream.channel_type), 0));
    }
    // Cloud channels speak Anthropic's protocol for Claude models.
    let protocol = spec.protocol_for(model);
    let request = ir::Request {
        model: model.to_owned(),
        messages: vec![ir::Message {
            role: ir::Role::User,
            content: vec![ir::Part::Text("hi".to_owned())],
        }],
        // Gemini's thinking models spend tokens before answering.
        max_tokens: Some(if protocol == Protocol::Gemini {
            3000
        } else {
            16
        }),
        ..ir::Request::default()
    };
    let body = convert::encode_request(protocol, &request, model, Default::default())
        .map_err(|e| (ProviderError::Request(e.to_string()), 0))?;
    let answer = if cloud::is_cloud(spec) {
        cloud::chat(client, upstream, spec, protocol, model, body, TEST_TIMEOUT).await
    } else {
        let url = provider::chat_url(&upstream.site(spec), model, false);
        call_json(authorized(
            client
                .post(url)
                .timeout(TEST_TIMEOUT)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body),
            upstream,
        ))
        .await
    }
    .map_err(|e| (e, elapsed()))?;
    convert::decode_response(protocol, &answer)
        .map_err(|e| (ProviderError::Body(e.to_string()), elapsed()))?;
    Ok(elapsed())
}

/// The model ids the upstream lists: `/v1/models` (Azure: `/openai/models`, the base models
/// of the resource), Gemini's `/v1beta/models`, Ollama's `/api/tags`, Cohere's `/v1/models`;
/// Bedrock's and Vertex's lists in [`super::cloud`] (Vertex lists no Claude models: admins
/// add them by hand).
pub async fn fetch_models(
    client: &reqwest::Client,
    upstream: &Upstream<'_>,
) -> Result<Vec<String>, ProviderError> {
    let spec = spec(upstream)?;
    if cloud::is_cloud(spec) {
        return cloud::models(client, upstream, spec, CALL_TIMEOUT).await;
    }
    let (path, list_key, id_key) = match spec.protocol {
        Protocol::Gemini => ("/v1beta/models", "models", "name"),
        Protocol::OpenAi | Protocol::Anthropic => ("/v1/models", "data", "id"),
        // Ollama lists its local models at /api/tags; Cohere its chat models at /v1/models.
        Protocol::Ollama => (adapters::ollama::TAGS_PATH, "models", "name"),
        Protocol::Cohere => ("/v1/models?endpoint=chat", "models", "name"),
        Protocol::Converse | Protocol::Task => {
            return Err(ProviderError::Unsupported(upstream.channel_type));
        }
    };
    let site = upstream.site(spec);
    let url = match spec.url {
        // A full-URL channel names its chat endpoint: the list is beside /v1.
        provider::UrlStyle::FullUrl => {
            let base = if upstream.base_url.is_empty() {
                spec.default_base_url
            } else {
                upstream.base_url
            };
            format!("{}{path}", base.trim_end_matches('/'))
        }
        _ => provider::upstream_url(&site, path, ""),
    };
    let answer = call_json(authorized(client.get(url).timeout(CALL_TIMEOUT), upstream)).await?;
    let list = answer
        .get(list_key)
        .and_then(Value::as_array)
        .ok_or_else(|| ProviderError::Body("the model list is not an array".into()))?;
    Ok(list
        .iter()
        .filter_map(|m| m.get(id_key).and_then(Value::as_str))
        .map(|id| id.trim_start_matches("models/").to_string())
        .collect())
}

/// The account balance in USD (CNY-only providers are converted with `price`, yuan per dollar).
pub async fn balance(
    client: &reqwest::Client,
    upstream: &Upstream<'_>,
    price: f64,
) -> Result<f64, ProviderError> {
    let base = |default: &str| {
        let base = if upstream.base_url.is_empty() {
            default
        } else {
            upstream.base_url
        };
        base.trim_end_matches('/').to_string()
    };
    let get = |url: String| call_json(authorized(client.get(url).timeout(CALL_TIMEOUT), upstream));
    let number = |v: Option<&Value>| -> Result<f64, ProviderError> {
        v.and_then(|v| {
            v.as_f64()
                .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        })
        .ok_or_else(|| ProviderError::Body("no balance in the answer".into()))
    };
    match upstream.channel_type {
        1 | 8 => {
            let root = base("https://api.openai.com");
            let subscription = get(format!("{root}/v1/dashboard/billing/subscription")).await?;
            let limit = number(subscription.get("hard_limit_usd"))?;
            let today = time_days(0);
            let start = time_days(-100);
            let usage = get(format!(
                "{root}/v1/dashboard/billing/usage?start_date={start}&end_date={today}"
            ))
            .await?;
            Ok(limit - number(usage.get("total_usage"))? / 100.0)
        }
        10 => {
            let url = format!("{}/api/report/getUserOverview", base("https://aiproxy.io"));
            let request = client
                .get(url)
                .timeout(CALL_TIMEOUT)
                .header("Api-Key", upstream.key);
            number(call_json(request).await?.pointer("/data/totalPoints"))
        }
        12 => {
            let answer = get(format!(
                "{}/dashboard/billing/credit_grants",
                base("https://api.api2gpt.com")
            ))
            .await?;
            number(answer.get("total_remaining"))
        }
        13 => {
            let answer = get(format!(
                "{}/dashboard/billing/credit_grants",
                base("https://api.aigc2d.com")
            ))
            .await?;
            number(answer.get("total_available"))
        }
        20 => {
            let answer = get(format!("{}/v1/credits", base("https://openrouter.ai/api"))).await?;
            Ok(number(answer.pointer("/data/total_credits"))?
                - number(answer.pointer("/data/total_usage"))?)
        }
        25 => {
            let answer = get(format!(
                "{}/v1/users/me/balance",
                base("https://api.moonshot.cn")
            ))
            .await?;
            Ok(number(answer.pointer("/data/available_balance"))? / price.max(f64::MIN_POSITIVE))
        }
        40 => {
            let answer = get(format!(
                "{}/v1/user/info",
                base("https://api.siliconflow.cn")
            ))
            .await?;
            number(answer.pointer("/data/totalBalance"))
        }
        43 => {
            let answer = get(format!("{}/user/balance", base("https://api.deepseek.com"))).await?;
            let infos = answer.get("balance_infos").and_then(Value::as_array);
            let cny = infos.and_then(|list| {
                list.iter()
                    .find(|i| i.get("currency").and_then(Value::as_str) == Some("CNY"))
            });
            number(cny.and_then(|i| i.get("total_balance")))
        }
        other => Err(ProviderError::Unsupported(other)),
    }
}

/// `YYYY-MM-DD` of today plus `offset_days` (UTC).
fn time_days(offset_days: i64) -> String {
    let days = crate::store::now().div_euclid(86_400) + offset_days;
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}
