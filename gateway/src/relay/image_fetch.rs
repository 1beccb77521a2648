//! Image URLs a client sent, fetched through the operator's worker (`WorkerUrl`,
//! `WorkerValidKey`) for the protocols that take images inline only (Gemini, Bedrock Converse,
//! Ollama). The gateway never fetches a client's URL itself: that would let anyone make it
//! call addresses inside the cluster. Without a worker, such URLs go as they are (Gemini's
//! `fileData`) or are refused by the protocol's encoder.
//!
//! The worker is called as `POST {WorkerUrl}` with `{"url": …, "key": WorkerValidKey}` and
//! answers with the image's bytes and content type.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use http::{HeaderValue, Method, Request};

use crate::config::{ImageWorker, Options};
use crate::error::{GatewayError, RequestError, UpstreamError};
use crate::upstream::{Chunks, Upstream};
use adapters::ir::{ImageSource, Part, Request as IrRequest};
use adapters::provider::Protocol;

/// Largest image fetched.
const MAX_IMAGE_BYTES: usize = 16 << 20;
/// Most images fetched for one request.
const MAX_IMAGES: usize = 16;
/// How long the worker may take for one image (to its first byte, and between chunks).
const FETCH_TIMEOUT: Duration = Duration::from_secs(15);

/// Whether `protocol` needs image bytes rather than URLs.
pub fn needs_inline(protocol: Protocol) -> bool {
    matches!(
        protocol,
        Protocol::Gemini | Protocol::Converse | Protocol::Ollama
    )
}

fn is_web_url(url: &str) -> bool {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// The request's images given by web URL (message content and tool results).
fn url_images(req: &mut IrRequest) -> Vec<&mut ImageSource> {
    let mut out = Vec::new();
    for message in &mut req.messages {
        for part in &mut message.content {
            match part {
                Part::Image(src) => out.push(src),
                Part::ToolResult { content, .. } => {
                    for inner in content {
                        if let Part::Image(src) = inner {
                            out.push(src);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out.retain(|src| matches!(src, ImageSource::Url(u) if is_web_url(u)));
    out
}

/// Replaces the request's web image URLs by their bytes, fetched through the worker, when a
/// worker is configured and `protocol` takes images inline only.
pub async fn inline_images(
    upstream: &Upstream,
    opts: &Options,
    protocol: Protocol,
    req: &mut IrRequest,
) -> Result<(), GatewayError> {
    let Some(worker) = opts.image_worker.as_deref() else {
        return Ok(());
    };
    if !needs_inline(protocol) {
        return Ok(());
    }
    let images = url_images(req);
    if images.len() > MAX_IMAGES {
        return Err(RequestError::InvalidRequest(format!(
            "at most {MAX_IMAGES} image URLs can be fetched for one request"
        ))
        .into());
    }
    for src in images {
        let ImageSource::Url(url) = &*src else {
            continue;
        };
        let (media_type, bytes) = fetch(upstream, worker, url).await?;
        *src = ImageSource::Base64 {
            media_type,
            data: STANDARD.encode(&bytes),
        };
    }
    Ok(())
}

/// One image through the worker: its media type and bytes.
async fn fetch(
    upstream: &Upstream,
    worker: &ImageWorker,
    url: &str,
) -> Result<(String, Bytes), GatewayError> {
    let failed = |why: String| -> GatewayError {
        RequestError::InvalidRequest(format!("the image at {url} could not be fetched: {why}"))
            .into()
    };
    let body = serde_json::json!({"url": url, "key": worker.key.0}).to_string();
    let mut request = Request::builder()
        .method(Method::POST)
        .uri(&worker.url)
        .body(Chunks::from(Bytes::from(body)))
        .map_err(|_| {
            GatewayError::Upstream(UpstreamError::Build("WorkerUrl is not a URL".into()))
        })?;
    request.headers_mut().insert(
        http::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    let response = upstream
        .send_via(None, request, FETCH_TIMEOUT)
        .await
        .map_err(|e| failed(e.to_string()))?;
    let status = response.status().as_u16();
    let media_type = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.split(';').next().unwrap_or(v).trim().to_ascii_lowercase())
        .unwrap_or_default();
    let mut body = response.into_body();
    let bytes = super::read_upstream(&mut body, MAX_IMAGE_BYTES, FETCH_TIMEOUT)
        .await
        .map_err(|e| failed(e.to_string()))?;
    if !(200..300).contains(&status) {
        return Err(failed(format!("the worker answered {status}")));
    }
    if !media_type.starts_with("image/") {
        return Err(failed(format!("not an image ({media_type:?})")));
    }
    Ok((media_type, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use adapters::ir::{Message, Role};

    #[test]
    fn only_web_urls_are_fetched() {
        let mut req = IrRequest {
            messages: vec![Message {
                role: Role::User,
                content: vec![
                    Part::Image(ImageSource::Url("https://x/a.png".into())),
                    Part::Image(ImageSource::Url("data:image/png;base64,AAAA".into())),
                    Part::Image(ImageSource::Url("gs://bucket/b.png".into())),
                    Part::Image(ImageSource::Base64 {
                        media_type: "image/png".into(),
                        data: "AAAA".into(),
                    }),
                    Part::ToolResult {
                        call_id: "c".into(),
                        name: None,
                        content: vec![Part::Image(ImageSource::Url("HTTP://y/c.jpg".into()))],
                        is_error: false,
                    },
                ],
            }],
            ..IrRequest::default()
        };
        assert_eq!(url_images(&mut req).len(), 2);
        assert!(needs_inline(Protocol::Gemini) && !needs_inline(Protocol::Anthropic));
        let worker = ImageWorker {
            url: "https://worker.example".into(),
            key: crate::config::Secret("worker-secret".into()),
        };
        assert!(!format!("{worker:?}").contains("worker-secret"));
    }
}
