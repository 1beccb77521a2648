//! Bedrock keys, URLs and authentication headers; the Converse codec.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod converse;
mod keys;
