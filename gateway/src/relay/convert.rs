//! One attempt of a request that is not an OpenAI request to an OpenAI channel: the same
//! dialect passed through with only model and auth rewritten (Anthropic, Gemini, Responses),
//! or converted through the IR to the channel's protocol and back.

use std::sync::Arc;

use bytes::Bytes;
use pingora::proxy::Session;
use serde_json::Value;

use super::cloud::{self, Framing};
use super::job::{self, DialectJob, EmbedJob, Job};
use super::post::{self, AttemptError, Outcome};
use super::{Relay, Trace, image_fetch, overrides, shape, sse};
use crate::billing::StreamBudget;
use crate::config::{ChannelEntry, Snapshot};
use crate::error::{GatewayError, UpstreamError};
use crate::routing;
use crate::upstream;
use adapters::bedrock::EventStreamToSse;
use adapters::convert::stream::ClientStream;
use adapters::convert::{self, Dialect, EncodeOptions, Transcoder};
use adapters::ollama::NdjsonToSse;
use adapters::openai::{Endpoint, ParsedRequest, Usage};
use adapters::provider::{self, GeminiMethod, Protocol};
use adapters::shaping::{BodyDialect, HeaderEdits};
use adapters::{gemini, ir, tokens};

fn gateway(e: impl Into<GatewayError>) -> AttemptError {
    AttemptError::Gateway(e.into())
}

/// The channel's site, with the Gemini API version configured for `model`.
fn site<'a>(channel: &'a ChannelEntry, snap: &'a Snapshot, model: &str) -> provider::Site<'a> {
    let mut site = channel.site();
    site.gemini_version = snap.options.providers.gemini_version(model);
    site
}

/// What goes upstream for one attempt.
struct Outgoing {
    url: String,
    body: Bytes,
    /// The model named upstream (a thinking suffix taken off).
    model: String,
    /// The client's dialect is the channel's own: answers go back untouched.
    passthrough: bool,
}

/// The upstream request of a chat job (its IR, converted) for `channel`; `req` is this
/// attempt's own copy (shaped for the channel).
async fn converted(
    upstream: &upstream::Upstream,
    channel: &ChannelEntry,
    protocol: Protocol,
    snap: &Snapshot,
    mut req: ir::Request,
    upstream_model: &str,
) -> Result<Outgoing, AttemptError> {
    let model = shape::for_channel(&mut req, protocol, upstream_model, &snap.options.providers);
    image_fetch::inline_images(upstream, &snap.options, protocol, &mut req)
        .await
        .map_err(AttemptError::Gateway)?;
    let providers = &snap.options.providers;
    let opts = EncodeOptions {
        gemini_safety: Some(&providers.gemini_safety_settings),
        gemini_image_output: protocol == Protocol::Gemini && providers.gemini_image_output(&model),
    };
    let body = convert::encode_request(protocol, &req, &model, opts)
        .map_err(|e| UpstreamError::Build(e.to_string()))?;
    Ok(Outgoing {
        url: provider::chat_url(&site(channel, snap, &model), &model, req.stream),
        body: Bytes::from(body),
        model,
        passthrough: false,
    })
}

/// The upstream request of a Responses, Anthropic or Gemini chat job.
async fn dialect_outgoing(
    upstream: &upstream::Upstream,
    channel: &ChannelEntry,
    protocol: Protocol,
    snap: &Snapshot,
    job: &DialectJob,
    upstream_model: &str,
) -> Result<Outgoing, AttemptError> {
    if job.dialect.native_protocol() != protocol {
        return converted(
            upstream,
            channel,
            protocol,
            snap,
            job.ir.clone(),
            upstream_model,
        )
        .await;
    }
    // The mapped model goes into the body unless requests pass through as they are.
    let body = || {
        if snap.options.pass_through_request {
            Ok(job.raw.clone())
        } else {
            job::with_model(&job.raw, &job.ir.model, upstream_model).map_err(gateway)
        }
    };
    let (url, body) = match job.dialect {
        Dialect::Responses => (
            provider::upstream_url(&channel.site(), "/v1/responses", upstream_model),
            body()?,
        ),
        Dialect::Claude => (
            provider::chat_url(&channel.site(), upstream_model, job.ir.stream),
            body()?,
        ),
        Dialect::Gemini => (
            provider::chat_url(
                &site(channel, snap, upstream_model),
                upstream_model,
                job.ir.stream,
            ),
            job.raw.clone(),
        ),
        // OpenAI chat to an OpenAI channel never comes here.
        Dialect::OpenAi => {
            return converted(
                upstream,
                channel,
                protocol,
                snap,
                job.ir.clone(),
                upstream_model,
            )
            .await;
        }
    };
    Ok(Outgoing {
        url,
        body,
        model: upstream_model.to_owned(),
        passthrough: true,
    })
}

