//! Calls to services outside the system: email over SMTP and human verification (Turnstile).

pub mod mail;
pub mod providers;
pub mod turnstile;
