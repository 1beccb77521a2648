//! Traces over OTLP: a control plane and a gateway export to an OTLP/HTTP (protobuf) receiver
//! of the test's own. A chat call that carries a client's `traceparent` yields the gateway's
//! request span (a child of the client's, with the GenAI attributes) and an attempt span whose
//! `traceparent` the mock upstream received; the control plane's spans cover its REST
//! handlers, the usage batch and the config push. A gateway exporting over gRPC reaches an
//! OTLP/gRPC receiver; one whose collector never answers still serves every call.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use common::system::{CHILD_ENV, Gateway, System, send_json};
use http_body_util::{BodyExt, Full};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use prost::Message;
use serde_json::{Value, json};

/// A span as received, with its resource's `service.name`.
#[derive(Clone)]
struct Received {
    service: String,
    span: Span,
}

impl Received {
    fn attr(&self, key: &str) -> Option<Any> {
        self.span
            .attributes
            .iter()
            .find(|kv| kv.key == key)
            .and_then(|kv| kv.value.clone()?.value)
    }

    fn str_attr(&self, key: &str) -> Option<String> {
        match self.attr(key)? {
            Any::StringValue(s) => Some(s),
            _ => None,
        }
    }

    fn int_attr(&self, key: &str) -> Option<i64> {
        match self.attr(key)? {
            Any::IntValue(n) => Some(n),
            _ => None,
        }
    }
}

type Spans = Arc<Mutex<Vec<Received>>>;

/// Keeps the spans of an export request.
fn keep(store: &Spans, export: ExportTraceServiceRequest) {
    let mut got = store.lock().unwrap();
    for rs in export.resource_spans {
        let service = rs
            .resource
            .iter()
            .flat_map(|r| r.attributes.iter())
            .find(|kv| kv.key == "service.name")
            .and_then(|kv| match kv.value.clone()?.value? {
                Any::StringValue(s) => Some(s),
                _ => None,
            })
            .unwrap_or_default();
        for ss in rs.scope_spans {
            for span in ss.spans {
                got.push(Received {
                    service: service.clone(),
                    span,
                });
            }
        }
    }
}

/// An OTLP/gRPC receiver.
struct GrpcReceiver(Spans);

#[tonic::async_trait]
impl TraceService for GrpcReceiver {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        keep(&self.0, request.into_inner());
        Ok(tonic::Response::new(ExportTraceServiceResponse::default()))
    }
}

async fn grpc_receiver() -> (SocketAddr, Spans) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let spans: Spans = Arc::default();
    let service = TraceServiceServer::new(GrpcReceiver(spans.clone()));
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(service)
            .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener)),
    );
    (addr, spans)
}

/// An OTLP/HTTP receiver: `POST /v1/traces` with a protobuf body, answered 200.
async fn receiver() -> (SocketAddr, Spans) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let spans: Spans = Arc::default();
    let store = spans.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let store = store.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                    let store = store.clone();
                    async move {
                        let path = req.uri().path().to_owned();
                        let body = req.into_body().collect().await?.to_bytes();
                        if path == "/v1/traces"
                            && let Ok(export) = ExportTraceServiceRequest::decode(body)
                        {
                            keep(&store, export);
                        }
                        let answer = ExportTraceServiceResponse::default().encode_to_vec();
                        Ok::<_, hyper::Error>(
                            hyper::Response::builder()
                                .header("content-type", "application/x-protobuf")
                                .body(Full::new(Bytes::from(answer)))
                                .unwrap(),
                        )
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    (addr, spans)
}