/// A Gemini embedding to a Gemini channel (as it is) or an OpenAI one (converted).
fn embed_outgoing(
    channel: &ChannelEntry,
    protocol: Protocol,
    snap: &Snapshot,
    job: &EmbedJob,
    upstream_model: &str,
) -> Result<Outgoing, AttemptError> {
    if cloud::is_cloud(channel) {
        return Err(UpstreamError::Unsupported("embeddings").into());
    }
    match protocol {
        Protocol::Gemini => {
            let method = if job.batch {
                GeminiMethod::BatchEmbed
            } else {
                GeminiMethod::Embed
            };
            Ok(Outgoing {
                url: provider::gemini_url(
                    &site(channel, snap, upstream_model),
                    upstream_model,
                    method,
                ),
                body: job.raw.clone(),
                model: upstream_model.to_owned(),
                passthrough: true,
            })
        }
        Protocol::OpenAi => {
            let body = gemini::embed_request_to_openai(upstream_model, &job.raw, job.batch)
                .map_err(gateway)?;
            Ok(Outgoing {
                url: provider::upstream_url(&channel.site(), "/v1/embeddings", upstream_model),
                body: Bytes::from(body.to_string()),
                model: upstream_model.to_owned(),
                passthrough: false,
            })
        }
        Protocol::Anthropic
        | Protocol::Converse
        | Protocol::Ollama
        | Protocol::Cohere
        | Protocol::Task => Err(UpstreamError::Unsupported("embeddings").into()),
    }
}

/// An OpenAI request to a channel of another protocol (chat, and embeddings on Gemini).
async fn openai_outgoing(
    upstream: &upstream::Upstream,
    channel: &ChannelEntry,
    protocol: Protocol,
    snap: &Snapshot,
    parsed: &ParsedRequest,
    upstream_model: &str,
) -> Result<Outgoing, AttemptError> {
    if parsed.endpoint == Endpoint::Embeddings
        && protocol == Protocol::Gemini
        && !cloud::is_cloud(channel)
    {
        let body: Value = serde_json::from_slice(parsed.raw())
            .map_err(|e| gateway(adapters::ParseError::MalformedJson(e.to_string())))?;
        let gemini =
            gemini::openai_embeddings_request_to_gemini(upstream_model, &body).map_err(gateway)?;
        return Ok(Outgoing {
            url: provider::gemini_url(
                &site(channel, snap, upstream_model),
                upstream_model,
                GeminiMethod::BatchEmbed,
            ),
            body: Bytes::from(gemini.to_string()),
            model: upstream_model.to_owned(),
            passthrough: false,
        });
    }
    if parsed.endpoint == Endpoint::Embeddings && protocol == Protocol::Ollama {
        let body: Value = serde_json::from_slice(parsed.raw())
            .map_err(|e| gateway(adapters::ParseError::MalformedJson(e.to_string())))?;
        let ollama = adapters::ollama::openai_embeddings_to_ollama(&body, upstream_model)
            .map_err(gateway)?;
        return Ok(Outgoing {
            url: format!(
                "{}{}",
                provider::upstream_url(&channel.site(), "", upstream_model),
                adapters::ollama::EMBED_PATH
            ),
            body: Bytes::from(ollama.to_string()),
            model: upstream_model.to_owned(),
            passthrough: false,
        });
    }
    if parsed.endpoint != Endpoint::ChatCompletions {
        return Err(UpstreamError::Unsupported(parsed.endpoint.path()).into());
    }
    // Decoded for this attempt: no copy to make.
    let ir = job::openai_ir(parsed).map_err(gateway)?;
    converted(upstream, channel, protocol, snap, ir, upstream_model).await
}

