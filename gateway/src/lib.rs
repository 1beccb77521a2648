//! The gateway (data plane): authenticates, routes, relays (streaming) and bills
//! OpenAI-compatible traffic from an in-memory config snapshot, on pingora.
//!
//! A request flows edge → limits → routing → adapters → upstream → usage; `relay` ties the steps
//! together inside pingora's `request_filter`.

pub mod admin;
pub mod billing;
pub mod config;
pub mod credentials;
pub mod edge;
pub mod error;
pub mod id_hash;
pub mod limits;
pub mod memory;
pub mod metrics;
pub mod relay;
pub mod routing;
pub use background_sched as sched;
pub mod server;
pub mod state;
pub mod tasks;
pub mod upstream;
pub mod usage;

/// The pure protocol crate, re-exported for embedders and tests.
pub use adapters;
pub use server::{RunningGateway, ServeOptions, StartError, build_server, build_state, state_from};