/// Waits until a received span satisfies `ok`.
async fn span_where(spans: &Spans, what: &str, ok: impl Fn(&Received) -> bool) -> Received {
    let start = Instant::now();
    loop {
        if let Some(found) = spans.lock().unwrap().iter().find(|r| ok(r)) {
            return found.clone();
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no span {what}; received: {:?}",
            spans
                .lock()
                .unwrap()
                .iter()
                .map(|r| format!("{}:{}", r.service, r.span.name))
                .collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN: &str = "00f067aa0ba902b7";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_planes_export_spans_over_otlp() {
    let (addr, spans) = receiver().await;
    CHILD_ENV
        .set(vec![
            (
                "OTEL_EXPORTER_OTLP_ENDPOINT".to_owned(),
                format!("http://{addr}"),
            ),
            ("OTEL_BSP_SCHEDULE_DELAY".to_owned(), "100".to_owned()),
        ])
        .unwrap();
    let sys = System::start(false).await.unwrap();
    let gw = Gateway::start(&sys.cp, &sys.dir.path().join("gw"), "gw-traced").await;

    let traceparent = format!("00-{TRACE}-{CLIENT_SPAN}-01");
    let reply = send_json(
        "POST",
        &format!("http://{}/v1/chat/completions", gw.addr),
        &[
            ("authorization", &format!("Bearer {}", sys.key)),
            ("traceparent", &traceparent),
        ],
        json!({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hello"}]}),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text());

    // The gateway's request span: a child of the client's, with the GenAI attributes.
    let server = span_where(&spans, "chat gpt-4o-mini (gateway)", |r| {
        r.service == "ai-gateway"
            && r.span.name == "chat gpt-4o-mini"
            && r.span.kind == SpanKind::Server as i32
    })
    .await;
    assert_eq!(hex(&server.span.trace_id), TRACE);
    assert_eq!(hex(&server.span.parent_span_id), CLIENT_SPAN);
    assert_eq!(server.span.kind, SpanKind::Server as i32);
    assert_eq!(
        server.str_attr("gen_ai.operation.name").as_deref(),
        Some("chat")
    );
    assert_eq!(
        server.str_attr("gen_ai.request.model").as_deref(),
        Some("gpt-4o-mini")
    );
    assert!(
        server
            .str_attr("gen_ai.response.model")
            .is_some_and(|m| !m.is_empty())
    );
    assert!(
        server
            .str_attr("gen_ai.provider.name")
            .is_some_and(|p| !p.is_empty())
    );
    assert!(
        server
            .int_attr("gen_ai.usage.input_tokens")
            .is_some_and(|n| n > 0)
    );
    assert!(
        server
            .int_attr("gen_ai.usage.output_tokens")
            .is_some_and(|n| n > 0)
    );
    assert_eq!(server.int_attr("http.response.status_code"), Some(200));

    // Its attempt: a client span under it, whose traceparent the upstream received.
    let attempt = span_where(&spans, "attempt (gateway)", |r| {
        r.service == "ai-gateway" && r.span.parent_span_id == server.span.span_id
    })
    .await;
    assert_eq!(attempt.span.kind, SpanKind::Client as i32);
    assert_eq!(hex(&attempt.span.trace_id), TRACE);
    assert!(
        attempt.span.name.starts_with("chat "),
        "{}",
        attempt.span.name
    );
    let upstream = sys
        .mock
        .with_stats(|s| s.requests.iter().rev().find_map(|r| r.traceparent.clone()));
    assert_eq!(
        upstream,
        Some(format!("00-{TRACE}-{}-01", hex(&attempt.span.span_id)))
    );

    // The control plane: a REST handler (child of the caller's trace), the usage batch the
    // call produced, and the config pushed to the gateway.
    let status = send_json(
        "GET",
        &format!("{}/api/status", sys.cp.url()),
        &[("traceparent", &traceparent)],
        Value::Null,
    )
    .await;
    assert_eq!(status.status, 200);
    let rest = span_where(&spans, "GET /api/status (control plane)", |r| {
        r.service == "ai-gateway-control-plane" && r.span.name == "GET /api/status"
    })
    .await;
    assert_eq!(hex(&rest.span.parent_span_id), CLIENT_SPAN);
    assert_eq!(rest.str_attr("http.route").as_deref(), Some("/api/status"));
    let ingest = span_where(&spans, "usage.ingest", |r| r.span.name == "usage.ingest").await;
    assert_eq!(ingest.service, "ai-gateway-control-plane");
    assert!(
        ingest
            .int_attr("ai_gateway.batch.records")
            .is_some_and(|n| n >= 1)
    );
    let push = span_where(&spans, "config.push", |r| r.span.name == "config.push").await;
    assert_eq!(
        push.str_attr("ai_gateway.gateway.id").as_deref(),
        Some("gw-traced")
    );

    // Over gRPC (OTEL_EXPORTER_OTLP_PROTOCOL=grpc) to a receiver of its own.
    let (grpc_addr, grpc_spans) = grpc_receiver().await;
    let endpoint = format!("http://{grpc_addr}");
    let grpc_gw = Gateway::start_with_env(
        &sys.cp,
        &sys.dir.path().join("gw-grpc"),
        "gw-grpc",
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
        ],
    )
    .await;
    let reply = grpc_gw.chat(&sys.key, "gpt-4o-mini").await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let over_grpc = span_where(&grpc_spans, "chat gpt-4o-mini over gRPC", |r| {
        r.span.name == "chat gpt-4o-mini" && r.span.kind == SpanKind::Server as i32
    })
    .await;
    assert_eq!(over_grpc.service, "ai-gateway");

    // A collector that accepts connections and never answers: every call is still served.
    let black_hole = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let hole = format!("http://{}", black_hole.local_addr().unwrap());
    let held = Arc::new(Mutex::new(Vec::new()));
    let keep_open = held.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = black_hole.accept().await {
            keep_open.lock().unwrap().push(stream);
        }
    });
    let stuck_gw = Gateway::start_with_env(
        &sys.cp,
        &sys.dir.path().join("gw-stuck"),
        "gw-stuck",
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", &hole),
            ("OTEL_BSP_MAX_QUEUE_SIZE", "8"),
        ],
    )
    .await;
    for _ in 0..30 {
        let reply = stuck_gw.chat(&sys.key, "gpt-4o-mini").await;
        assert_eq!(reply.status, 200, "{}", reply.text());
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