/// The channel's body rules on `out` (unless the request passes through as the client's
/// bytes); the header edits they ask for.
fn apply_rules(
    session: &Session,
    snap: &Snapshot,
    trace: &mut Trace,
    channel: &ChannelEntry,
    job: &Job,
    protocol: Protocol,
    out: &mut Outgoing,
) -> Result<HeaderEdits, AttemptError> {
    let pass_through = snap.options.pass_through_request || channel.setting.pass_through_body;
    if pass_through && out.passthrough {
        return Ok(HeaderEdits::default());
    }
    let responses = matches!(job, Job::Dialect(d) if d.dialect == Dialect::Responses);
    let dialect = match (job, protocol) {
        (Job::GeminiEmbed(_), _) => BodyDialect::Other,
        (Job::OpenAi(p), _) if p.endpoint != Endpoint::ChatCompletions => BodyDialect::Other,
        (_, Protocol::OpenAi) if responses && out.passthrough => BodyDialect::OpenAiResponses,
        (_, Protocol::OpenAi) => BodyDialect::OpenAiChat,
        (_, Protocol::Anthropic) => BodyDialect::Anthropic,
        (_, Protocol::Gemini) => BodyDialect::Gemini,
        (_, Protocol::Converse | Protocol::Ollama | Protocol::Cohere | Protocol::Task) => {
            BodyDialect::Other
        }
    };
    let target = overrides::Outgoing {
        dialect,
        original_model: job.model(),
        upstream_model: &out.model,
        body: std::slice::from_ref(&out.body),
        // A body converted from the IR has none of the fields a policy drops (the IR has no
        // place for them): only the client's own bytes are looked over.
        probe: if out.passthrough { &out.body } else { &[] },
    };
    let Some(shaped) = overrides::shape(session, trace, channel, target)? else {
        return Ok(HeaderEdits::default());
    };
    out.body = shaped.body;
    if let Some(model) = shaped.upstream_model {
        out.url = if dialect == BodyDialect::OpenAiResponses {
            provider::upstream_url(&channel.site(), "/v1/responses", &model)
        } else {
            provider::chat_url(&site(channel, snap, &model), &model, job.stream())
        };
        trace.upstream_model = model.clone();
        out.model = model;
    }
    Ok(shaped.header_edits)
}

/// The `claude.model_headers_settings` headers of the upstream model (else of the model the
/// client named); `anthropic-beta` values are added to the client's, other headers replace.
fn model_headers(
    request: &mut http::Request<upstream::Chunks>,
    providers: &crate::config::ProviderOptions,
    upstream_model: &str,
    client_model: &str,
) {
    let Some(headers) = providers
        .claude_model_headers
        .get(upstream_model)
        .or_else(|| providers.claude_model_headers.get(client_model))
    else {
        return;
    };
    for (name, value) in headers {
        let merged = match request.headers().get(name) {
            Some(sent) if name.as_str() == "anthropic-beta" => {
                let sent = sent.to_str().unwrap_or_default();
                let mut values: Vec<&str> = sent.split(',').map(str::trim).collect();
                for v in value.to_str().unwrap_or_default().split(',').map(str::trim) {
                    if !v.is_empty() && !values.contains(&v) {
                        values.push(v);
                    }
                }
                http::HeaderValue::from_str(&values.join(",")).unwrap_or_else(|_| value.clone())
            }
            _ => value.clone(),
        };
        request.headers_mut().insert(name.clone(), merged);
    }
}

