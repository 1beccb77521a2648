//! The relay: one thin `ProxyHttp` whose `request_filter` answers every request itself
//! (whole body read with our own cap, upstream spoken to by our client, answer written with
//! `write_response_*`), so pingora's 64 KiB replay buffer is never involved. The console and
//! `/api` (an allow list, see [`forward`]) can be proxied as they are to the control plane,
//! so one port serves clients and the console; nothing else of the control plane is reachable.

mod admission;
mod answer_check;
mod billing_api;
mod body;
mod cloud;
mod convert;
mod cork;
mod cors;
mod dialect;
mod forward;
mod image_fetch;
mod job;
mod media;
mod overrides;
mod post;
mod record;
mod respond;
mod shape;
mod spans;
mod sse;
mod task_relay;

pub use cors::CorsOrigins;
pub use post::read_upstream;
pub use record::Trace;
pub use respond::REQUEST_ID_HEADER;

use std::net::SocketAddr;
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use pingora::http::RequestHeader;
use pingora::prelude::HttpPeer;
use pingora::proxy::{ProxyHttp, Session};
use pingora::{Error, ErrorType};
use serde_json::json;

use crate::config::Snapshot;
use crate::edge;
use crate::error::{GatewayError, RequestError};
use crate::state::GatewayState;
use adapters::claude;
use adapters::convert::Dialect;
use adapters::gemini;
use dialect::Call;

/// Largest unread request body drained (rather than closing the connection) after an error.
const DRAIN_LIMIT: usize = 64 << 10;

/// Why handling stopped early.
#[derive(Debug)]
pub enum Failure {
    /// Answer the client with this error.
    Gateway(GatewayError),
    /// The client connection failed while writing; nothing more can be sent.
    Client(Box<Error>),
}

impl<E: Into<GatewayError>> From<E> for Failure {
    fn from(e: E) -> Self {
        Failure::Gateway(e.into())
    }
}

/// The gateway's `ProxyHttp`.
pub struct Relay {
    pub state: Arc<GatewayState>,
    /// Where non-relay paths go (the control plane), when set; otherwise they get a 404.
    pub forward_to: Option<SocketAddr>,
    /// Browser origins allowed on the relay paths.
    pub cors: CorsOrigins,
    /// Proxies whose `X-Forwarded-For` names the client.
    pub trusted_proxies: edge::TrustedProxies,
}

/// Per-request context.
pub struct Ctx {
    /// Boxed: pingora moves the context (and the futures holding it) on every request, and a
    /// pointer moves cheaper than the whole record.
    trace: Option<Box<Trace>>,
    /// The request is proxied to `forward_to` as it is.
    forward: bool,
}

/// Whether a path belongs to the relay (OpenAI `/v1…`, Gemini `/v1beta…`).
fn is_relay_path(path: &str) -> bool {
    path == "/v1"
        || path.starts_with("/v1/")
        || path.starts_with("/v1beta")
        || path.trim_end_matches('/') == edge::playground::PATH
        || billing_api::serves(path)
        || task_relay::serves(path)
}

#[async_trait]
impl ProxyHttp for Relay {
    type CTX = Ctx;

    fn new_ctx(&self) -> Ctx {
        Ctx {
            trace: Some(Box::new(Trace::new())),
            forward: false,
        }
    }

    async fn upstream_peer(
        &self,
        _session: &mut Session,
        ctx: &mut Ctx,
    ) -> pingora::Result<Box<HttpPeer>> {
        match self.forward_to {
            Some(addr) if ctx.forward => Ok(Box::new(HttpPeer::new(addr, false, String::new()))),
            _ => Err(Error::explain(
                ErrorType::InternalError,
                "the relay answers every request in request_filter",
            )),
        }
    }

    async fn upstream_request_filter(
        &self,
        session: &mut Session,
        upstream_request: &mut RequestHeader,
        _ctx: &mut Ctx,
    ) -> pingora::Result<()> {
        // The control plane reads X-Forwarded-For from the right, past the proxies it trusts
        // (this gateway among them): the real peer is appended, whatever the client sent.
        // X-Forwarded-Proto is the client's own only when a trusted proxy set it.
        let peer = session
            .client_addr()
            .and_then(|a| a.as_inet())
            .map(|a| a.ip());
        if !peer.is_some_and(|p| self.trusted_proxies.trusts(p)) {
            upstream_request.insert_header("x-forwarded-proto", "http")?;
        }
        if let Some(ip) = peer {
            let value = match upstream_request
                .headers
                .get("x-forwarded-for")
                .and_then(|v| v.to_str().ok())
            {
                Some(before) => format!("{before}, {ip}"),
                None => ip.to_string(),
            };
            upstream_request.insert_header("x-forwarded-for", value)?;
        }
        Ok(())
    }

