//! OpenTelemetry traces of both planes: an OTLP exporter set up from the standard `OTEL_*`
//! variables (gRPC, HTTP/protobuf or HTTP/JSON, when an endpoint is given; nothing otherwise),
//! flushed at shutdown, and the W3C Trace Context headers (`traceparent`, `tracestate`) read
//! from clients and written to upstreams. The SDK's batch processor exports from a thread of
//! its own through a bounded queue: when the collector is slow or gone, spans are dropped,
//! never waited for.

mod context;
pub use context::{inject, remote_parent};
pub use opentelemetry::trace::{Span, SpanKind, Status, Tracer};
pub use opentelemetry::{Context, KeyValue, trace::SpanBuilder, trace::TraceContextExt};
pub use opentelemetry_sdk::trace::{SdkTracer, Span as SdkSpan};

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, SpanExporter, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;

/// How spans leave the process, as the environment asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Export {
    Off,
    Grpc,
    HttpProtobuf,
    HttpJson,
}

/// Reads the OpenTelemetry environment variables (through `env`): exporting needs an OTLP
/// endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) and is
/// off with `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`. The protocol defaults to
/// `http/protobuf`, as the specification says.
pub fn export_from(env: impl Fn(&str) -> Option<String>) -> Result<Export, String> {
    let set = |key: &str| env(key).filter(|v| !v.trim().is_empty());
    if set("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
        return Ok(Export::Off);
    }
    if let Some(exporters) = set("OTEL_TRACES_EXPORTER") {
        let names: Vec<&str> = exporters.split(',').map(str::trim).collect();
        if names.iter().all(|n| *n == "none") {
            return Ok(Export::Off);
        }
        if !names.contains(&"otlp") {
            return Err(format!(
                "OTEL_TRACES_EXPORTER={exporters}: only otlp (or none) is supported"
            ));
        }
    }
    if set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").is_none()
        && set("OTEL_EXPORTER_OTLP_ENDPOINT").is_none()
    {
        return Ok(Export::Off);
    }
    let protocol = set("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
        .or_else(|| set("OTEL_EXPORTER_OTLP_PROTOCOL"))
        .unwrap_or_else(|| "http/protobuf".to_owned());
    match protocol.trim() {
        "grpc" => Ok(Export::Grpc),
        "http/protobuf" => Ok(Export::HttpProtobuf),
        "http/json" => Ok(Export::HttpJson),
        other => Err(format!(
            "OTEL_EXPORTER_OTLP_PROTOCOL={other}: expected grpc, http/protobuf or http/json"
        )),
    }
}

/// The span exporter of a running process.
pub struct Tracing {
    provider: SdkTracerProvider,
    tracer: SdkTracer,
}

impl std::fmt::Debug for Tracing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tracing").finish_non_exhaustive()
    }
}

impl Tracing {
    /// From the process environment; `None` when no OTLP endpoint is set. The exporter reads
    /// its endpoint, headers and timeout from the same variables. A gRPC exporter lives on
    /// `runtime`, which must outlive the returned value. `service` is the default
    /// `service.name` (`OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` win).
    pub fn from_env(
        service: &'static str,
        runtime: &tokio::runtime::Handle,
    ) -> Result<Option<Tracing>, String> {
        let export = export_from(|key| std::env::var(key).ok())?;
        // The HTTP client's TLS uses the process's provider.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let exporter = match export {
            Export::Off => return Ok(None),
            Export::Grpc => {
                let _entered = runtime.enter();
                SpanExporter::builder().with_tonic().build()
            }
            Export::HttpProtobuf => SpanExporter::builder()
                .with_http()
                .with_protocol(Protocol::HttpBinary)
                .build(),
            Export::HttpJson => SpanExporter::builder()
                .with_http()
                .with_protocol(Protocol::HttpJson)
                .build(),
        }
        .map_err(|e| format!("OTLP exporter: {e}"))?;
        let named = std::env::var("OTEL_SERVICE_NAME").is_ok_and(|v| !v.is_empty())
            || std::env::var("OTEL_RESOURCE_ATTRIBUTES").is_ok_and(|v| v.contains("service.name="));
        let resource = if named {
            Resource::builder().build()
        } else {
            Resource::builder().with_service_name(service).build()
        };
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(resource)
            .build();
        let tracer = provider.tracer(service);
        tracing::info!(?export, "exporting traces over OTLP");
        Ok(Some(Tracing { provider, tracer }))
    }

    pub fn tracer(&self) -> &SdkTracer {
        &self.tracer
    }

    /// Exports what is queued and stops (at shutdown).
    pub fn shutdown(&self) {
        if let Err(e) = self.provider.shutdown() {
            tracing::warn!(error = %e, "flushing traces at shutdown failed");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn export(vars: &[(&str, &str)]) -> Result<Export, String> {
        export_from(|key| {
            vars.iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    #[test]
    fn only_an_endpoint_turns_export_on() {
        assert_eq!(export(&[]), Ok(Export::Off));
        let endpoint = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318");
        assert_eq!(export(&[endpoint]), Ok(Export::HttpProtobuf));
        assert_eq!(
            export(&[endpoint, ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")]),
            Ok(Export::Grpc)
        );
        assert_eq!(
            export(&[
                (
                    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                    "http://c:4318/v1/traces"
                ),
                ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
                ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/json"),
            ]),
            Ok(Export::HttpJson)
        );
        assert_eq!(
            export(&[endpoint, ("OTEL_SDK_DISABLED", "true")]),
            Ok(Export::Off)
        );
        assert_eq!(
            export(&[endpoint, ("OTEL_TRACES_EXPORTER", "none")]),
            Ok(Export::Off)
        );
        assert!(export(&[endpoint, ("OTEL_TRACES_EXPORTER", "zipkin")]).is_err());
        assert!(export(&[endpoint, ("OTEL_EXPORTER_OTLP_PROTOCOL", "udp")]).is_err());
    }
}
