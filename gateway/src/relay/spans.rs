//! The relay's OpenTelemetry spans, made only while traces are exported: one per request
//! (server kind, named and attributed after the GenAI semantic conventions) and one per
//! upstream attempt (client kind), whose W3C `traceparent` goes upstream with the attempt. A
//! client's own `traceparent` (and `tracestate`) makes the request span its child.

use telemetry::{
    Context, KeyValue, SdkSpan as Span, SdkTracer, Span as _, SpanBuilder, SpanKind, Status,
    TraceContextExt, Tracer as _,
};

use crate::config::ChannelEntry;

use super::record::Trace;

/// The spans of one request.
pub struct RequestSpan {
    tracer: SdkTracer,
    span: Span,
    /// The attempt under way, with its GenAI operation.
    attempt: Option<(Span, Option<&'static str>)>,
}

impl std::fmt::Debug for RequestSpan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestSpan")
            .field("context", self.span.span_context())
            .finish_non_exhaustive()
    }
}

/// The GenAI operation of an endpoint (`None` for calls that are not model calls).
fn operation(endpoint: &str) -> Option<&'static str> {
    match endpoint {
        "chat_completions" | "messages" | "responses" => Some("chat"),
        "completions" => Some("text_completion"),
        "embeddings" | "gemini_embed" => Some("embeddings"),
        "gemini_generate" => Some("generate_content"),
        _ => None,
    }
}

/// `gen_ai.provider.name` of a channel: the convention's names where one exists.
fn provider_name(channel: &ChannelEntry) -> String {
    match channel.spec.channel_type {
        1 => "openai".to_owned(),
        14 => "anthropic".to_owned(),
        24 => "gcp.gemini".to_owned(),
        43 => "deepseek".to_owned(),
        48 => "x_ai".to_owned(),
        _ => channel.spec.name.to_ascii_lowercase(),
    }
}

fn host_of(url: &str) -> Option<String> {
    let uri: http::Uri = url.parse().ok()?;
    uri.host().map(str::to_owned)
}

impl RequestSpan {
    /// Starts the request's span (a child of the client's trace when it sent one).
    pub fn begin(
        tracer: &SdkTracer,
        method: &http::Method,
        headers: &http::HeaderMap,
        path: &str,
    ) -> Self {
        let parent = match telemetry::remote_parent(headers) {
            Some(remote) => Context::new().with_remote_span_context(remote),
            None => Context::new(),
        };
        let span = tracer.build_with_context(
            SpanBuilder::from_name("relay")
                .with_kind(SpanKind::Server)
                .with_attributes([
                    KeyValue::new("http.request.method", method.as_str().to_owned()),
                    KeyValue::new("url.path", path.to_owned()),
                ]),
            &parent,
        );
        RequestSpan {
            tracer: tracer.clone(),
            span,
            attempt: None,
        }
    }

    /// Starts the span of an attempt on `channel` (the previous one, if any, has ended).
    pub fn begin_attempt(&mut self, channel: &ChannelEntry, endpoint: &str) {
        let parent = Context::new().with_remote_span_context(self.span.span_context().clone());
        let mut attributes = vec![
            KeyValue::new("gen_ai.provider.name", provider_name(channel)),
            KeyValue::new("ai_gateway.channel.id", channel.id),
        ];
        if let Some(op) = operation(endpoint) {
            attributes.push(KeyValue::new("gen_ai.operation.name", op));
        }
        if let Some(host) = host_of(&channel.base_url) {
            attributes.push(KeyValue::new("server.address", host));
        }
        let span = self.tracer.build_with_context(
            SpanBuilder::from_name(operation(endpoint).unwrap_or("upstream"))
                .with_kind(SpanKind::Client)
                .with_attributes(attributes),
            &parent,
        );
        self.attempt = Some((span, operation(endpoint)));
    }

    /// The `traceparent` (and `tracestate`) of the attempt under way, for its upstream request.
    pub fn inject(&self, headers: &mut http::HeaderMap) {
        if let Some((attempt, _)) = &self.attempt {
            telemetry::inject(attempt.span_context(), headers);
        }
    }

    /// Ends the attempt's span: `upstream_model` was asked for; `failure` is the upstream's
    /// error code and HTTP status when the attempt failed.
    pub fn end_attempt(
        &mut self,
        upstream_model: &str,
        failure: Option<(&'static str, Option<u16>)>,
    ) {
        let Some((mut span, op)) = self.attempt.take() else {
            return;
        };
        if !upstream_model.is_empty() {
            if let Some(op) = op {
                span.update_name(format!("{op} {upstream_model}"));
            }
            span.set_attribute(KeyValue::new(
                "gen_ai.request.model",
                upstream_model.to_owned(),
            ));
        }
        match failure {
            Some((code, status)) => {
                if let Some(status) = status {
                    span.set_attribute(KeyValue::new(
                        "http.response.status_code",
                        i64::from(status),
                    ));
                }
                span.set_attribute(KeyValue::new("error.type", code));
                span.set_status(Status::error(code));
            }
            None => span.set_attribute(KeyValue::new("http.response.status_code", 200_i64)),
        }
        span.end();
    }

    /// Ends the request's span with what `trace` recorded.
    pub fn finish(mut self, trace: &Trace) {
        if self.attempt.is_some() {
            self.end_attempt(&trace.upstream_model, None);
        }
        let span = &mut self.span;
        let op = operation(trace.endpoint);
        let name = match (op, trace.model.is_empty()) {
            (Some(op), false) => format!("{op} {}", trace.model),
            (Some(op), true) => op.to_owned(),
            (None, _) => trace.endpoint.to_owned(),
        };
        span.update_name(name);
        let mut attributes = vec![
            KeyValue::new("http.response.status_code", i64::from(trace.status)),
            KeyValue::new("ai_gateway.request_id", trace.request_id.clone()),
            KeyValue::new("ai_gateway.endpoint", trace.endpoint),
        ];
        if let Some(op) = op {
            attributes.push(KeyValue::new("gen_ai.operation.name", op));
        }
        if !trace.model.is_empty() {
            attributes.push(KeyValue::new("gen_ai.request.model", trace.model.clone()));
        }
        if let Some(channel) = &trace.channel {
            attributes.push(KeyValue::new(
                "gen_ai.provider.name",
                provider_name(channel),
            ));
            attributes.push(KeyValue::new("ai_gateway.channel.id", channel.id));
        }
        if trace.error_code.is_none() && !trace.upstream_model.is_empty() {
            attributes.push(KeyValue::new(
                "gen_ai.response.model",
                trace.upstream_model.clone(),
            ));
        }
        if trace.usage.prompt_tokens > 0 || trace.usage.completion_tokens > 0 {
            attributes.push(KeyValue::new(
                "gen_ai.usage.input_tokens",
                trace.usage.prompt_tokens,
            ));
            attributes.push(KeyValue::new(
                "gen_ai.usage.output_tokens",
                trace.usage.completion_tokens,
            ));
        }
        if trace.stream {
            attributes.push(KeyValue::new("ai_gateway.stream", true));
        }
        if let Some(code) = trace.error_code {
            attributes.push(KeyValue::new("error.type", code));
        }
        span.set_attributes(attributes);
        if trace.status >= 500 {
            span.set_status(Status::error(trace.error_code.unwrap_or("server_error")));
        }
        span.end();
    }
}
