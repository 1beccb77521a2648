//! Request extractors that reject in the envelope: JSON bodies, queries, the client's address
//! and language.

use adapters::client_ip::TrustedProxies;
use std::net::{IpAddr, SocketAddr};

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{ConnectInfo, FromRequest, FromRequestParts, Query, Request};
use axum::http::header;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use crate::error::ApiError;
use crate::i18n::{Lang, Msg};

/// A JSON body; malformed input is a 400 in the envelope.
pub struct ApiJson<T>(pub T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match axum::Json::<T>::from_request(req, state).await {
            Ok(axum::Json(value)) => Ok(ApiJson(value)),
            Err(rejection) => Err(ApiError::BadRequest(Msg::InvalidJsonBody {
                detail: json_rejection_detail(&rejection),
            })),
        }
    }
}

fn json_rejection_detail(rejection: &JsonRejection) -> String {
    rejection.body_text().chars().take(200).collect()
}

/// A query string; malformed input is a 400 in the envelope.
pub struct ApiQuery<T>(pub T);

impl<S, T> FromRequestParts<S> for ApiQuery<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match Query::<T>::from_request_parts(parts, state).await {
            Ok(Query(value)) => Ok(ApiQuery(value)),
            Err(rejection) => Err(ApiError::BadRequest(Msg::InvalidQuery {
                detail: query_rejection_detail(&rejection),
            })),
        }
    }
}

fn query_rejection_detail(rejection: &QueryRejection) -> String {
    rejection.body_text().chars().take(200).collect()
}

/// The client's address: the TCP peer, or, when the peer is a trusted proxy
/// (`--trusted-proxies`), the first address in `X-Forwarded-For`, read from the right, that is
/// not a trusted proxy.
#[derive(Debug, Clone, Copy)]
pub struct ClientIp(pub Option<IpAddr>);

impl ClientIp {
    pub fn is_loopback(&self) -> bool {
        self.0.is_some_and(|ip| ip.is_loopback())
    }
}

impl<S: Send + Sync> FromRequestParts<S> for ClientIp {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(addr)| addr.ip());
        let ip = peer.map(|peer| match parts.extensions.get::<TrustedProxies>() {
            Some(trusted) => {
                let forwarded = parts
                    .headers
                    .get_all("x-forwarded-for")
                    .iter()
                    .filter_map(|v| v.to_str().ok());
                trusted.client_ip(peer, forwarded)
            }
            None => peer,
        });
        Ok(ClientIp(ip))
    }
}

/// Whether the client is really on this machine: its address ([`ClientIp`]) is loopback, and
/// no proxy the control plane does not trust forwarded the request. A loopback peer that is
/// not in `--trusted-proxies` but sends forwarding headers is a proxy (the gateway's console
/// forwarder is one) relaying someone whose address is unknown, so it is not local.
#[derive(Debug, Clone, Copy)]
pub struct LocalClient(pub bool);

/// Headers a proxy uses to name the client it forwards.
const FORWARDING_HEADERS: [&str; 3] = ["x-forwarded-for", "forwarded", "x-real-ip"];

impl<S: Send + Sync> FromRequestParts<S> for LocalClient {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Ok(client) = ClientIp::from_request_parts(parts, state).await;
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(addr)| addr.ip());
        let forwarded_by_unknown_proxy = peer.is_none_or(|peer| !is_trusted_proxy(parts, peer))
            && FORWARDING_HEADERS
                .iter()
                .any(|name| parts.headers.contains_key(*name));
        Ok(LocalClient(
            client.is_loopback() && !forwarded_by_unknown_proxy,
        ))
    }
}

/// Whether a peer is a proxy whose `X-Forwarded-*` headers are believed (`--trusted-proxies`,
/// handed to requests as an extension by [`crate::app`]).
fn is_trusted_proxy(parts: &Parts, peer: IpAddr) -> bool {
    parts
        .extensions
        .get::<TrustedProxies>()
        .is_some_and(|t| t.trusts(peer))
}

/// Whether the client reached the control plane over HTTPS: the request's own scheme, or the
/// last `X-Forwarded-Proto` value set by a proxy [`ClientIp`] trusts.
#[derive(Debug, Clone, Copy)]
pub struct ClientHttps(pub bool);

impl<S: Send + Sync> FromRequestParts<S> for ClientHttps {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        if parts.uri.scheme_str() == Some("https") {
            return Ok(ClientHttps(true));
        }
        let from_trusted_proxy = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .is_some_and(|ConnectInfo(addr)| is_trusted_proxy(parts, addr.ip()));
        let forwarded_https = parts
            .headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.rsplit(',').next())
            .is_some_and(|proto| proto.trim().eq_ignore_ascii_case("https"));
        Ok(ClientHttps(from_trusted_proxy && forwarded_https))
    }
}

/// The language the caller reads (`Accept-Language`).
pub struct ReqLang(pub Lang);

impl<S: Send + Sync> FromRequestParts<S> for ReqLang {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(ReqLang(Lang::from_accept_language(
            parts
                .headers
                .get(header::ACCEPT_LANGUAGE)
                .and_then(|v| v.to_str().ok()),
        )))
    }
}
