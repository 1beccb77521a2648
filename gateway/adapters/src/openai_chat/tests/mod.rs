//! Golden tests: both sides of the Chat Completions conversion.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod client;
mod provider;
