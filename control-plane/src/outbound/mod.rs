//! Calls to services outside the system: email over SMTP, human verification (Turnstile),
//! upstream providers (channel tests, model lists, balances; cloud channels apart), and
//! user-configured addresses (webhooks) through the SSRF guard.

pub mod cloud;
pub mod guard;
pub mod mail;
pub mod oauth;
pub mod providers;
pub mod turnstile;