    async fn request_filter(&self, session: &mut Session, ctx: &mut Ctx) -> pingora::Result<bool> {
        let req = session.req_header();
        if self.forward_to.is_some()
            && !is_relay_path(req.uri.path())
            && forward::allowed(&req.method, req.uri.path(), &req.headers)
        {
            ctx.forward = true;
            return Ok(false);
        }
        if req.method == http::Method::OPTIONS && is_relay_path(req.uri.path()) {
            // A browser's preflight: answered here, before (and without) authentication.
            let headers = match self.cors.allow(&req.headers) {
                Some(origin) => cors::preflight_headers(&origin, &req.headers),
                None => vec![("allow", "GET, POST, OPTIONS".to_owned())],
            };
            if let Err(e) = respond::send_preflight(session, &headers).await {
                tracing::debug!(error = %e, "cannot answer a preflight");
            }
            return Ok(true);
        }
        let _in_flight = crate::state::InFlight::enter(&self.state.in_flight);
        let mut trace = ctx.trace.take().unwrap_or_default();
        trace.cors_origin = self.cors.allow(&session.req_header().headers);
        if let Some(tracer) = self.state.tracer.get() {
            let req = session.req_header();
            trace.span = Some(spans::RequestSpan::begin(
                tracer,
                &req.method,
                &req.headers,
                req.uri.path(),
            ));
        }
        let snap = self.state.config.load();
        let result = self.dispatch(session, &snap, &mut trace).await;
        if let Err(failure) = result {
            self.answer_failure(session, &mut trace, failure).await;
        }
        (*trace).finish(&self.state);
        Ok(true)
    }
}

impl Relay {
    async fn dispatch(
        &self,
        session: &mut Session,
        snap: &Snapshot,
        trace: &mut Trace,
    ) -> Result<(), Failure> {
        let req = session.req_header();
        let path = req.uri.path().to_owned();
        trace.dialect = dialect::error_dialect(&path);
        trace.playground = path.trim_end_matches('/') == edge::playground::PATH
            && self.forward_to.is_some()
            && req.method == http::Method::POST;
        let call = if trace.playground {
            Some(Call::OpenAi(adapters::openai::Endpoint::ChatCompletions))
        } else {
            dialect::recognise(&req.method, &path, req.uri.query(), &req.headers)
        };
        let Some(call) = call else {
            return Err(RequestError::NotFound {
                method: req.method.to_string(),
                path,
            }
            .into());
        };
        trace.endpoint = call.label();
        match call {
            Call::ListModels { id, dialect } => {
                trace.dialect = dialect;
                self.models(session, snap, trace, id.as_deref(), dialect)
                    .await
            }
            Call::GeminiModels { id } => {
                trace.dialect = Dialect::Gemini;
                self.models(session, snap, trace, id.as_deref(), Dialect::Gemini)
                    .await
            }
            Call::CountTokens => self.count_tokens(session, snap, trace).await,
            // The other calls' futures are boxed: the chat path's future, built and moved on
            // every request, stays the size of its own states.
            Call::Media(kind) => Box::pin(media::relay(self, session, snap, trace, kind)).await,
            Call::NotImplemented => {
                Box::pin(media::answer_not_implemented(self, session, snap, trace)).await
            }
            Call::Billing(info) => {
                Box::pin(billing_api::answer(self, session, snap, trace, info)).await
            }
            Call::Task(call) => Box::pin(task_relay::relay(self, session, snap, trace, call)).await,
            call => post::relay(self, session, snap, trace, &call).await,
        }
    }

    /// `POST /v1/messages/count_tokens`: counted here, nothing is relayed or billed.
    async fn count_tokens(
        &self,
        session: &mut Session,
        snap: &Snapshot,
        trace: &mut Trace,
    ) -> Result<(), Failure> {
        self.authenticate(session, snap, trace)?;
        let body = post::read_json_body(session, snap, trace).await?;
        let req = claude::decode_count_tokens(&body).map_err(GatewayError::from)?;
        trace.model = req.model.clone();
        let count = job::prompt_estimate(&req);
        let body = claude::count_tokens_body(count).to_string();
        respond::send_full(session, 200, "application/json", trace, Bytes::from(body))
            .await
            .map_err(Failure::Client)
    }

    /// Authenticates from the request's key, client address and the current time.
    fn authenticate(
        &self,
        session: &Session,
        snap: &Snapshot,
        trace: &mut Trace,
    ) -> Result<edge::Caller, Failure> {
        let req = session.req_header();
        let key = edge::extract_key(&req.headers, req.uri.query());
        let ip = session.client_addr().and_then(|a| a.as_inet()).map(|a| {
            self.trusted_proxies
                .client_ip(a.ip(), edge::forwarded_for(&req.headers))
        });
        trace.client_ip = ip;
        let caller = edge::authenticate(snap, key, ip, trace.created_at)?;
        trace.caller = Some(caller.clone());
        Ok(caller)
    }

