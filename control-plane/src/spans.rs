//! The control plane's OpenTelemetry spans, made only while traces are exported: one per REST
//! request (named by its route template; a caller's `traceparent` makes it a child), one per
//! usage batch ingested and one per config message pushed to a gateway.

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use telemetry::{
    Context, KeyValue, SdkSpan, Span as _, SpanBuilder, SpanKind, Status, TraceContextExt,
    Tracer as _,
};

use crate::state::AppState;

/// A span under way, or nothing while traces are not exported.
pub struct Recorded(Option<SdkSpan>);

impl Recorded {
    /// Starts an internal span named `name`; `attributes` are built only when it is recorded.
    pub fn start(
        state: &AppState,
        name: &'static str,
        attributes: impl FnOnce() -> Vec<KeyValue>,
    ) -> Self {
        Recorded(state.tracer().map(|tracer| {
            tracer.build_with_context(
                SpanBuilder::from_name(name)
                    .with_kind(SpanKind::Internal)
                    .with_attributes(attributes()),
                &Context::new(),
            )
        }))
    }

    /// Adds attributes (built only when recorded).
    pub fn record(&mut self, attributes: impl FnOnce() -> Vec<KeyValue>) {
        if let Some(span) = &mut self.0 {
            span.set_attributes(attributes());
        }
    }

    /// Marks the span failed with `reason`.
    pub fn fail(&mut self, reason: &'static str) {
        if let Some(span) = &mut self.0 {
            span.set_attribute(KeyValue::new("error.type", reason));
            span.set_status(Status::error(reason));
        }
    }

    pub fn end(self) {
        if let Some(mut span) = self.0 {
            span.end();
        }
    }
}

/// A server span per REST request: `{method} {route template}` (`other` when no route
/// matched), with its status.
pub async fn trace_requests(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let Some(tracer) = state.tracer() else {
        return next.run(request).await;
    };
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "other".to_owned(), |p| p.as_str().to_owned());
    let method = request.method().as_str().to_owned();
    let parent = match telemetry::remote_parent(request.headers()) {
        Some(remote) => Context::new().with_remote_span_context(remote),
        None => Context::new(),
    };
    let mut span = tracer.build_with_context(
        SpanBuilder::from_name(format!("{method} {route}"))
            .with_kind(SpanKind::Server)
            .with_attributes([
                KeyValue::new("http.request.method", method),
                KeyValue::new("http.route", route),
                KeyValue::new("url.path", request.uri().path().to_owned()),
            ]),
        &parent,
    );
    let response = next.run(request).await;
    let status = response.status().as_u16();
    span.set_attribute(KeyValue::new(
        "http.response.status_code",
        i64::from(status),
    ));
    if status >= 500 {
        span.set_status(Status::error("server_error"));
    }
    span.end();
    response
}
