//! Calls to services outside the system: email over SMTP, human verification (Turnstile), and
//! user-configured addresses (webhooks) through the SSRF guard.

pub mod guard;
pub mod mail;
pub mod providers;
pub mod turnstile;