    /// The user of the console session a playground request carries (asked of the control
    /// plane this gateway forwards the console to).
    async fn playground_user(&self, session: &Session, trace: &mut Trace) -> Result<i64, Failure> {
        let req = session.req_header();
        let ip = session.client_addr().and_then(|a| a.as_inet()).map(|a| {
            self.trusted_proxies
                .client_ip(a.ip(), edge::forwarded_for(&req.headers))
        });
        trace.client_ip = ip;
        let control_plane = self.forward_to.ok_or(GatewayError::Auth(
            crate::error::AuthError::SessionUnchecked,
        ))?;
        Ok(
            edge::playground::session_user(&self.state.upstream, control_plane, &req.headers, ip)
                .await
                .map_err(GatewayError::from)?,
        )
    }

    async fn models(
        &self,
        session: &mut Session,
        snap: &Snapshot,
        trace: &mut Trace,
        id: Option<&str>,
        dialect: Dialect,
    ) -> Result<(), Failure> {
        trace.body_read = true;
        let caller = self.authenticate(session, snap, trace)?;
        let allowed = |m: &str| edge::check_model(&caller, m).is_ok();
        let entry = |m: &str| {
            let owner = snap
                .tiers(&caller.group, m)
                .first()
                .and_then(|t| t.channels.first())
                .map_or("custom", |c| c.spec.name);
            json!({"id": m, "object": "model", "created": 1_626_777_600, "owned_by": owner})
        };
        // Gemini names models "models/{id}".
        let id = id.map(|i| i.strip_prefix("models/").unwrap_or(i));
        let body = match id {
            Some(id) => {
                if id.is_empty() || !allowed(id) || snap.tiers(&caller.group, id).is_empty() {
                    return Err(RequestError::UnknownModel(id.to_owned()).into());
                }
                match dialect {
                    Dialect::Claude => {
                        claude::anthropic_model_list(&[id.to_owned()])["data"][0].clone()
                    }
                    Dialect::Gemini => gemini::model_list(&[id.to_owned()])["models"][0].clone(),
                    Dialect::OpenAi | Dialect::Responses => entry(id),
                }
            }
            None => {
                let mut names: Vec<&str> = snap
                    .routes
                    .get(&caller.group)
                    .map(|m| {
                        m.keys()
                            .map(String::as_str)
                            .filter(|m| allowed(m))
                            .collect()
                    })
                    .unwrap_or_default();
                names.sort_unstable();
                let owned = || names.iter().map(|m| (*m).to_owned()).collect::<Vec<_>>();
                match dialect {
                    Dialect::Claude => claude::anthropic_model_list(&owned()),
                    Dialect::Gemini => gemini::model_list(&owned()),
                    Dialect::OpenAi | Dialect::Responses => {
                        json!({"object": "list", "data": names.iter().map(|m| entry(m)).collect::<Vec<_>>()})
                    }
                }
            }
        };
        respond::send_full(
            session,
            200,
            "application/json",
            trace,
            Bytes::from(body.to_string()),
        )
        .await
        .map_err(Failure::Client)
    }

    async fn answer_failure(&self, session: &mut Session, trace: &mut Trace, failure: Failure) {
        let err = match failure {
            Failure::Client(e) => {
                // nginx's convention for "client closed the request".
                trace.status = 499;
                trace.error_code = Some("client_gone");
                trace.client_gone = true;
                trace
                    .error
                    .get_or_insert_with(|| format!("client connection failed: {e}"));
                return;
            }
            Failure::Gateway(err) => err,
        };
        let err = match err {
            GatewayError::Upstream(e) if self.state.config.load().options.hide_upstream_error => {
                GatewayError::Upstream(e.hidden())
            }
            other => other,
        };
        let mut status = err.status();
        if let (GatewayError::Upstream(_), Some(ch)) = (&err, &trace.channel)
            && let Some(mapped) = ch.status_code_mapping.get(&status)
        {
            status = *mapped;
        }
        trace.status = status;
        trace.error_code = Some(err.code());
        trace.error = Some(err.to_string());
        if !trace.body_read {
            // Small unread bodies are drained so the connection stays reusable; otherwise
            // (large, unknown or failing) the connection is closed after the answer.
            let small = session
                .req_header()
                .headers
                .get(http::header::CONTENT_LENGTH)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<usize>().ok())
                .is_some_and(|n| n <= DRAIN_LIMIT);
            if !small || session.drain_request_body().await.is_err() {
                session.set_keepalive(None);
            }
        }
        let body = match trace.endpoint {
            e if e.starts_with("mj_") => err.task_body(true, status, &trace.request_id),
            e if e.starts_with("suno_") => err.task_body(false, status, &trace.request_id),
            _ => err.body_in(trace.dialect, status, &trace.request_id),
        };
        let extra = err.headers();
        if let Err(e) = respond::send_error(session, status, trace, body, &extra).await {
            trace.client_gone = true;
            tracing::debug!(request_id = trace.request_id, error = %e, "cannot write error answer");
        }
    }
}