/// One attempt of `job` on `channel`.
pub async fn attempt(
    r: &Relay,
    session: &mut Session,
    snap: &Snapshot,
    channel: &Arc<ChannelEntry>,
    job: &Job,
    trace: &mut Trace,
    budget: &mut StreamBudget<'_>,
) -> Result<Outcome, AttemptError> {
    let opts = &snap.options;
    let upstream_model = routing::map_model(channel, job.model()).map_err(gateway)?;
    trace.upstream_model = upstream_model.clone();
    let protocol = channel.spec.protocol_for(&upstream_model);
    let mut out = match job {
        Job::Dialect(d) => {
            dialect_outgoing(
                &r.state.upstream,
                channel,
                protocol,
                snap,
                d,
                &upstream_model,
            )
            .await?
        }
        Job::GeminiEmbed(e) => embed_outgoing(channel, protocol, snap, e, &upstream_model)?,
        Job::OpenAi(p) => {
            openai_outgoing(
                &r.state.upstream,
                channel,
                protocol,
                snap,
                p,
                &upstream_model,
            )
            .await?
        }
    };
    let header_edits = apply_rules(session, snap, trace, channel, job, protocol, &mut out)?;
    let anthropic = match job {
        Job::Dialect(d) => Some(&d.anthropic),
        _ => None,
    };
    let stream = job.stream();
    let mut extra: Vec<(&'static str, &str)> = Vec::new();
    if protocol == Protocol::Anthropic && !cloud::is_cloud(channel) {
        let version = anthropic
            .and_then(|a| a.version.as_deref())
            .unwrap_or(provider::ANTHROPIC_VERSION);
        extra.push(("anthropic-version", version));
        if let Some(beta) = anthropic.and_then(|a| a.beta.as_deref()) {
            extra.push(("anthropic-beta", beta));
        }
    }
    let (url, body, cloud_headers, framing) = if cloud::is_cloud(channel) {
        let call = cloud::prepare(
            &r.state, channel, trace.key, protocol, &out.model, stream, out.body,
        )
        .await?;
        let framing = Framing::of(&call);
        (call.url, call.body, call.headers, framing)
    } else if protocol == Protocol::Ollama {
        (out.url, out.body, Vec::new(), Framing::Ndjson)
    } else {
        (out.url, out.body, Vec::new(), Framing::Sse)
    };
    let mut request = upstream::build_request(channel, trace.key, &url, body, stream, &extra)?;
    if protocol == Protocol::Anthropic && !cloud::is_cloud(channel) {
        model_headers(&mut request, &opts.providers, &out.model, job.model());
    }
    let client = &session.req_header().headers;
    upstream::apply_header_rules(
        &mut request,
        channel,
        trace.key,
        &header_edits,
        Some(client),
    )?;
    for (name, value) in cloud_headers {
        let value = http::HeaderValue::from_str(&value)
            .map_err(|_| UpstreamError::Build(format!("channel {}: invalid {name}", channel.id)))?;
        request.headers_mut().insert(name, value);
    }
    let mut answer = post::send(r, session, opts, request, trace).await?;
    let dialect = job.dialect();
    let streamed = match framing {
        Framing::Sse => answer.is_sse,
        Framing::EventStream(_) => answer
            .content_type
            .starts_with("application/vnd.amazon.eventstream"),
        Framing::Ndjson => answer
            .content_type
            .starts_with(adapters::ollama::NDJSON_CONTENT_TYPE),
    };
    if stream && streamed {
        let transcoder = if out.passthrough {
            Transcoder::passthrough_counting(dialect, job.model(), job.prompt_count())
        } else {
            let include_usage = match job {
                Job::OpenAi(p) => p.client_include_usage,
                _ => false,
            };
            let client = ClientStream {
                dialect,
                model: job.model(),
                created: trace.created_at,
                include_usage,
            };
            Transcoder::converting_counting(protocol, client, job.prompt_count())
        };
        return match framing {
            Framing::Sse => {
                sse::relay_stream(session, answer, transcoder, budget, trace, opts).await
            }
            Framing::EventStream(kind) => {
                let pre = sse::PreFramer::EventStream(EventStreamToSse::new(kind));
                let filter = sse::FramedFilter::new(pre, transcoder);
                sse::relay_stream(session, answer, filter, budget, trace, opts).await
            }
            Framing::Ndjson => {
                let pre = sse::PreFramer::Ndjson(NdjsonToSse::default());
                let filter = sse::FramedFilter::new(pre, transcoder);
                sse::relay_stream(session, answer, filter, budget, trace, opts).await
            }
        };
    }
    let bytes = post::read_answer(session, &mut answer, opts, trace).await?;
    let embeddings = matches!(job, Job::GeminiEmbed(_))
        || matches!(job, Job::OpenAi(p) if p.endpoint == Endpoint::Embeddings);
    // The most common converted answer, an Anthropic message, is read without a value tree.
    if !out.passthrough
        && !embeddings
        && protocol == Protocol::Anthropic
        && let Some(response) = adapters::claude::decode_response_bytes(&bytes)
    {
        return deliver_converted(session, trace, opts, job, response).await;
    }
    let value: Value = serde_json::from_slice(&bytes)
        .map_err(|e| UpstreamError::BadBody(format!("not JSON: {e}")))?;
    let local = |text: &str| local_usage(job, text);
    if let Job::OpenAi(p) = job
        && p.endpoint == Endpoint::Embeddings
        && protocol == Protocol::Ollama
    {
        let base64 = serde_json::from_slice::<Value>(p.raw())
            .ok()
            .and_then(|b| b.get("encoding_format")?.as_str().map(|f| f == "base64"))
            .unwrap_or(false);
        let v = adapters::ollama::ollama_embed_to_openai(&value, job.model(), base64)
            .map_err(|err| UpstreamError::BadBody(err.to_string()))?;
        let counted = adapters::openai::usage_of(&v).filter(|u| u.prompt_tokens > 0);
        let body = Bytes::from(v.to_string());
        post::deliver(session, trace, 200, "application/json", body).await;
        return Ok(Outcome {
            usage: counted.unwrap_or_else(|| local("")),
            local_count: counted.is_none(),
        });
    }
    if let Job::OpenAi(p) = job
        && p.endpoint == Endpoint::Embeddings
    {
        let v = gemini::gemini_embeddings_to_openai(&value, job.model(), job.prompt_estimate())
            .map_err(|err| UpstreamError::BadBody(err.to_string()))?;
        post::deliver(
            session,
            trace,
            200,
            "application/json",
            Bytes::from(v.to_string()),
        )
        .await;
        return Ok(Outcome {
            usage: local(""),
            local_count: true,
        });
    }
    if let Job::GeminiEmbed(e) = job {
        let (body, usage) = if out.passthrough {
            (bytes, local(""))
        } else {
            let usage = adapters::openai::usage_of(&value)
                .filter(|u| u.prompt_tokens > 0)
                .unwrap_or_else(|| local(""));
            let v = gemini::openai_embeddings_to_gemini(&value, e.batch)
                .map_err(|err| UpstreamError::BadBody(err.to_string()))?;
            (Bytes::from(v.to_string()), usage)
        };
        post::deliver(session, trace, answer.status, "application/json", body).await;
        return Ok(Outcome {
            usage,
            local_count: !out.passthrough,
        });
    }
    if out.passthrough {
        let (usage, local_count) = match convert::passthrough_usage(dialect, &value) {
            Some(u) => (u.into(), false),
            None => {
                let text = convert::decode_response(dialect.native_protocol(), &value)
                    .map(|r| r.output_text())
                    .unwrap_or_default();
                (local(&text), true)
            }
        };
        let bytes = super::answer_check::checked(opts, trace, bytes)?;
        post::deliver(session, trace, answer.status, &answer.content_type, bytes).await;
        return Ok(Outcome { usage, local_count });
    }
    let response = convert::decode_response(protocol, &value)
        .map_err(|e| UpstreamError::BadBody(e.to_string()))?;
    deliver_converted(session, trace, opts, job, response).await
}

/// The usage of an answer counted here: the prompt's estimate and `text`'s tokens.
fn local_usage(job: &Job, text: &str) -> Usage {
    Usage {
        prompt_tokens: job.prompt_estimate(),
        completion_tokens: tokens::estimate(job.model(), text),
        cached_tokens: 0,
        cache_creation_tokens: 0,
    }
}

/// Sends a channel's complete answer, decoded to the IR, to the client in its own dialect;
/// the usage to charge (counted here when the channel sent none).
async fn deliver_converted(
    session: &mut Session,
    trace: &mut Trace,
    opts: &crate::config::Options,
    job: &Job,
    mut response: ir::Response,
) -> Result<Outcome, AttemptError> {
    // Clients see the model they asked for, not the channel's mapped name.
    response.model = job.model().to_owned();
    let (usage, local_count) = match response.usage {
        Some(u) => (u.into(), false),
        None => (local_usage(job, &response.output_text()), true),
    };
    if response.usage.is_none() {
        response.usage = Some(ir::Usage {
            input_tokens: usage.prompt_tokens,
            output_tokens: usage.completion_tokens,
            ..ir::Usage::default()
        });
    }
    let body = job
        .dialect()
        .encode_response_bytes(&response, trace.created_at);
    let body = super::answer_check::checked(opts, trace, Bytes::from(body))?;
    post::deliver(session, trace, 200, "application/json", body).await;
    Ok(Outcome { usage, local_count })
}
