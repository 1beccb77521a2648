//! Request extractors that reject in the envelope: JSON bodies, queries, the client's address
//! and language.

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

/// The client's address: the TCP peer, or, when the peer is a proxy on this machine, the last
/// address that proxy appended to `X-Forwarded-For`.
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
        let forwarded = parts
            .headers
            .get("x-forwarded-for")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.rsplit(',').next())
            .and_then(|last| last.trim().parse::<IpAddr>().ok());
        let ip = match (peer, forwarded) {
            (Some(peer), Some(forwarded)) if peer.is_loopback() => Some(forwarded),
            (peer, _) => peer,
        };
        Ok(ClientIp(ip))
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
