//! The reply shapes every call shares: `{success, message, data}` and the page object.

use axum::Json;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// The spec's envelope around every reply.
#[derive(Debug, Serialize, ToSchema)]
pub struct Envelope<T> {
    pub success: bool,
    pub message: String,
    pub data: Option<T>,
}

/// The envelope of replies that carry no data (documentation only).
#[derive(Debug, Serialize, ToSchema)]
pub struct EmptyEnvelope {
    pub success: bool,
    pub message: String,
    #[schema(value_type = Option<Object>)]
    pub data: Option<serde_json::Value>,
}

/// A successful reply carrying `data`.
pub fn ok<T>(data: T) -> Json<Envelope<T>> {
    Json(Envelope {
        success: true,
        message: String::new(),
        data: Some(data),
    })
}

/// A successful reply carrying `data` and a message for the user.
pub fn ok_with_message<T>(data: T, message: impl Into<String>) -> Json<Envelope<T>> {
    Json(Envelope {
        success: true,
        message: message.into(),
        data: Some(data),
    })
}

/// A successful reply with no data.
pub fn done() -> Json<Envelope<()>> {
    Json(Envelope {
        success: true,
        message: String::new(),
        data: None,
    })
}

/// One page of a list.
#[derive(Debug, Serialize, ToSchema)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub page: i64,
    pub page_size: i64,
    pub total: i64,
}

pub const DEFAULT_PAGE_SIZE: i64 = 10;
pub const MAX_PAGE_SIZE: i64 = 100;

/// Paging query: `p` is 1-based (0 reads as 1); `page_size` (or `ps`, `size`) is 1 to 100.
#[derive(Debug, Default, Deserialize, IntoParams)]
pub struct PageQuery {
    pub p: Option<i64>,
    pub page_size: Option<i64>,
    #[param(ignore)]
    pub ps: Option<i64>,
    #[param(ignore)]
    pub size: Option<i64>,
}

impl PageQuery {
    /// `(page, page_size, offset)` after clamping.
    pub fn resolve(&self) -> (i64, i64, i64) {
        let page = self.p.unwrap_or(1).max(1);
        let size = self
            .page_size
            .or(self.ps)
            .or(self.size)
            .unwrap_or(DEFAULT_PAGE_SIZE)
            .clamp(1, MAX_PAGE_SIZE);
        (page, size, (page - 1).saturating_mul(size))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paging_clamps() {
        let q = PageQuery {
            p: Some(0),
            page_size: Some(1000),
            ..Default::default()
        };
        assert_eq!(q.resolve(), (1, 100, 0));
        let q = PageQuery {
            p: Some(3),
            ps: Some(20),
            ..Default::default()
        };
        assert_eq!(q.resolve(), (3, 20, 40));
        assert_eq!(PageQuery::default().resolve(), (1, 10, 0));
    }
}
